import { MongoClient } from 'mongodb';
import { loadConfig } from '../../src/config';
import { runSeedCli, type SeedCliIo } from '../../src/cli/seed';
import { startEmbeddedStore } from 'embedded-mongodb';
import { COLLECTIONS, INDEXES } from '../../src/app/indexes';
import { makeTempDir } from 'embedded-mongodb/test-support';

/**
 * The seed CLI on the embedded store: the store runs in a worker thread of the CLI on DATA_DIR,
 * and what it acknowledged must be there when the directory is opened again.
 */
/**
 * A seed on disk: the store's start, the indexes, the reference data and the candidates, each
 * write an fsync'ed commit; seconds of work on a quiet machine, and the disk is shared.
 */
const SEED_TIMEOUT_MS = 120_000;

describe('seed CLI on an embedded data directory', () => {
  let temp: ReturnType<typeof makeTempDir>;

  beforeEach(() => {
    temp = makeTempDir('seed-cli');
  });

  afterEach(() => {
    temp.remove();
  });

  function capturedIo(): { io: SeedCliIo; stdout: () => string; stderr: () => string } {
    const out: string[] = [];
    const err: string[] = [];
    return {
      io: { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text) } },
      stdout: () => out.join(''),
      stderr: () => err.join(''),
    };
  }

  it(
    'when a fresh data directory is seeded, then the candidates and every index are there once it is opened again',
    async () => {
      // Arrange
      const config = loadConfig({ DATA_DIR: temp.dir });
      const { io, stdout } = capturedIo();

      // Act
      const code = await runSeedCli(['--candidates', '120', '--seed', '5'], io, config);

      // Assert
      expect(code).toBe(0);
      expect(stdout()).toContain('Wrote 120 candidates');
      const store = await startEmbeddedStore({ dbPath: temp.dir, port: 0 });
      const client = await MongoClient.connect(store.uri);
      try {
        const db = client.db(config.mongodbDb);
        expect(await db.collection(COLLECTIONS.candidates).countDocuments()).toBe(120);
        const indexNames = (await db.collection(COLLECTIONS.candidates).listIndexes().toArray()).map(
          (index) => index.name as string,
        );
        const expected = INDEXES.filter((index) => index.collection === COLLECTIONS.candidates).map(
          (index) => index.options.name,
        );
        expect(indexNames).toEqual(expect.arrayContaining(expected));
      } finally {
        await client.close();
        await store.close();
      }
    },
    SEED_TIMEOUT_MS,
  );

  it(
    'when the data directory is held by a running store, then the seed goes into that store',
    async () => {
      // Arrange
      const config = loadConfig({ DATA_DIR: temp.dir });
      const { io, stdout } = capturedIo();
      const running = await startEmbeddedStore({ dbPath: temp.dir, port: 0 });
      const client = await MongoClient.connect(running.uri);

      // Act
      let code: number;
      let stored: number;
      try {
        code = await runSeedCli(['--candidates', '10'], io, config);
        stored = await client.db(config.mongodbDb).collection(COLLECTIONS.candidates).countDocuments();
      } finally {
        await client.close();
        await running.close();
      }

      // Assert
      expect(code).toBe(0);
      expect(stdout()).toContain(`into the running store on ${temp.dir} (process ${process.pid})`);
      expect(stored).toBe(10);
    },
    SEED_TIMEOUT_MS,
  );
});
