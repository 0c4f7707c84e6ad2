import fs from 'node:fs';
import path from 'node:path';
import { STORE_LOCK_FILE, STORE_LOCK_TAKEOVER_FILE } from './store-files';

/**
 * One store per data directory: a second store on the same files would corrupt them.
 *
 * `store.lock` names the process holding the directory by its pid, the time that process started
 * (field 22 of /proc/<pid>/stat, in clock ticks since boot) and the boot it started in
 * (/proc/sys/kernel/random/boot_id): `<pid> <start> <boot>`. A pid alone does not say which
 * process wrote the lock: after a `kill -9` and a container restart, or once pids wrap around,
 * the same pid names another program (PID 1 of the new container, a shell), and taking it for
 * the store would block the directory for good. The lock is held only while a process with that
 * pid, started at that time in this boot, is alive; any other lock is stale and is taken over.
 *
 * Node has no OS lock (flock, fcntl) in its core, and a native module for one is not worth its
 * weight here. Where /proc is missing (macOS), a live pid is taken for the holder, as before.
 */

/** How a process is told from another that later got the same pid. */
interface ProcessIdentity {
  readonly pid: number;
  /** Clock ticks from boot to the process's start; undefined without /proc. */
  readonly start: string | undefined;
  /** The boot the process started in; undefined without /proc. */
  readonly boot: string | undefined;
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

function readOrUndefined(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The id of this boot of the kernel; undefined without /proc. */
function bootId(): string | undefined {
  return readOrUndefined('/proc/sys/kernel/random/boot_id')?.trim();
}

/**
 * When process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined
 * when it does not exist or /proc is missing. The command name (field 2) may hold spaces and
 * parentheses, so the fields are counted from its closing parenthesis.
 */
function startTicks(pid: number): string | undefined {
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .at(22 - 3);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const PROC_AVAILABLE = fs.existsSync('/proc/self/stat');

function identityOf(pid: number): ProcessIdentity {
  return { pid, start: startTicks(pid), boot: bootId() };
}

let own: string | undefined;

/** The lock's content for this process: `<pid> <start> <boot>`, or the pid alone without /proc. */
function ownLockText(): string {
  own ??= (() => {
    const { pid, start, boot } = identityOf(process.pid);
    return start === undefined || boot === undefined ? `${pid}\n` : `${pid} ${start} ${boot}\n`;
  })();
  return own;
}

/**
 * Whether the process a lock's content names still holds it: its pid is alive, and (with /proc)
 * it is the process that wrote it. A lock of an earlier release holds the pid alone: its process
 * is then the writer only if it started before the lock was written (`writtenAtMs`).
 */
function holds(text: string, writtenAtMs: number): number | undefined {
  const [pidText, start, boot] = text.trim().split(/\s+/);
  const pid = /^\d+$/.test(pidText ?? '') ? Number(pidText) : NaN;
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  if (!PROC_AVAILABLE) return pid;
  const now = identityOf(pid);
  if (now.start === undefined) return undefined; // exited since kill(0)
  if (start !== undefined && boot !== undefined) return start === now.start && boot === now.boot ? pid : undefined;
  return startedAtMs(now.start) <= writtenAtMs ? pid : undefined;
}

/** Clock ticks of /proc/<pid>/stat per second: USER_HZ, 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** When a process that started `ticks` after boot started, in ms since the epoch (to the second: btime's precision). */
function startedAtMs(ticks: string): number {
  const btime = /^btime (\d+)$/m.exec(readOrUndefined('/proc/stat') ?? '');
  if (!btime) return Number.POSITIVE_INFINITY;
  // btime is rounded down to the second: one second of margin keeps a lock's writer its writer.
  return (Number(btime[1]) + Number(ticks) / TICKS_PER_SECOND - 1) * 1000;
}

/** The live process holding the lock file `file`, or undefined (none, or a stale lock). */
function holderOfLockFile(file: string): { pid: number | undefined; text: string } | undefined {
  let text: string;
  let writtenAtMs: number;
  try {
    text = fs.readFileSync(file, 'utf8');
    writtenAtMs = fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
  return { pid: holds(text, writtenAtMs), text };
}

/** The live process holding `directory` (its lock file names it, and it wrote it), or undefined. */
export function holderOf(directory: string): number | undefined {
  return holderOfLockFile(path.join(directory, STORE_LOCK_FILE))?.pid;
}

/** How often a lock that changes hands while it is read is read again before giving up. */
const ATTEMPTS = 5;

/**
 * Takes the lock of `directory` for this process: created with O_EXCL; a stale one is replaced.
 * Rejects with DataDirectoryInUseError when a live process holds it (this process included:
 * another store of it).
 */
export function acquireStoreLock(directory: string, mode: number): void {
  const lockPath = path.join(directory, STORE_LOCK_FILE);
  const mine = ownLockText();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      fs.writeFileSync(lockPath, mine, { flag: 'wx', mode });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = holderOfLockFile(lockPath);
    if (held === undefined) continue; // released while it was read
    if (held.pid !== undefined) throw new DataDirectoryInUseError(directory, held.pid);
    if (takeOver(directory, lockPath, held.text, mine, mode)) return;
  }
  throw new Error(`data directory ${directory}: its lock ${STORE_LOCK_FILE} kept changing hands; try again`);
}

/**
 * Replaces the stale lock whose content is `stale` with this process's, under the takeover
 * file: of two stores that found the same stale lock, one replaces it and the other then finds
 * the new lock held. False when the lock changed meanwhile (look again).
 */
function takeOver(directory: string, lockPath: string, stale: string, mine: string, mode: number): boolean {
  const guard = path.join(directory, STORE_LOCK_TAKEOVER_FILE);
  try {
    fs.writeFileSync(guard, mine, { flag: 'wx', mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const taking = holderOfLockFile(guard);
    if (taking?.pid !== undefined) throw new DataDirectoryInUseError(directory, taking.pid);
    // Left by a process that died while it took the lock over.
    fs.rmSync(guard, { force: true });
    return false;
  }
  try {
    if (readOrUndefined(lockPath) !== stale) return false;
    fs.rmSync(lockPath, { force: true });
    try {
      fs.writeFileSync(lockPath, mine, { flag: 'wx', mode });
      return true;
    } catch (error) {
      // A store that found no lock at all took it in between: the next look finds it held.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

/** Removes the lock of `directory` if this process holds it (never another's). */
export function releaseStoreLock(directory: string): void {
  const lockPath = path.join(directory, STORE_LOCK_FILE);
  if (readOrUndefined(lockPath) === ownLockText()) fs.rmSync(lockPath, { force: true });
}
