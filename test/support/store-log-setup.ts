import { routeChildStoreLogs } from 'embedded-mongodb';
import { STORE_LOG_VARIABLE } from './store-log-variable';

// Run before each test file (jest.config.js setupFiles), in its module registry: the store
// children it starts log to the file its environment (store-log-environment.ts) reads.
routeChildStoreLogs(process.env[STORE_LOG_VARIABLE]);
