import fs from 'node:fs';
import path from 'node:path';
import type { StoreLog } from '../store-log';
import { convertEarlierRelease, earlierReleaseFiles, removeEarlierReleaseFiles } from './earlier-release';
import { fsyncDirectory } from './record-file';
import { StorageEngine } from './storage-engine';

const LOCK = 'store.lock';
/** The storage engine's files in the data directory (LMDB's data file and its reader table). */
const ENGINE_FILES = ['data.mdb', 'lock.mdb'];
/** Where a conversion builds the engine's files before they are moved into place. */
const CONVERTING = 'converting';

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A store was asked to open a data directory that a live process holds (its lock file names
 * that process): the one error every way of opening a store (in this thread, a worker thread,
 * a child process) rejects with for it.
 */
export class DataDirectoryInUseError extends Error {
  constructor(
    /** The data directory, resolved to an absolute path. */
    readonly dataDir: string,
    /** The process holding it (this very process when another store of it holds it). */
    readonly pid: number,
  ) {
    super(`data directory ${dataDir} is in use by process ${pid}`);
    this.name = 'DataDirectoryInUseError';
  }
}

/** Files of a data directory: the owner alone reads and writes them, whatever the umask. */
export const DATA_FILE_MODE = 0o600;
/** Folders of a data directory: the owner alone lists and enters them. */
export const DATA_FOLDER_MODE = 0o700;

/**
 * A data directory that another user owns: its owner (or anyone who can write to it) could read
 * the stored documents or change them, so the store refuses it.
 */
export class DataDirectoryPermissionError extends Error {
  constructor(
    /** The data directory, resolved to an absolute path. */
    readonly dataDir: string,
    readonly reason: string,
  ) {
    super(`data directory ${dataDir} ${reason}`);
    this.name = 'DataDirectoryPermissionError';
  }
}

/**
 * Makes `directory` ours alone, before any file is written in it. Created 0700 (and its missing
 * parents). One owned by another user is refused: this process cannot narrow it, and its owner
 * reads whatever is stored there. One of ours open to group or others is narrowed to 0700, and
 * its files to 0600 (data written by an earlier version, or copied in), with a warning: the
 * operator chose the path, and narrowing it costs them nothing.
 */
function secureDirectory(directory: string, log: StoreLog): void {
  fs.mkdirSync(directory, { recursive: true, mode: DATA_FOLDER_MODE });
  const absolute = path.resolve(directory);
  const stat = fs.statSync(directory);
  if (!stat.isDirectory()) throw new DataDirectoryPermissionError(absolute, 'is not a directory');
  const uid = process.getuid?.();
  if (uid === undefined) return; // no POSIX owners (Windows): nothing to check
  if (stat.uid !== uid) {
    throw new DataDirectoryPermissionError(
      absolute,
      `is owned by uid ${stat.uid}, not by uid ${uid} that runs the store: refusing to store data where another user can read or change it (chown it to uid ${uid}, or choose another directory)`,
    );
  }
  if ((stat.mode & 0o077) !== 0) {
    fs.chmodSync(directory, DATA_FOLDER_MODE);
    log('warn', 'data directory was open to other users: narrowed to 0700', {
      directory: absolute,
      mode: (stat.mode & 0o777).toString(8),
    });
  }
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const file = path.join(directory, entry.name);
    const entryStat = fs.lstatSync(file);
    if (entryStat.isSymbolicLink() || entryStat.uid !== uid || (entryStat.mode & 0o077) === 0) continue;
    fs.chmodSync(file, entry.isDirectory() ? DATA_FOLDER_MODE : DATA_FILE_MODE);
    log('warn', 'file of the data directory was open to other users: narrowed', { file: entry.name });
  }
}

/** The live process holding `directory` (its lock file names it), or undefined. */
export function holderOf(directory: string): number | undefined {
  let owner: number;
  try {
    owner = Number.parseInt(fs.readFileSync(path.join(directory, LOCK), 'utf8'), 10);
  } catch {
    return undefined;
  }
  return Number.isInteger(owner) && isProcessAlive(owner) ? owner : undefined;
}

/** One process per data directory: a second store on the same files would corrupt them. */
function acquireLock(lockPath: string): void {
  try {
    fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx', mode: DATA_FILE_MODE });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const owner = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10);
  if (Number.isInteger(owner) && isProcessAlive(owner)) {
    throw new DataDirectoryInUseError(path.dirname(lockPath), owner);
  }
  // Left behind by a process that died without closing (kill -9): safe to take over.
  fs.writeFileSync(lockPath, String(process.pid), { mode: DATA_FILE_MODE });
}

/**
 * The on-disk state of a durable store: the storage engine's files (`data.mdb`, `lock.mdb`)
 * and `store.lock`, naming the process that holds the directory. Opening reads only the
 * catalog: it costs the same at any size. A directory written by an earlier release (a
 * snapshot and a journal) is converted once, first (earlier-release.ts).
 */
export class DataDirectory {
  private constructor(
    private readonly directory: string,
    readonly engine: StorageEngine,
  ) {}

  static async open(directory: string, log: StoreLog): Promise<DataDirectory> {
    secureDirectory(directory, log);
    const lockPath = path.join(directory, LOCK);
    acquireLock(lockPath);
    try {
      const hasEngine = fs.existsSync(path.join(directory, ENGINE_FILES[0]));
      if (earlierReleaseFiles(directory).length > 0) {
        // With the engine's file present, the conversion finished and only the clean-up was cut short.
        if (!hasEngine) await convert(directory, log);
        removeEarlierReleaseFiles(directory);
        fsyncDirectory(directory);
      }
      fs.rmSync(path.join(directory, CONVERTING), { recursive: true, force: true });
      const engine = StorageEngine.open(directory);
      for (const name of ENGINE_FILES) fs.chmodSync(path.join(directory, name), DATA_FILE_MODE);
      try {
        await engine.recover();
      } catch (error) {
        await engine.close();
        throw error;
      }
      return new DataDirectory(directory, engine);
    } catch (error) {
      fs.rmSync(lockPath, { force: true });
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.engine.close();
    fs.rmSync(path.join(this.directory, LOCK), { force: true });
  }
}

/**
 * Converts an earlier release's snapshot and journal into the engine's files: built aside in
 * `converting/`, fsync'ed, then moved into place with one rename. The old files are removed only
 * after that, so a conversion that fails or is cut short leaves them as they were.
 */
async function convert(directory: string, log: StoreLog): Promise<void> {
  const aside = path.join(directory, CONVERTING);
  fs.rmSync(aside, { recursive: true, force: true });
  fs.mkdirSync(aside, { mode: DATA_FOLDER_MODE });
  const started = Date.now();
  log('info', 'converting the data directory of an earlier release to the storage engine', { directory });
  const engine = StorageEngine.open(aside);
  let converted: ReturnType<typeof convertEarlierRelease>;
  try {
    converted = convertEarlierRelease(directory, engine, log);
  } catch (error) {
    await engine.close();
    fs.rmSync(aside, { recursive: true, force: true });
    throw error;
  }
  await engine.close();
  fs.chmodSync(path.join(aside, ENGINE_FILES[0]), DATA_FILE_MODE);
  fsyncDirectory(aside);
  fs.renameSync(path.join(aside, ENGINE_FILES[0]), path.join(directory, ENGINE_FILES[0]));
  fsyncDirectory(directory);
  fs.rmSync(aside, { recursive: true, force: true });
  log('info', 'converted the data directory of an earlier release', {
    directory,
    ...converted,
    ms: Date.now() - started,
  });
}
