import fs from 'node:fs';
import path from 'node:path';
import { runningStore, STORE_URI_FILE } from 'embedded-mongodb';
import { MongoClient, type Db } from 'mongodb';
import { loadConfig } from '../../src/config';
import { runKeysCli } from '../../src/cli/keys';
import {
  DataDirectoryInUseError,
  openStore,
  startInProcessStore,
  type EmbeddedRun,
  type InProcessStore,
} from '../../src/store/open-store';
import { makeTempDir } from 'embedded-mongodb/test-support';

/**
 * openStore is how the service (child process), the seed CLI (worker thread) and the keys CLI
 * (this thread) open the embedded store on DATA_DIR. A data directory a live store holds is never
 * opened twice: a CLI connects to that store (the running service's), the service is refused
 * with DataDirectoryInUseError, naming the holder, as is a CLI when the holder cannot be reached.
 */
describe('openStore on an embedded data directory', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let holder: InProcessStore | undefined;

  beforeEach(() => {
    temp = makeTempDir('open-store');
  });

  const clients: MongoClient[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await holder?.close();
    holder = undefined;
    temp.remove();
  });

  const quietChild: EmbeddedRun = { run: 'child', events: { restarting: () => undefined, restarted: () => undefined } };

  it('when the data directory is held by a running store and the store is to run in a child process (the service), then opening rejects with DataDirectoryInUseError', async () => {
    // Arrange
    const config = loadConfig({ DATA_DIR: temp.dir });
    holder = await startInProcessStore(config.dataDir);

    // Act
    const opening = openStore(config, { embedded: quietChild });

    // Assert
    await expect(opening).rejects.toBeInstanceOf(DataDirectoryInUseError);
    await expect(opening).rejects.toMatchObject({ dataDir: config.dataDir, pid: process.pid });
  });

  it.each<[string, EmbeddedRun]>([
    ['a worker thread (the seed CLI)', { run: 'worker' }],
    ['this thread (the keys CLI)', { run: 'in-process' }],
  ])(
    'when the data directory is held by a running store and the store is to run in %s, then it connects to that store, which stays up after close',
    async (_, embedded) => {
      // Arrange
      const config = loadConfig({ DATA_DIR: temp.dir });
      holder = await startInProcessStore(config.dataDir);
      const viaHolder = await openStoreOn(holder.uri);

      // Act
      const opened = await openStore(config, { embedded });
      const inserted = await opened.database.db.collection('probe').insertOne({ n: 1 });
      await opened.close();
      const seenByHolder = await viaHolder.collection('probe').findOne({ _id: inserted.insertedId });

      // Assert
      expect(opened.embedded).toMatchObject({ shared: true, socketPath: holder.socketPath });
      expect(opened.embedded?.pid()).toBe(process.pid);
      expect(seenByHolder).toMatchObject({ n: 1 });
    },
  );

  it('when the running store has not published its address (still loading), then a CLI is refused with DataDirectoryInUseError', async () => {
    // Arrange
    const config = loadConfig({ DATA_DIR: temp.dir });
    holder = await startInProcessStore(config.dataDir);
    fs.rmSync(path.join(config.dataDir, STORE_URI_FILE));

    // Act
    const opening = openStore(config, { embedded: { run: 'in-process' } });

    // Assert
    await expect(opening).rejects.toBeInstanceOf(DataDirectoryInUseError);
  });

  it('when a store was killed and left its address behind, then the next store to open the data directory replaces it', async () => {
    // Arrange
    const config = loadConfig({ DATA_DIR: temp.dir });
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(path.join(config.dataDir, STORE_URI_FILE), 'mongodb://127.0.0.1:1/?directConnection=true');
    fs.writeFileSync(path.join(config.dataDir, 'store.lock'), '999999999');

    // Act
    const beforeAnyStore = runningStore(config.dataDir);
    holder = await startInProcessStore(config.dataDir);
    const published = runningStore(config.dataDir);
    await holder.close();
    holder = undefined;

    // Assert
    expect(beforeAnyStore).toBeUndefined();
    expect(published).toEqual({
      pid: process.pid,
      uri: expect.stringContaining(encodeURIComponent(path.join(config.dataDir, 'store.sock'))),
    });
    expect(fs.existsSync(path.join(config.dataDir, STORE_URI_FILE))).toBe(false);
  });

  it('when the store that held the data directory has closed, then it opens, and is free again once closed', async () => {
    // Arrange
    const config = loadConfig({ DATA_DIR: temp.dir });
    holder = await startInProcessStore(config.dataDir);
    await holder.close();
    holder = undefined;

    // Act
    const first = await openStore(config, { embedded: { run: 'worker' } });
    const inserted = await first.database.db.collection('probe').insertOne({ n: 1 });
    await first.close();
    const second = await openStore(config, { embedded: { run: 'in-process' } });
    const found = await second.database.db.collection('probe').findOne({ _id: inserted.insertedId });
    await second.close();

    // Assert
    expect(found).toMatchObject({ n: 1 });
  });

  it('when the keys CLI runs beside a running store, then the key it creates is stored in that store', async () => {
    // Arrange
    const config = loadConfig({ DATA_DIR: temp.dir });
    holder = await startInProcessStore(config.dataDir);
    const viaHolder = await openStoreOn(holder.uri);
    const out: string[] = [];

    // Act
    const code = await runKeysCli(
      ['create', '--name', 'beside the service', '--permissions', 'READ_CANDIDATE_DATA'],
      { out: (line) => out.push(line), err: () => undefined },
      { DATA_DIR: temp.dir },
    );

    // Assert
    expect(code).toBe(0);
    expect(await viaHolder.collection('apiKeys').countDocuments({ name: 'beside the service' })).toBe(1);
  });

  it('when the keys CLI finds the data directory held by a store it cannot reach, then it names the process, advises, and exits with 1', async () => {
    // Arrange
    const config = loadConfig({ DATA_DIR: temp.dir });
    holder = await startInProcessStore(config.dataDir);
    fs.rmSync(path.join(config.dataDir, STORE_URI_FILE));
    const err: string[] = [];

    // Act
    const code = await runKeysCli(
      ['list'],
      { out: () => undefined, err: (line) => err.push(line) },
      { DATA_DIR: temp.dir },
    );

    // Assert
    expect(code).toBe(1);
    expect(err.join('\n')).toContain(
      `the embedded store on DATA_DIR=${config.dataDir} is held by process ${process.pid}, which does not accept connections yet`,
    );
    expect(err.join('\n')).toContain('Run this command again in a moment');
  });

  /** A driver connection to `uri`, closed after the test. */
  async function openStoreOn(uri: string): Promise<Db> {
    const client = await MongoClient.connect(uri);
    clients.push(client);
    return client.db(loadConfig({}).mongodbDb);
  }
});
