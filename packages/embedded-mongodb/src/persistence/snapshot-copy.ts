import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { open, type Database, type RootDatabase, type Transaction } from 'lmdb';
import { fsyncFile } from './record-file';
import { ENVIRONMENT_OPTIONS } from './secure-space';

/** How long one turn of a copy may hold the store's thread before it lets commands run. */
const TURN_MS = 8;
/** Entries copied between two looks at the clock. */
const ENTRIES_PER_LOOK = 128;

const BINARY = { keyEncoding: 'binary', encoding: 'binary' } as const;

/** A key space of the file being copied, by name, as the storage engine opens it. */
export interface NamedSpace {
  readonly name: string;
  readonly db: Database<Buffer, Buffer>;
}

/**
 * Copies the key spaces `spaces` of `source` as one read transaction (`snapshot`) sees them into a
 * new LMDB environment in the directory `target` (its `data.mdb`), a few milliseconds at a time
 * (the store answers commands in between), then fsyncs it. Only entries are copied, in key order,
 * so the copy is compact: no free page, nothing deleted before the snapshot. `target` must not
 * hold an environment yet. Resolves with the bytes of the new file.
 */
export async function copySnapshot(
  source: readonly NamedSpace[],
  snapshot: Transaction,
  target: string,
): Promise<number> {
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  const copy: RootDatabase = open({
    path: target,
    noSubdir: false,
    maxDbs: 5,
    mapSize: 64 * 1024 ** 3,
    // Synced once, whole, at the end (a copy cut short is thrown away, never used).
    noSync: true,
    ...ENVIRONMENT_OPTIONS,
  });
  try {
    for (const { name, db } of source) {
      const into = copy.openDB<Buffer, Buffer>({ name, ...BINARY });
      let start: Buffer | undefined;
      for (;;) {
        start = copyOneTurn(db, into, copy, snapshot, start);
        if (start === undefined) break;
        await nextTurn();
      }
    }
  } finally {
    await copy.close();
  }
  const file = path.join(target, 'data.mdb');
  fs.rmSync(path.join(target, 'lock.mdb'), { force: true });
  fs.chmodSync(file, 0o600);
  fsyncFile(file);
  return fs.statSync(file).size;
}

/**
 * Copies entries of `from` from `start` on, for one turn, in one transaction of the copy; returns
 * the key to go on from, or undefined when every entry is copied.
 */
function copyOneTurn(
  from: Database<Buffer, Buffer>,
  into: Database<Buffer, Buffer>,
  copy: RootDatabase,
  snapshot: Transaction,
  start: Buffer | undefined,
): Buffer | undefined {
  const began = performance.now();
  let next: Buffer | undefined;
  copy.transactionSync(() => {
    let copied = 0;
    for (const { key, value } of from.getRange({ ...(start ? { start } : {}), transaction: snapshot })) {
      into.putSync(key, value, { append: true });
      if (++copied % ENTRIES_PER_LOOK === 0 && performance.now() - began > TURN_MS) {
        // The smallest key after `key`: the walk goes on from there.
        next = Buffer.concat([key, ZERO]);
        break;
      }
    }
  });
  return next;
}

const ZERO = Buffer.alloc(1);
