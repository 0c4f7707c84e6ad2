import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DataDirectoryInUseError, runningStore, startEmbeddedStore, type EmbeddedStore } from '../src/index';
import { makeTempDir } from './helpers';

/**
 * `store.lock` holds the directory only while the process that wrote it lives: its pid, that
 * process's start time and the boot it started in. A lock naming a live process of another
 * program (PID 1 after a container restart, a pid reused) is stale and taken over; one naming
 * its live writer refuses the open with DataDirectoryInUseError. An earlier release's lock (the
 * pid alone) is stale when the process with that pid started after the lock was written.
 */
const PROC = fs.existsSync('/proc/self/stat') && fs.existsSync('/proc/sys/kernel/random/boot_id');
if (!PROC)
  console.warn('store-lock.test.ts: skipped: no /proc (not Linux), where a lock names its process by pid alone');
const onLinux = PROC ? test : test.skip;

/** Clock ticks since boot when `pid` started (field 22 of /proc/<pid>/stat). */
function startOf(pid: number): string {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .at(22 - 3)!;
}

const bootId = (): string => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

describe('the lock of a data directory', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStore | undefined;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    temp = makeTempDir('store-lock');
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    for (const child of children.splice(0)) child.kill('SIGKILL');
    temp.remove();
  });

  const lockPath = () => path.join(temp.dir, 'store.lock');
  const open = () => startEmbeddedStore({ dbPath: temp.dir, socketPath: path.join(temp.dir, 'store.sock') });

  /** A live process that is not a store (another program that got a pid a store once had). */
  function otherProgram(): number {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(child);
    return child.pid!;
  }

  onLinux(
    'when the lock names PID 1 with the start time of a store in an earlier container, then the store takes it over',
    async () => {
      // Arrange: written by a store that ran as PID 1 of a container, killed, and the container restarted.
      const earlierStart = String(Number(startOf(1)) + 12_345);
      fs.writeFileSync(lockPath(), `1 ${earlierStart} ${bootId()}\n`);

      // Act
      store = await open();

      // Assert
      expect(fs.readFileSync(lockPath(), 'utf8')).toBe(`${process.pid} ${startOf(process.pid)} ${bootId()}\n`);
      expect(runningStore(temp.dir)?.pid).toBe(process.pid);
    },
  );

  onLinux('when the lock names a pid that another program now has, then the store takes it over', async () => {
    // Arrange
    const pid = otherProgram();
    fs.writeFileSync(lockPath(), `${pid} ${Number(startOf(pid)) - 1} ${bootId()}\n`);

    // Act
    store = await open();

    // Assert
    expect(fs.readFileSync(lockPath(), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
  });

  onLinux(
    'when the lock names a live process that wrote it in an earlier boot, then the store takes it over',
    async () => {
      // Arrange: the same pid and start time (early boot is deterministic), another boot.
      const pid = otherProgram();
      fs.writeFileSync(lockPath(), `${pid} ${startOf(pid)} 00000000-0000-4000-8000-000000000000\n`);

      // Act
      store = await open();

      // Assert
      expect(fs.readFileSync(lockPath(), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    },
  );

  onLinux(
    'when the lock names the live process that wrote it, then the open is refused naming that process',
    async () => {
      // Arrange
      const pid = otherProgram();
      const lock = `${pid} ${startOf(pid)} ${bootId()}\n`;
      fs.writeFileSync(lockPath(), lock);

      // Act
      const opening = open();

      // Assert
      await expect(opening).rejects.toBeInstanceOf(DataDirectoryInUseError);
      await expect(opening).rejects.toMatchObject({
        pid,
        message: `data directory ${temp.dir} is in use by process ${pid}`,
      });
      expect(fs.readFileSync(lockPath(), 'utf8')).toBe(lock);
      expect(fs.readdirSync(temp.dir)).toEqual(['store.lock']);
    },
  );

  onLinux(
    "when an earlier release's lock (a pid alone) names PID 1, which started after the lock was written, then the store takes it over and CLIs see no running store",
    async () => {
      // Arrange: the lock and the address a killed store of the earlier release left, dated before PID 1 started.
      fs.writeFileSync(lockPath(), '1');
      fs.writeFileSync(path.join(temp.dir, 'store.uri'), 'mongodb://%2Ftmp%2Fgone.sock/?directConnection=true');
      const longAgo = new Date('2001-01-01T00:00:00Z');
      fs.utimesSync(lockPath(), longAgo, longAgo);

      // Act
      const seenBefore = runningStore(temp.dir);
      store = await open();

      // Assert
      expect(seenBefore).toBeUndefined();
      expect(fs.readFileSync(lockPath(), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    },
  );

  onLinux(
    "when an earlier release's lock (a pid alone) names a live process that started before it was written, then the open is refused",
    async () => {
      // Arrange
      const pid = otherProgram();
      await new Promise((resolve) => setTimeout(resolve, 50));
      fs.writeFileSync(lockPath(), String(pid));

      // Act
      const opening = open();

      // Assert
      await expect(opening).rejects.toMatchObject({ name: 'DataDirectoryInUseError', pid });
    },
  );

  onLinux(
    'when the lock is stale but another store is taking it over at that moment, then the open is refused naming that store',
    async () => {
      // Arrange: the takeover file names its live writer; the lock beside it is stale.
      const pid = otherProgram();
      fs.writeFileSync(lockPath(), `1 ${Number(startOf(1)) + 1} ${bootId()}\n`);
      fs.writeFileSync(path.join(temp.dir, 'store.lock.takeover'), `${pid} ${startOf(pid)} ${bootId()}\n`);

      // Act
      const opening = open();

      // Assert
      await expect(opening).rejects.toMatchObject({ name: 'DataDirectoryInUseError', pid });
    },
  );

  onLinux(
    'when a store died while it took a stale lock over, then the next store removes its takeover file and takes the lock',
    async () => {
      // Arrange
      fs.writeFileSync(lockPath(), `1 ${Number(startOf(1)) + 1} ${bootId()}\n`);
      fs.writeFileSync(path.join(temp.dir, 'store.lock.takeover'), `1 ${Number(startOf(1)) + 2} ${bootId()}\n`);

      // Act
      store = await open();

      // Assert
      expect(fs.readFileSync(lockPath(), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      expect(fs.existsSync(path.join(temp.dir, 'store.lock.takeover'))).toBe(false);
    },
  );
});
