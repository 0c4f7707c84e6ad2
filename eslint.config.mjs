// ESLint over the whole repository (src/, test/, scripts/, packages/*/, config files).
// `npm run lint` runs it; .ci/run fails on any error. Formatting is Prettier's job
// (`npm run format:check`): eslint-config-prettier turns off every rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Generated or vendored files only: everything written by hand is linted.
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      '.data/**',
      '.bench/**',
      'src/graphql/generated/**',
      'test/support/generated/**',
      'packages/*/src/**/generated/**',
    ],
  },
  {
    linterOptions: {
      // A `// eslint-disable` that no longer silences anything is dead weight: report it.
      reportUnusedDisableDirectives: 'error',
    },
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // Each file is checked with the nearest tsconfig.json (the root one, or a workspace
        // package's own), so type-aware rules see the same types as `tsc`.
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    // Rules beyond the recommended sets, each against a class of bug (not a matter of taste).
    files: ['**/*.{ts,js,mjs,cjs}'],
    rules: {
      // `==` coerces ('' == 0); the code compares with `===` except the `x == null` idiom
      // (null or undefined), which stays allowed.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Comparing a value with itself is a typo or a disguised NaN check (use Number.isNaN).
      'no-self-compare': 'error',
      // A loop whose condition's variables never change inside it runs forever or never.
      'no-unmodified-loop-condition': 'error',
      // A loop that always exits in its first pass is an `if` written by mistake.
      'no-unreachable-loop': 'error',
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      // A promise returned without `await` inside try escapes the catch when it rejects, and the
      // finally runs before it settles; `return await` there keeps both in force.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // A switch over a union that forgets a member silently falls through to nothing.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Off: the code marks functions `async` without an `await` on purpose (Apollo plugin hooks,
      // in-memory fakes of async repositories) so that a throw becomes a rejected promise, as
      // the interface promises; dropping `async` to please the rule would change that.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed parameters and variables are deliberately unused (positional callbacks,
      // rest siblings that drop a field).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The service and the store log through pino (src/logger.ts), whose redaction keeps
    // identity data out of the logs; a stray console call would bypass it. Entry points
    // (main.ts, the CLIs) print to the operator's terminal on purpose.
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['src/app/main.ts', 'src/cli/**', '**/cli.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    // STYLE.md: "src/config.ts: every setting ... Nothing else reads process.env." The entry
    // points hand process.env to loadConfig.
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['src/config.ts', 'src/app/main.ts', 'src/cli/**', '**/cli.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings from src/config.ts (the one validated Config).' },
      ],
    },
  },
  {
    // The embedded store copies field values between BSON documents, whose type (mongodb's
    // `Document`) is `Record<string, any>`: every copy is an "unsafe assignment" the rule cannot
    // tell from a use. Reading a member, calling or returning an `any` stays an error there.
    files: ['src/store/embedded/**/*.ts', 'packages/embedded-mongodb/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    files: ['test/**/*.ts', 'packages/*/test/**/*.ts'],
    rules: {
      // A left-over .only silently skips the rest of the suite in CI.
      'no-restricted-properties': [
        'error',
        ...['test', 'it', 'describe'].map((object) => ({
          object,
          property: 'only',
          message: 'A focused test skips the rest of the suite: remove .only before committing.',
        })),
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fit', message: 'A focused test skips the rest of the suite.' },
        { name: 'fdescribe', message: 'A focused test skips the rest of the suite.' },
      ],
      // Tests read HTTP and GraphQL answers as untyped JSON on purpose (the assertion is
      // the type check: a test types the body only as far as it asserts it). The unsafe-any
      // rules stay on for src/, scripts/ and packages/*/src, where an `any` would hide a bug.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    // The playground's own scripts run in the browser (classic scripts after the GraphiQL bundle).
    files: ['src/graphql/playground/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, YogaGraphiQL: 'readonly' } },
  },
  prettier,
);
