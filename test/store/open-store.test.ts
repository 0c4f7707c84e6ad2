import { loadConfig } from '../../src/config';
import { runKeysCli } from '../../src/keys-cli';
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
 * (this thread) open the embedded store on DATA_DIR. Whichever way it runs, a data directory a
 * live process holds is refused with the one DataDirectoryInUseError, naming the holder.
 */
describe('openStore on an embedded data directory', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let holder: InProcessStore | undefined;

  beforeEach(() => {
    temp = makeTempDir('open-store');
  });

  afterEach(async () => {
    await holder?.close();
    holder = undefined;
    temp.remove();
  });

  const quietChild: EmbeddedRun = { run: 'child', events: { restarting: () => undefined, restarted: () => undefined } };

  it.each<[string, EmbeddedRun]>([
    ['a child process (the service)', quietChild],
    ['a worker thread (the seed CLI)', { run: 'worker' }],
    ['this thread (the keys CLI)', { run: 'in-process' }],
  ])(
    'when the data directory is held by a running store and the store is to run in %s, then opening rejects with DataDirectoryInUseError',
    async (_, embedded) => {
      // Arrange
      const config = loadConfig({ DATA_DIR: temp.dir });
      holder = await startInProcessStore(config.dataDir);

      // Act
      const opening = openStore(config, { embedded });

      // Assert
      await expect(opening).rejects.toBeInstanceOf(DataDirectoryInUseError);
      await expect(opening).rejects.toMatchObject({ dataDir: config.dataDir, pid: process.pid });
    },
  );

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

  it('when the keys CLI finds the data directory in use, then it names the process, advises, and exits with 1', async () => {
    // Arrange
    const config = loadConfig({ DATA_DIR: temp.dir });
    holder = await startInProcessStore(config.dataDir);
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
      `the embedded store on DATA_DIR=${config.dataDir} is in use by process ${process.pid}`,
    );
    expect(err.join('\n')).toContain('Stop the service');
  });
});
