/** Names a test file's store log file (store-log-environment.ts) to its setup (store-log-setup.ts), through process.env. */
export const STORE_LOG_VARIABLE = 'TEST_STORE_CHILD_LOG';
