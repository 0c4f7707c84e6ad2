import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DataDirectoryRefusedError, startEmbeddedStore, type EmbeddedStore } from '../src/index';
import { makeTempDir } from './helpers';

/**
 * A data directory the store cannot use is refused before anything is written, with a message
 * that names the path and the reason: a file, a path under a file, a dangling symbolic link, a
 * directory this user may not create or write, a read-only filesystem. The cases that need
 * another user or a read-only mount run the store in a child process (support/open-data-directory.ts):
 * as uid 65534 when the tests run as root (root writes anywhere), and in a user and mount
 * namespace of its own (`unshare -rm`) with a read-only tmpfs.
 */
const SCRIPT = path.join(__dirname, 'support', 'open-data-directory.ts');
const TSX = require.resolve('tsx');
const asRoot = process.getuid?.() === 0;
/** Whom the permission cases run as: nobody when the tests run as root, this user otherwise. */
const OTHER_USER = 65534;

function openInChild(
  dbPath: string,
  options: SpawnSyncOptions = {},
  wrapper: string[] = [],
): { status: number | null; stdout: string; stderr: string } {
  const command = [...wrapper, process.execPath, '--import', TSX, SCRIPT, dbPath];
  const child = spawnSync(command[0], command.slice(1), { encoding: 'utf8', timeout: 60_000, ...options });
  return { status: child.status, stdout: String(child.stdout), stderr: String(child.stderr) };
}

/** Runs the child as the other user when this is root: a user root's permissions do not bypass. */
const asUnprivileged: SpawnSyncOptions = asRoot ? { uid: OTHER_USER, gid: OTHER_USER } : {};

/** `unshare -rm` works here (a user namespace in which this user may mount a tmpfs). */
const canUnshare =
  spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o ro tmpfs /tmp'], { stdio: 'ignore' }).status === 0;
if (!canUnshare)
  console.warn(
    'data-directory-refusals.test.ts: the read-only filesystem cases are skipped: `unshare -rm` with a tmpfs mount is not available here (util-linux, user namespaces)',
  );

describe('data directories the store refuses', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStore | undefined;

  beforeEach(() => {
    temp = makeTempDir('data-refused');
    // Others may enter it: the permission cases run as another user.
    fs.chmodSync(temp.dir, 0o755);
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    temp.remove();
  });

  async function refusal(dbPath: string): Promise<DataDirectoryRefusedError> {
    const opening = startEmbeddedStore({ dbPath, socketPath: path.join(temp.dir, 's.sock') });
    await expect(opening).rejects.toBeInstanceOf(DataDirectoryRefusedError);
    return (await opening.catch((error: unknown) => error)) as DataDirectoryRefusedError;
  }

  test('when the data directory is a file, then the store refuses it, naming the path, and leaves the file as it was', async () => {
    // Arrange
    const file = path.join(temp.dir, 'cd.data');
    fs.writeFileSync(file, 'notes\n', { mode: 0o644 });

    // Act
    const error = await refusal(file);

    // Assert
    expect(error.message).toBe(
      `data directory ${file} is a file, not a directory: choose a directory (it is created if missing)`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('notes\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
  });

  test('when the data directory would be under a file, then the store refuses it, naming the file', async () => {
    // Arrange
    const file = path.join(temp.dir, 'archive.tar');
    fs.writeFileSync(file, '');
    const dbPath = path.join(file, 'data');

    // Act
    const error = await refusal(dbPath);

    // Assert
    expect(error.message).toBe(`data directory ${dbPath} cannot be created: ${file} is not a directory (ENOTDIR)`);
  });

  test('when the data directory is a symbolic link to nothing, then the store refuses it, naming the missing target', async () => {
    // Arrange
    const link = path.join(temp.dir, 'current.data');
    const target = path.join(temp.dir, 'volume', 'data');
    fs.symlinkSync(target, link);

    // Act
    const error = await refusal(link);

    // Assert
    expect(error.message).toContain(`data directory ${link} is a symbolic link to ${target}, which does not exist`);
    expect(fs.existsSync(target)).toBe(false);
  });

  test('when the data directory cannot be created for want of permission, then the store refuses it, naming the parent and the user', () => {
    // Arrange: a parent the store's user may enter but not write.
    const parent = path.join(temp.dir, 'srv');
    fs.mkdirSync(parent, { mode: 0o755 });
    fs.chmodSync(parent, 0o555);
    const dbPath = path.join(parent, 'cd.data');

    // Act
    const run = openInChild(dbPath, asUnprivileged);

    // Assert
    const uid = asRoot ? OTHER_USER : process.getuid?.();
    expect(run).toMatchObject({ status: 1, stdout: '' });
    expect(run.stderr).toContain(
      `data directory ${dbPath} cannot be created: ${parent} is not writable by uid ${uid} that runs the store (EACCES)`,
    );
    expect(fs.readdirSync(parent)).toEqual([]);
  });

  test('when the data directory is its user’s but not writable, then the store refuses it, naming its mode', () => {
    // Arrange
    const dbPath = path.join(temp.dir, 'frozen.data');
    fs.mkdirSync(dbPath);
    if (asRoot) fs.chownSync(dbPath, OTHER_USER, OTHER_USER);
    fs.chmodSync(dbPath, 0o500);

    // Act
    const run = openInChild(dbPath, asUnprivileged);

    // Assert
    const uid = asRoot ? OTHER_USER : process.getuid?.();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `data directory ${dbPath} is not readable, writable and searchable by uid ${uid} that runs the store (mode 0500, EACCES)`,
    );
    expect(fs.readdirSync(dbPath)).toEqual([]);
    expect(fs.statSync(dbPath).mode & 0o777).toBe(0o500);
  });

  (canUnshare ? test : test.skip)(
    'when the data directory is on a read-only filesystem, then the store refuses it, saying so',
    () => {
      // Arrange: a read-only tmpfs mounted on it, in a mount namespace of the child's own.
      const dbPath = path.join(temp.dir, 'ro.data');
      fs.mkdirSync(dbPath);
      const mountReadOnly = [
        'unshare',
        '-rm',
        'sh',
        '-c',
        'mount -t tmpfs -o ro tmpfs "$1" && shift && exec "$@"',
        'sh',
        dbPath,
      ];

      // Act
      const run = openInChild(dbPath, {}, mountReadOnly);

      // Assert
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`data directory ${dbPath} is on a read-only filesystem (EROFS)`);
    },
  );

  (canUnshare ? test : test.skip)(
    'when the data directory is to be created on a read-only filesystem, then the store refuses it, naming the read-only parent',
    () => {
      // Arrange
      const mount = path.join(temp.dir, 'ro');
      fs.mkdirSync(mount);
      const dbPath = path.join(mount, 'cd.data');
      const mountReadOnly = [
        'unshare',
        '-rm',
        'sh',
        '-c',
        'mount -t tmpfs -o ro tmpfs "$1" && shift && exec "$@"',
        'sh',
        mount,
      ];

      // Act
      const run = openInChild(dbPath, {}, mountReadOnly);

      // Assert
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        `data directory ${dbPath} cannot be created: ${mount} is on a read-only filesystem (EROFS)`,
      );
    },
  );
});
