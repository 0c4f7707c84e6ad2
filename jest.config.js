/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/packages/embedded-mongodb/test'],
  // The workspace package runs from its sources under test, as the service's own modules do.
  // Its test support (starting stores, ../shared files) serves the service's tests too.
  moduleNameMapper: {
    '^embedded-mongodb$': '<rootDir>/packages/embedded-mongodb/src/index.ts',
    '^embedded-mongodb/test-support$': '<rootDir>/packages/embedded-mongodb/test/support/index.ts',
  },
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is done once by `npm run typecheck`; jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 30000,
  // Every app under test logs to a file of the run; the teardown fails the run if a log holds a recorded secret.
  globalSetup: '<rootDir>/test/support/log-scan-setup.ts',
  globalTeardown: '<rootDir>/test/support/log-scan-teardown.ts',
  maxWorkers: 2,
};
