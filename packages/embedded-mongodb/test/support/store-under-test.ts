import { MongoClient, type Db } from 'mongodb';
import { startEmbeddedStore, type EmbeddedStore } from '../../src/index';
import { storeSocket } from '../../src/store-socket';

export interface StoreUnderTest {
  /** Connection string of the store the tests talk to. */
  readonly uri: string;
  /** True for a real MongoDB named by MONGODB_URI, false for the embedded store. */
  readonly external: boolean;
  stop(): Promise<void>;
}

/** The real MongoDB named by MONGODB_URI, when tests are to run against one. */
export function externalStoreUri(): string | undefined {
  return process.env.MONGODB_URI || undefined;
}

/**
 * The store integration tests run against: the real MongoDB in MONGODB_URI when that is set
 * (the one place tests read the environment), else a fresh in-memory embedded store on a Unix
 * domain socket. Stopping leaves a real MongoDB running; the embedded store is shut down.
 */
export async function startStoreUnderTest(): Promise<StoreUnderTest> {
  const external = externalStoreUri();
  if (external) return { uri: external, external: true, stop: async () => undefined };
  // On a socket in a private directory, as the service runs its store: no TCP port open to every local user.
  const socket = storeSocket(undefined);
  const store = await startEmbeddedStore({ memory: true, socketPath: socket.path });
  return {
    uri: store.uri,
    external: false,
    stop: async () => {
      await store.close();
      socket.release();
    },
  };
}

/** The in-memory store of one describe block and its client (see embeddedStoreForSuite). */
export interface SuiteStore {
  readonly store: EmbeddedStore;
  readonly client: MongoClient;
}

/**
 * An in-memory embedded store on TCP port 0 and one client of it, for the tests of one describe
 * block, whatever MONGODB_URI says: for tests of this store's own answers (sizes, refusals,
 * replica-set `hello`), which a real MongoDB of another version may give differently. Registers
 * a beforeAll that starts both and an afterAll that closes the client, then the store; read the
 * two from the returned object inside hooks and tests.
 */
export function embeddedStoreForSuite(): SuiteStore {
  let started: SuiteStore | undefined;
  beforeAll(async () => {
    const store = await startEmbeddedStore({ memory: true, port: 0 });
    started = { store, client: await MongoClient.connect(store.uri) };
  });
  afterAll(async () => {
    await started?.client.close();
    await started?.store.close();
  });
  const running = (): SuiteStore => {
    if (!started) throw new Error('the suite store starts in beforeAll: read it inside hooks and tests');
    return started;
  };
  return {
    get store() {
      return running().store;
    },
    get client() {
      return running().client;
    },
  };
}

/** The store under test of one describe block, its client and the database its tests write to. */
export interface SuiteDatabase {
  readonly client: MongoClient;
  readonly db: Db;
}

/**
 * The store under test (startStoreUnderTest: MONGODB_URI's MongoDB, else the embedded store) for
 * the tests of one describe block, one client of it and the database `name`, dropped before each
 * test. Registers the hooks; read the two from the returned object inside hooks and tests.
 */
export function storeUnderTestForSuite(name: string): SuiteDatabase {
  let started: { store: StoreUnderTest; client: MongoClient } | undefined;
  beforeAll(async () => {
    const store = await startStoreUnderTest();
    started = { store, client: await MongoClient.connect(store.uri) };
  });
  afterAll(async () => {
    await started?.client.close();
    await started?.store.stop();
  });
  const running = (): { store: StoreUnderTest; client: MongoClient } => {
    if (!started) throw new Error('the suite store starts in beforeAll: read it inside hooks and tests');
    return started;
  };
  beforeEach(async () => {
    await running().client.db(name).dropDatabase();
  });
  return {
    get client() {
      return running().client;
    },
    get db() {
      return running().client.db(name);
    },
  };
}
