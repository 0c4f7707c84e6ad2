/**
 * The package's test support, also what the service's tests start their stores with: the root
 * tsconfig.json and jest.config.js map `embedded-mongodb/test-support` here. It is not part of
 * the package's build (dist/), which holds only the store.
 */
export * from '../helpers';
export * from './bytes-on-disk';
export * from './shared-files';
export * from './store-under-test';
