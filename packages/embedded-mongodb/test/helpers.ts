import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { spawnEmbeddedStore, type EmbeddedStoreProcess } from '../src/embedded-process';

/** A fresh temporary directory, removed by the returned cleanup. */
export function makeTempDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** The journal file(s) of a store data directory. */
export function journalFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => /^journal-\d+\.log$/.test(name))
    .map((name) => path.join(dir, name));
}

/**
 * A store child on a temporary data directory, which a test starts, kills with SIGKILL and
 * starts again on the same files, with one client at a time. Registers its own beforeEach and
 * afterEach.
 *
 * A client that was open when its store was killed is closed by the next `start`, once a store
 * listens on the socket again, never while none does: the driver's close() then ends the
 * client's sessions against a server that is gone, and at times it never returned (in about 1
 * of 20 runs of transactions.test.ts beside other load: the test and its cleanup both past
 * jest's limit, the jest process left idle afterwards). The client also gives up server
 * selection after 2 s instead of 30.
 */
export function crashableStoreChild(prefix: string) {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStoreProcess | undefined;
  let client: MongoClient | undefined;

  beforeEach(() => {
    temp = makeTempDir(prefix);
  });

  afterEach(async () => {
    await client?.close();
    await store?.kill('SIGKILL');
    client = undefined;
    store = undefined;
    temp.remove();
  });

  return {
    get dir(): string {
      return temp.dir;
    },
    /** The client of the running store (after start). */
    get client(): MongoClient {
      if (!client) throw new Error('the store child is not started');
      return client;
    },
    /**
     * Starts the store child on the data directory and connects a new client to it.
     * `durableMarks`: the store's test-only --durable-marks file.
     */
    async start(options: { durableMarks?: string } = {}): Promise<MongoClient> {
      store = await spawnEmbeddedStore({ dbPath: temp.dir, ...options });
      await client?.close();
      client = await MongoClient.connect(store.uri, { serverSelectionTimeoutMS: 2000 });
      return client;
    },
    /** The URI of the running store (after start), for a service of the test's own. */
    get uri(): string {
      if (!store) throw new Error('the store child is not started');
      return store.uri;
    },
    /** SIGKILL of the store child, without warning. */
    async kill(): Promise<void> {
      await store?.kill('SIGKILL');
      store = undefined;
    },
    async closeClient(): Promise<void> {
      await client?.close();
      client = undefined;
    },
  };
}
