/**
 * Three tiers, each a jest project (`npm run test:unit`, `test:integration`, `test:e2e`; `npm test`
 * runs all three after the type check), chosen by directory:
 * - unit: test/unit: code alone, no store (a few run a small script or read the repository);
 * - integration: the service or a store in the test's process (test/integration over HTTP,
 *   test/contract, test/property, test/store), and the embedded store's own tests
 *   (packages/embedded-mongodb/test: engine, durability, CRUD conformance);
 * - e2e: test/e2e: the service as `npm start` runs it, in its own process, killed and restarted,
 *   and the playground in headless Chromium.
 * test/unit/test-tiers.test.ts fails when a test file is in no tier.
 */
const TIERS = {
  unit: ['test/unit'],
  integration: ['test/integration', 'test/contract', 'test/property', 'test/store', 'packages/embedded-mongodb/test'],
  e2e: ['test/e2e'],
};

/** @type {import('jest').Config} */
const project = {
  // node's, with the embedded store children's log shown only for a failed test (the file says how).
  testEnvironment: '<rootDir>/test/support/store-log-environment.ts',
  setupFiles: ['<rootDir>/test/support/store-log-setup.ts'],
  // The workspace packages run from their sources under test, as the service's own modules do.
  // The store's test support (starting stores, ../shared files) serves the service's tests too.
  moduleNameMapper: {
    '^(embedded-mongodb|candidate-documents|demo-data)$': '<rootDir>/packages/$1/src/index.ts',
    '^embedded-mongodb/test-support$': '<rootDir>/packages/embedded-mongodb/test/support/index.ts',
  },
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is done once by `npm run typecheck`; jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
};

/** @type {import('jest').Config} */
module.exports = {
  projects: Object.entries(TIERS).map(([tier, directories]) => ({
    ...project,
    displayName: tier,
    rootDir: __dirname,
    roots: directories.map((directory) => `<rootDir>/${directory}`),
  })),
  // Twice the longest an ordinary test took on a busy machine (dependency-rules: 24 s under a load of
  // 11-18 on 2 cores), so that none fails for the machine's load; longer tests carry their own.
  testTimeout: 60000,
  // Every app under test logs to a file of the run; the teardown fails the run if a log holds a recorded secret.
  globalSetup: '<rootDir>/test/support/log-scan-setup.ts',
  globalTeardown: '<rootDir>/test/support/log-scan-teardown.ts',
  // Three workers on CI's two cores: the crash, fault and browser suites spend much of their time
  // waiting (process restarts, the driver finding the store again), so a third keeps the cores busy
  // (measured: 77 % of two cores used with two workers).
  maxWorkers: 3,
};
