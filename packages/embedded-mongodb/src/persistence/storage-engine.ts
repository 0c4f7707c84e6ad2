import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ABORT, open, type Database, type RootDatabase } from 'lmdb';

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
 * Every write runs in `write`: one LMDB transaction, committed and fsync'ed before it returns
 * (LMDB writes the data pages, fdatasyncs, then writes the meta page synchronously), so a
 * command that wrote is durable before its reply is sent.
 */
export class StorageEngine {
  private constructor(
    private readonly env: RootDatabase,
    readonly documents: Database<Buffer, Buffer>,
    readonly entries: Database<Buffer, Buffer>,
    readonly catalog: Database<Buffer, Buffer>,
    private readonly counts: Database<Buffer, Buffer>,
    /** A memory store's directory, removed at close. */
    private readonly temporary: string | undefined,
  ) {}

  /** Write transactions open (nested ones joined) on this engine. */
  private depth = 0;
  /** Changes to counts in the open write transaction, stored once at its end. */
  private pendingCounts = new Map<number, number>();
  /** What to undo in memory if the open transaction is rolled back (see onRollback). */
  private readonly rollbacks: (() => void)[] = [];

  /** Opens (or creates) the environment in `directory`, files `data.mdb` and `lock.mdb`. */
  static open(directory: string): StorageEngine {
    return StorageEngine.openAt(directory, false);
  }

  /** An environment in a private temporary directory, removed at close, never synced (memory mode). */
  static temporary(): StorageEngine {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-store-'));
    return StorageEngine.openAt(directory, true);
  }

  private static openAt(directory: string, temporary: boolean): StorageEngine {
    const env = open({
      path: directory,
      // Always a directory holding data.mdb and lock.mdb: left out, the binding takes a path whose
      // last part has a dot (`/srv/cd.data`, `./run.1`) for the name of the data file itself.
      noSubdir: false,
      maxDbs: 5,
      // Address space only; the file grows as data is written (LMDB remaps on the fly).
      mapSize: 64 * 1024 ** 3,
      pageSize: 8192,
      noSync: temporary,
      // The store reads its own writes synchronously; no cache in front of the mapped file.
      cache: false,
      // Encryption, compression and the like stay off: the values are BSON the store reads as bytes.
      compression: false,
    });
    const binary = { keyEncoding: 'binary', encoding: 'binary' } as const;
    return new StorageEngine(
      env,
      env.openDB<Buffer, Buffer>({ name: 'documents', ...binary }),
      env.openDB<Buffer, Buffer>({ name: 'entries', ...binary }),
      env.openDB<Buffer, Buffer>({ name: 'catalog', ...binary }),
      env.openDB<Buffer, Buffer>({ name: 'counts', ...binary }),
      temporary ? directory : undefined,
    );
  }

  /**
   * Runs `work` in a write transaction and commits it durably; nested in another, it is part of
   * that one (for work that checks everything before it writes: it never fails half-way).
   */
  write<T>(work: () => T): T {
    if (this.depth > 0) return work();
    try {
      return this.env.transactionSync(() => {
        this.depth++;
        try {
          const result = work();
          this.storeCounts();
          return result;
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
      return this.env.transactionSync(work);
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
      this.env.transactionSync(() => {
        this.depth++;
        try {
          result = work();
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

  async close(): Promise<void> {
    await this.env.close();
    if (this.temporary) fs.rmSync(this.temporary, { recursive: true, force: true });
  }
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
