import fs from 'node:fs';
import path from 'node:path';
import { runningStore, STORE_URI_FILE } from 'embedded-mongodb';
import { makeTempDir } from 'embedded-mongodb/test-support';
import { runCli, type CliTool } from '../../src/cli/cli-frame';
import type { CliOutput } from '../../src/cli/cli-support';
import { startInProcessStore, type InProcessStore } from '../../src/store/open-store';

/**
 * The CLI frame with a store: it opens the store of the configuration (the embedded one on
 * DATA_DIR here) for the tool's work, hands it the core's services over it, and closes it
 * whatever the work did; a data directory held by a store it cannot reach is told with the
 * held-store message and the tool's failure exit code.
 */
describe('the CLI frame on an embedded data directory', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let holder: InProcessStore | undefined;

  beforeEach(() => {
    temp = makeTempDir('cli-frame');
  });
  afterEach(async () => {
    await holder?.close();
    holder = undefined;
    temp.remove();
  });

  function captured(): { output: CliOutput; err: string[] } {
    const err: string[] = [];
    return { output: { out: () => undefined, err: (line) => err.push(line) }, err };
  }

  const dataDir = () => path.join(temp.dir, 'cd.data');

  test('when a tool runs, then it gets the store and the services over it, and the store is closed when the frame resolves', async () => {
    // Arrange
    let seen: { keys: number; collections: string[] } | undefined;
    const tool: CliTool<string> = {
      name: 'probe',
      usage: 'Usage: probe',
      parse: () => 'list',
      run: async (_command, { db, services }) => {
        await db.collection('probes').insertOne({ n: 1 });
        seen = {
          keys: (await services().apiKeys.listKeys()).length,
          collections: (await db.listCollections().toArray()).map((c) => c.name),
        };
      },
    };
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, [], output, { env: { DATA_DIR: dataDir() } });

    // Assert
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(seen).toEqual({ keys: 0, collections: ['probes'] });
    expect(runningStore(dataDir())).toBeUndefined();
    expect(fs.readdirSync(dataDir()).sort()).toEqual(['data.mdb', 'lock.mdb']);
  });

  test('when the work fails, then the store is closed all the same', async () => {
    // Arrange
    const tool: CliTool<string> = {
      name: 'probe',
      usage: 'Usage: probe',
      parse: () => 'fail',
      run: async () => {
        throw new Error('the work failed');
      },
    };
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, [], output, { env: { DATA_DIR: dataDir() } });

    // Assert
    expect({ code, err }).toEqual({ code: 1, err: ['probe: the work failed'] });
    expect(fs.existsSync(path.join(dataDir(), 'store.lock'))).toBe(false);
  });

  test('when the data directory is held by a store that publishes no address, then the held-store message names the tool, with its failure exit code, and the work does not run', async () => {
    // Arrange
    holder = await startInProcessStore(dataDir());
    fs.rmSync(path.join(dataDir(), STORE_URI_FILE));
    let ran = false;
    const tool: CliTool<string> = {
      name: 'probe',
      usage: 'Usage: probe',
      exitCodes: { failed: 3 },
      parse: () => 'run',
      run: async () => {
        ran = true;
      },
    };
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, [], output, { env: { DATA_DIR: dataDir() } });

    // Assert
    expect(code).toBe(3);
    expect(ran).toBe(false);
    expect(err).toEqual([
      expect.stringMatching(
        new RegExp(
          `^probe: the embedded store on DATA_DIR=${dataDir()} is held by process ${process.pid}, which does not accept connections yet`,
        ),
      ),
    ]);
  });
});
