import fs from 'node:fs';
import path from 'node:path';
import type { StoreLog } from '../store-log';
import { isStoreFile, isStoreOrEarlierReleaseFile } from './store-files';

/** Files of a data directory: the owner alone reads and writes them, whatever the umask. */
export const DATA_FILE_MODE = 0o600;
/** Folders of a data directory: the owner alone lists and enters them. */
export const DATA_FOLDER_MODE = 0o700;

/**
 * A data directory the store cannot or will not use: not a directory, not creatable, not
 * writable, on a read-only filesystem, owned by another user, or open to other users' writes.
 * The message names the path and the reason (and, where there is one, the remedy).
 */
export class DataDirectoryRefusedError extends Error {
  constructor(
    /** The data directory, resolved to an absolute path. */
    readonly dataDir: string,
    readonly reason: string,
  ) {
    super(`data directory ${dataDir} ${reason}`);
    this.name = 'DataDirectoryRefusedError';
  }
}

/** An entry a mounted filesystem's root holds (ext2/3/4), which says nothing about who else uses the directory. */
const FILESYSTEM_ENTRIES = new Set(['lost+found']);

const modeText = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** The closest ancestor of `directory` that exists (the one a mkdir fails in). */
function existingAncestor(directory: string): string {
  let current = path.dirname(directory);
  while (!fs.existsSync(current) && path.dirname(current) !== current) current = path.dirname(current);
  return current;
}

/** Creates `directory` (and its missing parents) mode 0700, or says why it cannot be. */
function create(directory: string): void {
  const parent = existingAncestor(directory);
  try {
    // One level at a time: a recursive mkdir reports ENOENT where the filesystem said EROFS.
    let current = parent;
    for (const name of path.relative(parent, directory).split(path.sep)) {
      current = path.join(current, name);
      try {
        fs.mkdirSync(current, { mode: DATA_FOLDER_MODE });
      } catch (error) {
        // Made meanwhile by another process (two stores starting at once): a directory is all it takes.
        if (codeOf(error) !== 'EEXIST' || !fs.statSync(current).isDirectory()) throw error;
      }
    }
  } catch (error) {
    const code = codeOf(error);
    const uid = process.getuid?.();
    const reason =
      code === 'EROFS'
        ? `cannot be created: ${parent} is on a read-only filesystem (EROFS)`
        : code === 'EACCES' || code === 'EPERM'
          ? `cannot be created: ${parent} is not writable by uid ${uid} that runs the store (${code})`
          : code === 'ENOTDIR'
            ? `cannot be created: ${parent} is not a directory (ENOTDIR)`
            : code === 'ENOSPC'
              ? `cannot be created: no space left on the device of ${parent} (ENOSPC)`
              : `cannot be created: ${(error as Error).message}`;
    throw new DataDirectoryRefusedError(directory, reason);
  }
}

/**
 * The entry at `file` (`lstat`: a symbolic link itself; `stat`: what it points to); undefined
 * when there is none (or a parent is a file: mkdir then says so).
 */
function statOf(file: string, how: 'lstat' | 'stat'): fs.Stats | undefined {
  try {
    return how === 'lstat' ? fs.lstatSync(file) : fs.statSync(file);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    const uid = process.getuid?.();
    throw new DataDirectoryRefusedError(
      file,
      code === 'EACCES'
        ? `cannot be reached: a directory above it is not searchable by uid ${uid} that runs the store (EACCES)`
        : `cannot be read: ${(error as Error).message}`,
    );
  }
}

/** What `directory` is when it exists but is no directory (a file, a socket, a dangling symbolic link). */
function notADirectory(directory: string, entry: fs.Stats): string {
  if (entry.isSymbolicLink()) {
    const target = fs.readlinkSync(directory);
    return `is a symbolic link to ${target}, which does not exist: create that directory, or point DATA_DIR elsewhere`;
  }
  return `is ${entry.isFile() ? 'a file' : 'not a directory'}, not a directory: choose a directory (it is created if missing)`;
}

/**
 * Makes `directory` fit to hold a store, before any file is written in it, and refuses it with a
 * DataDirectoryRefusedError naming the path and the reason when it cannot be:
 *
 * - missing: created mode 0700, with its missing parents;
 * - a file, a dangling symbolic link, not creatable, not writable, on a read-only filesystem, or
 *   owned by another user (who could read the stored identities, and whom this process cannot
 *   narrow it against): refused;
 * - open to other users: narrowed to 0700 when it holds nothing but the store's own files (a
 *   directory the operator gave the store); one that holds other files (`.`, `$HOME`) is the
 *   operator's, and its mode is left as it is: the store's files in it are 0600, so others may
 *   see their names but not read them. It is refused when others may write in it: they could
 *   replace the store's files.
 *
 * The store keeps to its own files: one it did not write (a script beside it, a mount's
 * lost+found) is never chmod'ed, moved or removed. Its own files found open to others (written
 * by an earlier version, or copied in) are narrowed to 0600, with a warning.
 */
export function prepareDataDirectory(directory: string, log: StoreLog): void {
  const absolute = path.resolve(directory);
  const entry = statOf(absolute, 'lstat');
  if (entry === undefined) create(absolute);
  const stat = statOf(absolute, 'stat');
  if (stat === undefined || !stat.isDirectory()) {
    throw new DataDirectoryRefusedError(absolute, notADirectory(absolute, entry ?? fs.lstatSync(absolute)));
  }
  const uid = process.getuid?.();
  if (uid === undefined) return; // no POSIX owners (Windows): nothing to check
  if (stat.uid !== uid) {
    throw new DataDirectoryRefusedError(
      absolute,
      `is owned by uid ${stat.uid}, not by uid ${uid} that runs the store: refusing to store data where another user can read or change it (chown it to uid ${uid}, or choose another directory)`,
    );
  }
  try {
    fs.accessSync(absolute, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    const code = codeOf(error);
    throw new DataDirectoryRefusedError(
      absolute,
      code === 'EROFS'
        ? 'is on a read-only filesystem (EROFS): the store writes every change to it; mount it read-write, or choose another directory'
        : `is not readable, writable and searchable by uid ${uid} that runs the store (mode ${modeText(stat.mode)}, ${code}): chmod u+rwx it, or choose another directory`,
    );
  }
  const names = fs.readdirSync(absolute);
  const foreign = names.filter((name) => !isStoreOrEarlierReleaseFile(name) && !FILESYSTEM_ENTRIES.has(name));
  if ((stat.mode & 0o077) !== 0) {
    if (foreign.length === 0) {
      fs.chmodSync(absolute, DATA_FOLDER_MODE);
      log('warn', 'data directory was open to other users: narrowed to 0700', {
        directory: absolute,
        mode: (stat.mode & 0o777).toString(8),
      });
    } else if ((stat.mode & 0o022) !== 0) {
      throw new DataDirectoryRefusedError(
        absolute,
        `is writable by other users (mode ${modeText(stat.mode)}) and holds files the store did not write (${foreign.length}, e.g. ${foreign[0]}), so it is not narrowed: others could replace the store's files. Give the store a directory of its own, or chmod go-w it`,
      );
    } else {
      log(
        'warn',
        "data directory holds files the store did not write and other users may list it: its mode is left as it is (the store's own files are 0600)",
        { directory: absolute, mode: (stat.mode & 0o777).toString(8) },
      );
    }
  }
  for (const name of names) {
    if (!isStoreFile(name)) continue;
    const file = path.join(absolute, name);
    const fileStat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (fileStat === undefined || fileStat.isSymbolicLink() || fileStat.isSocket()) continue;
    if (fileStat.uid !== uid || (fileStat.mode & 0o077) === 0) continue;
    fs.chmodSync(file, fileStat.isDirectory() ? DATA_FOLDER_MODE : DATA_FILE_MODE);
    log('warn', 'file of the data directory was open to other users: narrowed', { file: name });
  }
}
