/**
 * Dependency rules of src/ and packages/ (README "Code layout / dependency rules"), checked by
 * `npm run depcheck` in CI (the layers below are those of src/; packages/ must have no cycle). Type-only imports count like any other (tsPreCompilationDeps):
 * a cycle through types is still a cycle for the reader.
 */

/** The domain areas and shared layers below the transports: they never import a transport. */
const BELOW_TRANSPORTS =
  '^src/(audit|auth|cache|candidates|changes|common|idempotency|observability|operations|persisted-queries|rate-limit|reference|statistics|store|webhooks)/';
/** The application: start-up, the composition root (services, indexes, the HTTP app), the banner. */
const APP = '^src/app/';
/** The command-line tools: composition roots of their own. */
const CLI = '^src/cli/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle in src/ or packages/, type-only imports included.',
      from: { path: '^(src|packages)/' },
      to: { circular: true },
    },
    {
      name: 'packages-stand-alone',
      severity: 'error',
      comment:
        'A workspace package (packages/*) is its own product: it imports other packages by name, never the service (src/) nor its tests.',
      from: { path: '^packages/' },
      to: { path: '^(src|test|scripts)/' },
    },
    {
      name: 'store-is-the-bottom-layer',
      severity: 'error',
      comment:
        'src/store/ (connection, index mechanism, duplicate keys, availability) imports only itself, common/, observability/ and the root leaves config, errors and logger: each area hands it its own collections and indexes, never the other way round.',
      from: { path: '^src/store/' },
      to: {
        path: '^src/',
        pathNot: ['^src/store/', '^src/common/', '^src/observability/', '^src/(config|errors|logger)[.]ts$'],
      },
    },
    {
      name: 'domain-below-transports',
      severity: 'error',
      comment:
        'Areas and shared layers do not import the transports (graphql/, rest/, http/). Only the types generated from the SDL without resolvers (graphql/generated/schema-types.ts) are shared with the services: they are the contract, and import nothing.',
      from: { path: BELOW_TRANSPORTS },
      to: { path: '^src/(graphql|rest|http)/', pathNot: '^src/graphql/generated/schema-types[.]ts$' },
    },
    {
      name: 'http-below-transports',
      severity: 'error',
      comment:
        'src/http/ is the HTTP edge both transports share (problem+json, health, security, fallbacks): it imports neither rest/ nor graphql/.',
      from: { path: '^src/http/' },
      to: { path: '^src/(rest|graphql)/' },
    },
    {
      name: 'graphql-below-rest',
      severity: 'error',
      comment: 'REST /v1 runs persisted GraphQL operations: rest/ imports graphql/, never the reverse.',
      from: { path: '^src/graphql/' },
      to: { path: '^src/rest/' },
    },
    {
      name: 'rest-does-not-import-the-http-app',
      severity: 'error',
      comment: 'The REST router is mounted by the HTTP app (src/app/http-app.ts); it does not reach back up to it.',
      from: { path: '^src/rest/' },
      to: { path: APP },
    },
    {
      name: 'areas-do-not-import-the-composition-root',
      severity: 'error',
      comment:
        'src/app/ (start-up, services, indexes, the HTTP app) wires the areas and transports together; nothing outside it imports it but the command-line tools, composition roots themselves.',
      from: { path: '^src/', pathNot: [APP, CLI] },
      to: { path: APP },
    },
    {
      name: 'nothing-imports-the-tools',
      severity: 'error',
      comment: 'src/cli/ holds entry points only: the tools import the product, never the reverse.',
      from: { path: '^src/', pathNot: CLI },
      to: { path: CLI },
    },
    {
      name: 'apollo-plugins-in-graphql',
      severity: 'error',
      comment: 'Apollo Server (its plugins included) is used only under src/graphql/.',
      from: { path: '^src/', pathNot: '^src/graphql/' },
      to: { path: '(^|/)node_modules/@apollo/server/' },
    },
  ],
  options: {
    // The embedded store is its own product, on its way to packages/embedded-mongodb (imported by
    // name, so outside this check); its internal module graph is not part of the service's layers.
    exclude: { path: ['^src/store/embedded/', '^packages/[^/]+/dist/'] },
    doNotFollow: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
