/**
 * Dependency rules of src/ (README "Code layout / dependency rules"), checked by
 * `npm run depcheck` in CI. Type-only imports count like any other (tsPreCompilationDeps):
 * a cycle through types is still a cycle for the reader.
 */

/** The domain areas and shared layers below the transports: they never import a transport. */
const BELOW_TRANSPORTS =
  '^src/(audit|auth|cache|candidates|common|demo|observability|persisted-queries|rate-limit|reference|statistics|store)/';
/** The modules that wire everything together; only entry points import them. */
const COMPOSITION_ROOTS = '^src/(main|services|indexes|create-http-app)[.]ts$';
/** Command-line entry points inside an area: composition roots of their own. */
const CLI_ENTRY_POINTS = '^src/(demo/seed-cli|store/cli)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle in src/, type-only imports included.',
      from: { path: '^src/' },
      to: { circular: true },
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
      comment: 'The REST router is mounted by the HTTP app (create-http-app); it does not reach back up to it.',
      from: { path: '^src/rest/' },
      to: { path: 'create-http-app[.]ts$' },
    },
    {
      name: 'areas-do-not-import-the-composition-root',
      severity: 'error',
      comment:
        'main.ts, services.ts, indexes.ts and create-http-app.ts wire the areas together; an area never imports them (the CLI entry points, composition roots themselves, may).',
      from: { path: '^src/[^/]+/', pathNot: CLI_ENTRY_POINTS },
      to: { path: COMPOSITION_ROOTS },
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
    exclude: { path: '^src/store/embedded/' },
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
