import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { open, type Database, type RootDatabase, type Transaction } from 'lmdb';
import { ENVIRONMENT_OPTIONS } from './secure-space';
import type { SnapshotCopyData, SnapshotCopyReply, SnapshotCopyRequest } from './snapshot-copy';

/**
 * The thread of a snapshot copy (snapshot-copy.ts): opens the store's `data.mdb` (the same LMDB
 * environment the store's thread has open: lmdb shares it between the threads of a process) and
 * the copy, begins its read transaction when asked (while the store holds its writes), then
 * copies every entry of that snapshot, away from the thread that answers commands.
 */

const BINARY = { keyEncoding: 'binary', encoding: 'binary' } as const;
/** Bytes of entries written to the copy between two of its fdatasyncs. */
const SYNC_EVERY_BYTES = 32 * 2 ** 20;
/** Entries per transaction of the copy. */
const ENTRIES_PER_TRANSACTION = 20_000;

function reply(message: SnapshotCopyReply): void {
  parentPort!.postMessage(message);
}

function environment(directory: string, noSync: boolean): RootDatabase {
  return open({ path: directory, noSubdir: false, maxDbs: 5, mapSize: 64 * 1024 ** 3, noSync, ...ENVIRONMENT_OPTIONS });
}

async function run(): Promise<void> {
  const { source, target, spaces } = workerData as SnapshotCopyData;
  const store = environment(source, false);
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  // Synced in steps and whole at the end (a copy cut short is thrown away, never used).
  const copy = environment(target, true);
  let snapshot: Transaction | undefined;
  let copyOpen = true;
  try {
    const from = spaces.map((name) => ({ name, db: store.openDB<Buffer, Buffer>({ name, ...BINARY }) }));
    reply({ type: 'opened' });
    await new Promise<void>((resolve) =>
      parentPort!.once('message', (request: SnapshotCopyRequest) => {
        if (request.type === 'snapshot') resolve();
      }),
    );
    snapshot = store.useReadTransaction();
    reply({ type: 'snapshot' });
    // Only now: until the snapshot is open the store holds its writes for this thread, which must
    // not wait for the CPU behind everything else. Linux gives each thread its own nice value
    // (setpriority on the calling thread), so the copy takes the CPU the store's thread and the
    // service leave; elsewhere it would be the whole process's, which must keep its own.
    if (process.platform === 'linux') os.setPriority(os.constants.priority.PRIORITY_LOW);
    const file = path.join(target, 'data.mdb');
    let unsynced = 0;
    for (const { name, db } of from) {
      const into = copy.openDB<Buffer, Buffer>({ name, ...BINARY });
      let start: Buffer | undefined;
      do {
        let written = 0;
        start = copy.transactionSync(() => copyEntries(db, into, snapshot!, start, (bytes) => (written += bytes)));
        unsynced += written;
        if (unsynced >= SYNC_EVERY_BYTES) {
          // Flushed as it goes: the disk never has the whole copy to write at once beside the
          // store's own fsyncs (its commits).
          syncData(file);
          unsynced = 0;
        }
      } while (start !== undefined);
    }
    snapshot.done();
    snapshot = undefined;
    copyOpen = false;
    await copy.close();
    fs.rmSync(path.join(target, 'lock.mdb'), { force: true });
    fs.chmodSync(file, 0o600);
    syncData(file, true);
    reply({ type: 'copied', bytes: fs.statSync(file).size });
  } catch (error) {
    reply({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  } finally {
    snapshot?.done();
    // Closing an environment twice ends the process (the binding's fatal error).
    if (copyOpen) await copy.close();
    await store.close();
  }
}

/**
 * Copies the entries of `from` from `start` on, in key order, at most ENTRIES_PER_TRANSACTION;
 * returns the key to go on from, or undefined when every entry is copied.
 */
function copyEntries(
  from: Database<Buffer, Buffer>,
  into: Database<Buffer, Buffer>,
  snapshot: Transaction,
  start: Buffer | undefined,
  wrote: (bytes: number) => void,
): Buffer | undefined {
  let copied = 0;
  for (const { key, value } of from.getRange({ ...(start ? { start } : {}), transaction: snapshot })) {
    // A copy: the key's bytes may be the binding's buffer, reused by the next read.
    if (copied === ENTRIES_PER_TRANSACTION) return Buffer.from(key);
    into.putSync(key, value, { append: true });
    wrote(key.length + value.length);
    copied++;
  }
  return undefined;
}

function syncData(file: string, whole = false): void {
  const fd = fs.openSync(file, 'r+');
  try {
    if (whole) fs.fsyncSync(fd);
    else fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

void run();
