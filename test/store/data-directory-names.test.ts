import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MongoClient } from 'mongodb';
import { makeTempDir } from 'embedded-mongodb/test-support';
import { ensureIndexes } from '../../src/app/indexes';
import { createApp } from '../../src/app/main';
import { runImportCli, type ImportIo } from '../../src/cli/import';
import { runKeysCli } from '../../src/cli/keys';
import { runSeedCli, type SeedCliIo } from '../../src/cli/seed';
import type { CliOutput } from '../../src/cli/cli-support';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { loadReferenceData } from '../../src/reference/load-reference-data';
import { openStore } from '../../src/store/open-store';
import { DATA_DIR_NAMES, expectStoreFilesIn } from '../support/data-directory-names';

/**
 * DATA_DIR (and the store CLI's --dbpath) named as operators name them: with a dot (LMDB's binding
 * takes a last component with a dot for a file name unless told otherwise), relative, with spaces,
 * in unicode, a symbolic link, an existing empty directory. Each is opened by the store CLI,
 * seed, keys and import (the service: data-directory-names-service.test.ts), each test on a
 * directory of its own. What cannot work is refused by each with a message that names the path
 * and the reason (the store's own tests try every reason:
 * packages/embedded-mongodb/test/data-directory-refusals.test.ts).
 */

const STORE_CLI = path.resolve(__dirname, '../../packages/embedded-mongodb/src/cli.ts');
const TSX = pathToFileURL(require.resolve('tsx')).href;

/** A candidate line as the import reads it (the contract's Candidate JSON; only publicId and status required). */
const CANDIDATE_LINE = JSON.stringify({ publicId: 'namedDataDirectory0001', status: 'ACTIVE' });

function captured(): { output: CliOutput; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { output: { out: (line) => out.push(line), err: (line) => err.push(line) }, out, err };
}

function seedIo(): { io: SeedCliIo; text: () => string } {
  const written: string[] = [];
  const sink = { write: (text: string) => written.push(text) };
  return { io: { stdout: sink, stderr: sink }, text: () => written.join('') };
}

/**
 * Runs the store CLI (`npm run store -- --dbpath <dir>`, from source) on a socket until it
 * prints its URI, writes a document through it, stops it with SIGTERM; resolves with its exit
 * code, what the driver read back, and its stderr.
 */
function runStoreCli(args: string[]): Promise<{ code: number | null; read: unknown; stderr: string }> {
  const child = spawn(process.execPath, ['--import', TSX, STORE_CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let read: unknown;
  let started = false;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (started || !stdout.includes('\n')) return;
    started = true;
    void MongoClient.connect(stdout.split('\n')[0], { serverSelectionTimeoutMS: 5000 })
      .then(async (client) => {
        await client
          .db('names')
          .collection('probes')
          .insertOne({ _id: 1 as never, name: 'probe' });
        read = await client.db('names').collection('probes').findOne({});
        await client.close();
      })
      .finally(() => child.kill('SIGTERM'));
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, read, stderr })));
}

describe.each(DATA_DIR_NAMES)('a DATA_DIR $label', ({ make }) => {
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;

  beforeEach(() => {
    temp = makeTempDir('data-dir-names');
    dataDir = make(temp.dir);
  });
  afterEach(() => {
    temp.remove();
  });

  test('when the store CLI is given it as --dbpath, then it stores there and stops cleanly', async () => {
    // Act
    const run = await runStoreCli(['--dbpath', dataDir, '--socket', path.join(temp.dir, 'store.sock')]);

    // Assert
    expect(run).toMatchObject({ code: 0, read: { _id: 1, name: 'probe' } });
    expectStoreFilesIn(dataDir);
  });

  test('when the seed CLI writes to it, then the candidates are stored there', async () => {
    // Arrange
    const { io, text } = seedIo();

    // Act
    const code = await runSeedCli(['--candidates', '3'], io, loadConfig({ DATA_DIR: dataDir }));

    // Assert
    expect(text()).toContain('Wrote 3 candidates');
    expect(code).toBe(0);
    expectStoreFilesIn(dataDir);
  });

  test('when the keys CLI creates a key on it, then the key is stored and listed there', async () => {
    // Arrange
    const created = captured();
    const listed = captured();

    // Act
    const createCode = await runKeysCli(
      ['create', '--name', 'named directory', '--permissions', 'ADMIN'],
      created.output,
      {
        DATA_DIR: dataDir,
      },
    );
    const listCode = await runKeysCli(['list'], listed.output, { DATA_DIR: dataDir });

    // Assert
    expect({ createCode, listCode }).toEqual({ createCode: 0, listCode: 0 });
    expect(created.out).toEqual([expect.stringMatching(/^cdk_/)]);
    expect(listed.out.join('\n')).toContain('named directory');
    expectStoreFilesIn(dataDir);
  });

  test('when the import CLI loads a file into it, then the candidate is stored there', async () => {
    // Arrange: the indexes and reference data the service writes at every start.
    const store = await openStore(loadConfig({ DATA_DIR: dataDir }), { embedded: { run: 'in-process' } });
    await ensureIndexes(store.database.db);
    await loadReferenceData(store.database.db);
    await store.close();
    const file = path.join(temp.dir, 'candidates.ndjson');
    fs.writeFileSync(file, `${CANDIDATE_LINE}\n`);
    const { output, out, err } = captured();
    const io = { stdin: process.stdin, stderr: process.stderr } as ImportIo;

    // Act
    const code = await runImportCli([file], output, { DATA_DIR: dataDir }, undefined, io);

    // Assert
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out[0]).toMatch(/^Imported: 1 inserted, 0 updated, 0 unchanged, 0 refused/);
    expectStoreFilesIn(dataDir);
  });
});

describe('a DATA_DIR that is a file', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let file: string;
  const reason = () => `data directory ${file} is a file, not a directory`;

  beforeEach(() => {
    temp = makeTempDir('data-dir-file');
    file = path.join(temp.dir, 'cd.data');
    fs.writeFileSync(file, 'not a directory\n');
  });
  afterEach(() => {
    expect(fs.readFileSync(file, 'utf8')).toBe('not a directory\n');
    temp.remove();
  });

  test('when the service is started on it, then the start is refused with a message naming the path and the reason', async () => {
    const config = loadConfig({ DATA_DIR: file, PORT: '0', LOG_LEVEL: 'silent' });

    await expect(createApp(config, createLogger(config))).rejects.toThrow(reason());
  });

  test('when the store CLI is given it as --dbpath, then it exits with 1, naming the path and the reason', async () => {
    const run = await runStoreCli(['--dbpath', file, '--socket', path.join(temp.dir, 'store.sock')]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(reason());
  });

  test('when seed, keys or import are run on it, then each exits with its failure code, naming the path and the reason', async () => {
    // Arrange
    const seed = seedIo();
    const keys = captured();
    const imported = captured();
    const io = { stdin: process.stdin, stderr: process.stderr } as ImportIo;
    fs.writeFileSync(path.join(temp.dir, 'one.ndjson'), `${CANDIDATE_LINE}\n`);

    // Act
    const codes = {
      seed: await runSeedCli(['--candidates', '1'], seed.io, loadConfig({ DATA_DIR: file })),
      keys: await runKeysCli(['list'], keys.output, { DATA_DIR: file }),
      import: await runImportCli(
        [path.join(temp.dir, 'one.ndjson')],
        imported.output,
        { DATA_DIR: file },
        undefined,
        io,
      ),
    };

    // Assert
    expect(codes).toEqual({ seed: 1, keys: 1, import: 3 });
    expect(seed.text()).toContain(`error: ${reason()}`);
    expect(keys.err).toEqual([expect.stringContaining(`keys: ${reason()}`)]);
    expect(imported.err).toEqual([expect.stringContaining(`import: ${reason()}`)]);
  });
});
