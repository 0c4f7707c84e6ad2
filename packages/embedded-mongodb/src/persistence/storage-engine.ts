import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ABORT, open, type Database, type RootDatabase } from 'lmdb';
import type { EngineSpace } from './engine-space';
import { compactingCopy, ENVIRONMENT_OPTIONS, SECURE_FILE, SecureSpace } from './secure-space';
import { fsyncDirectory } from './record-file';
import { COMPACTING_FOLDER as COMPACTING } from './store-files';
import { SnapshotCopy } from './snapshot-copy';

/** The key spaces of `data.mdb` by name, as a backup copies them. */
const MAIN_SPACES = ['documents', 'entries', 'catalog', 'counts'] as const;

/** The key spaces of `data.mdb`, reopened after a compaction. */
interface MainFile {
  readonly env: RootDatabase;
  readonly documents: Database<Buffer, Buffer>;
  readonly entries: Database<Buffer, Buffer>;
  readonly catalog: Database<Buffer, Buffer>;
  readonly counts: Database<Buffer, Buffer>;
}

/** Which file a compaction rewrites: `data.mdb`, or the secure space's `secure.mdb`. */
export type EngineFile = 'main' | 'secure';

/**
 * The storage under the catalog: one LMDB environment (a memory-mapped B+tree with ACID
 * transactions) holding three key spaces. Documents and index entries live in the mapped file,
 * not on the JavaScript heap: opening a data directory reads nothing but the catalog, and the
 * page cache, not the store's heap, holds what reads touch.
 *
 * - `documents`: collection id (u32) + record number (u48) → the document's BSON, _id first.
 * - `entries`: index id (u32) + the key in an order-preserving encoding (key-string.ts) +
 *   record number (u48) → the key's values as BSON (for covered reads and error messages).
 * - `catalog`: the definitions of collections and indexes (see catalog.ts).
 * - `counts`: collection or index id (u32) → how many documents or entries it holds, kept in the
 *   transaction of every change to them: LMDB counts a range by walking it, and the planner
 *   asks for whole collections and indexes on every query.
 *
 * Collections created with `secureDelete` keep their documents and entries in a second file,
 * the secure space (secure-space.ts), written in the same transactions.
 *
 * Every write runs in `write`: one LMDB transaction, committed and fsync'ed before it returns
 * (LMDB writes the data pages, fdatasyncs, then writes the meta page synchronously), so a
 * command that wrote is durable before its reply is sent.
 */
export class StorageEngine implements EngineSpace {
  private main: MainFile;
  private secure: SecureSpace | undefined;
  /** A compaction or a backup's start in progress: no write may commit until it ends (see whenWritable). */
  private maintenance: Promise<unknown> | undefined;

  private constructor(
    private readonly directory: string,
    /** A memory store: its directory is removed at close, nothing is synced. */
    private readonly temporary: boolean,
  ) {
    this.main = openMainFile(directory, temporary);
    if (SecureSpace.existsIn(directory)) this.secureSpace();
  }

  get documents(): Database<Buffer, Buffer> {
    return this.main.documents;
  }

  get entries(): Database<Buffer, Buffer> {
    return this.main.entries;
  }

  get catalog(): Database<Buffer, Buffer> {
    return this.main.catalog;
  }

  private get counts(): Database<Buffer, Buffer> {
    return this.main.counts;
  }

  /** Write transactions open (nested ones joined) on this engine. */
  private depth = 0;
  /** Changes to counts in the open write transaction, stored once at its end. */
  private pendingCounts = new Map<number, number>();
  /** What to undo in memory if the open transaction is rolled back (see onRollback). */
  private readonly rollbacks: (() => void)[] = [];

  /** Opens (or creates) the environment in `directory`, files `data.mdb` and `lock.mdb`. */
  static open(directory: string): StorageEngine {
    fs.rmSync(path.join(directory, COMPACTING), { recursive: true, force: true });
    SecureSpace.removeLeftovers(directory);
    return new StorageEngine(directory, false);
  }

  /** An environment in a private temporary directory, removed at close, never synced (memory mode). */
  static temporary(): StorageEngine {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-store-'));
    return new StorageEngine(directory, true);
  }

  /** The secure space of this data directory, created on first use (a collection created with `secureDelete`). */
  secureSpace(): SecureSpace {
    this.secure ??= new SecureSpace(path.join(this.directory, SECURE_FILE), this, !this.temporary);
    return this.secure;
  }

  /** The secure space, when this data directory has one. */
  get secureSpaceIfAny(): SecureSpace | undefined {
    return this.secure;
  }

  /**
   * Finishes what a crash cut short: a compaction of the secure space that a commit asked for
   * and that did not end. Run once at open, before anything is served.
   */
  async recover(): Promise<void> {
    if (this.secure?.compactionDue) await this.secure.compact();
  }

  /**
   * Runs `work` in a write transaction and commits it durably; nested in another, it is part of
   * that one (for work that checks everything before it writes: it never fails half-way).
   * A commit that freed bytes of the secure space starts its compaction (see settled()).
   */
  write<T>(work: () => T): T {
    if (this.depth > 0) return work();
    if (this.maintenance !== undefined) throw new Error('a write was started while the storage engine is held');
    let result: T;
    try {
      result = this.main.env.transactionSync(() => {
        this.depth++;
        try {
          return this.inSecure(() => {
            const value = work();
            this.storeCounts();
            return value;
          });
        } finally {
          this.depth--;
          this.pendingCounts.clear();
        }
      });
    } catch (error) {
      this.rolledBack(0);
      throw error;
    } finally {
      this.rollbacks.length = 0;
    }
    const secure = this.secure;
    // Its failure reaches the command through settled().
    if (secure?.compactionDue) this.hold(() => secure.compact()).catch(() => undefined);
    return result;
  }

  /** `work` in a transaction of the secure space too, when there is one (nested: a child one). */
  private inSecure<T>(work: () => T, discard = false): T {
    return this.secure === undefined ? work() : this.secure.transaction(work, discard);
  }

  /** True while a compaction or a backup's start holds the engine: no write may commit. */
  get held(): boolean {
    return this.maintenance !== undefined;
  }

  /**
   * Resolves once no compaction or backup start holds the engine. A command that writes awaits
   * it and then commits in the same turn, so nothing commits while the engine is held.
   */
  async whenWritable(): Promise<void> {
    while (this.maintenance !== undefined) await this.maintenance.catch(() => undefined);
  }

  /**
   * Resolves when what holds the engine now has ended; rejects with its error. A command whose
   * commit started a compaction (an erasure) is answered after it: once answered, the bytes it
   * deleted are gone from the disk.
   */
  async settled(): Promise<void> {
    if (this.maintenance !== undefined) await this.maintenance;
  }

  /**
   * Holds the engine (no write commits) from now until `task`, run after what holds it already,
   * has ended. Resolves with the task's result.
   */
  hold<T>(task: () => Promise<T>): Promise<T> {
    const previous = this.maintenance;
    const held = (async () => {
      await Promise.resolve();
      if (previous !== undefined) await previous.catch(() => undefined);
      return task();
    })();
    const tracked = held.finally(() => {
      if (this.maintenance === tracked) this.maintenance = undefined;
    });
    // Settled by whoever awaits `held`; the tracked copy must not report the error again.
    tracked.catch(() => undefined);
    this.maintenance = tracked;
    return held;
  }

  /** Backups reading `data.mdb` now (see backupTo): its compaction waits for them. */
  private backups = 0;

  /**
   * A consistent copy of the engine's files into the new directory `target`, taken while the
   * store goes on: `data.mdb` as one read snapshot sees it, and the secure space's file at the
   * same moment (writes are held for as long as it takes to start both: the secure file is
   * copied whole then, by LMDB's compacting copy; `data.mdb` is copied from the snapshot
   * afterwards by a thread of its own, at the lowest priority, while this thread answers
   * commands). Both copies hold only live pages. `atSnapshot` runs at the moment of the snapshot
   * (nothing commits between it and the snapshot); its result comes back with the sizes of the
   * files written.
   */
  async backupTo<T>(
    target: string,
    atSnapshot: () => T,
  ): Promise<{ taken: T; files: { name: string; bytes: number }[] }> {
    this.backups++;
    let copy: SnapshotCopy | undefined;
    try {
      fs.mkdirSync(target, { recursive: true, mode: 0o700 });
      copy = await SnapshotCopy.start({ source: this.directory, target, spaces: MAIN_SPACES });
      const files: { name: string; bytes: number }[] = [];
      const started = copy;
      const taken = await this.hold(async () => {
        await started.snapshot();
        const result = atSnapshot();
        const secure = this.secure;
        if (secure !== undefined)
          files.push({ name: SECURE_FILE, bytes: await secure.copyTo(path.join(target, SECURE_FILE)) });
        return result;
      });
      const bytes = await copy.copied();
      return { taken, files: [{ name: 'data.mdb', bytes }, ...files] };
    } finally {
      await copy?.stop();
      this.backups--;
    }
  }

  /**
   * Rewrites `data.mdb` (or the secure space's file) with only its pages in use: LMDB's
   * compacting copy, fsync'ed, moved over the old file. Freed pages, and whatever deleted data
   * they held, are gone from the disk. Writes wait meanwhile (reads go on). Resolves with how
   * many bytes the file shrank by.
   */
  compact(file: EngineFile): Promise<number> {
    if (file === 'secure') {
      const secure = this.secure;
      return secure === undefined ? Promise.resolve(0) : this.hold(() => secure.compact());
    }
    if (this.backups > 0) return Promise.reject(new Error('a backup is reading the data file'));
    return this.hold(async () => {
      const dataFile = path.join(this.directory, 'data.mdb');
      const before = fs.statSync(dataFile).size;
      if (this.temporary) return 0;
      const aside = path.join(this.directory, COMPACTING);
      await compactingCopy(this.main.env, aside, true);
      await this.main.env.close();
      fs.renameSync(path.join(aside, 'data.mdb'), dataFile);
      fsyncDirectory(this.directory);
      fs.rmSync(aside, { recursive: true, force: true });
      this.main = openMainFile(this.directory, false);
      return Math.max(0, before - fs.statSync(dataFile).size);
    });
  }

  /**
   * `undo` runs if the transaction now open (or the child one) is rolled back: in-memory state
   * that followed a write (a multikey flag the catalog saved) goes back with it.
   */
  onRollback(undo: () => void): void {
    this.rollbacks.push(undo);
  }

  private rolledBack(mark: number): void {
    const undone = this.rollbacks.splice(mark);
    for (let i = undone.length - 1; i >= 0; i--) undone[i]();
  }

  /**
   * Like `write`, but nested in another it is a child transaction: when `work` throws, its own
   * changes are rolled back and the outer transaction goes on (an index build that meets a
   * duplicate key half-way).
   */
  atomic<T>(work: () => T): T {
    if (this.depth === 0) return this.write(work);
    const counts = new Map(this.pendingCounts);
    const mark = this.rollbacks.length;
    try {
      return this.main.env.transactionSync(() => this.inSecure(work));
    } catch (error) {
      this.pendingCounts = counts;
      this.rolledBack(mark);
      throw error;
    }
  }

  /**
   * Runs `work` in a write transaction that is then rolled back: its reads see its own writes,
   * nothing of it is ever stored (a command of a multi-document transaction, see transactions.ts).
   */
  discard<T>(work: () => T): T {
    const counts = new Map(this.pendingCounts);
    const mark = this.rollbacks.length;
    let result: T;
    try {
      this.main.env.transactionSync(() => {
        this.depth++;
        try {
          result = this.inSecure(work, true);
        } finally {
          this.depth--;
          this.pendingCounts = counts;
        }
        return ABORT;
      });
    } finally {
      this.rolledBack(mark);
    }
    return result!;
  }

  /** True inside a write transaction (joined, child or discarded): reads may see uncommitted writes. */
  get inWriteTransaction(): boolean {
    return this.depth > 0;
  }

  /** How many documents or entries the collection or index `id` holds. */
  count(id: number): number {
    return this.storedCount(id) + (this.pendingCounts.get(id) ?? 0);
  }

  /** Changes the count of `id` by `delta`, stored when the outermost write transaction ends. */
  addCount(id: number, delta: number): void {
    this.pendingCounts.set(id, (this.pendingCounts.get(id) ?? 0) + delta);
  }

  /** Sets the count of `id` to nothing (its collection or index is emptied or dropped). */
  forgetCount(id: number): void {
    this.pendingCounts.set(id, -this.storedCount(id));
  }

  private storedCount(id: number): number {
    return this.counts.getBinary(idPrefix(id))?.readDoubleBE(0) ?? 0;
  }

  /** Writes the counts changed in this transaction, once, before it commits. */
  private storeCounts(): void {
    for (const [id, delta] of this.pendingCounts) {
      if (delta === 0) continue;
      const count = this.storedCount(id) + delta;
      if (count === 0) {
        this.counts.removeSync(idPrefix(id));
        continue;
      }
      const value = Buffer.allocUnsafe(8);
      value.writeDoubleBE(count, 0);
      this.counts.putSync(idPrefix(id), value);
    }
  }

  /** A replaced document's old bytes are freed pages of `data.mdb` until reused (only the secure space removes them). */
  replaced(): void {}

  async close(): Promise<void> {
    await this.settled().catch(() => undefined);
    await this.secure?.close();
    await this.main.env.close();
    if (this.temporary) fs.rmSync(this.directory, { recursive: true, force: true });
  }
}

function openMainFile(directory: string, temporary: boolean): MainFile {
  const env = open({
    path: directory,
    // Always a directory holding data.mdb and lock.mdb: left out, the binding takes a path whose
    // last part has a dot (`/srv/cd.data`, `./run.1`) for the name of the data file itself.
    noSubdir: false,
    maxDbs: 5,
    // Address space only; the file grows as data is written (LMDB remaps on the fly).
    mapSize: 64 * 1024 ** 3,
    noSync: temporary,
    ...ENVIRONMENT_OPTIONS,
  });
  const binary = { keyEncoding: 'binary', encoding: 'binary' } as const;
  return {
    env,
    documents: env.openDB<Buffer, Buffer>({ name: 'documents', ...binary }),
    entries: env.openDB<Buffer, Buffer>({ name: 'entries', ...binary }),
    catalog: env.openDB<Buffer, Buffer>({ name: 'catalog', ...binary }),
    counts: env.openDB<Buffer, Buffer>({ name: 'counts', ...binary }),
  };
}

/** Bytes of a record number in keys: 2^48 records per collection. */
export const RECORD_NUMBER_BYTES = 6;

/** `prefix` (a collection or index id) as the first four bytes of a key. */
export function idPrefix(id: number): Buffer {
  const key = Buffer.allocUnsafe(4);
  key.writeUInt32BE(id, 0);
  return key;
}

/** The key of a document: its collection's id, then its record number. */
export function documentKey(collectionId: number, seq: number): Buffer {
  const key = Buffer.allocUnsafe(4 + RECORD_NUMBER_BYTES);
  key.writeUInt32BE(collectionId, 0);
  key.writeUIntBE(seq, 4, RECORD_NUMBER_BYTES);
  return key;
}

/** The record number at the end of a document or index entry key. */
export function recordNumberOf(key: Uint8Array): number {
  let seq = 0;
  for (let i = key.length - RECORD_NUMBER_BYTES; i < key.length; i++) seq = seq * 256 + key[i];
  return seq;
}

/** A Buffer over the same bytes (the engine's values are Buffers; bson serializes to Uint8Array). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
