import fs from 'node:fs';
import path from 'node:path';
import { ABORT, open, type Database, type RootDatabase } from 'lmdb';
import type { EngineSpace } from './engine-space';
import { fsyncDirectory, fsyncFile } from './record-file';
import { SECURE_FILES } from './store-files';

/** The secure space's file in the data directory (LMDB's `secure.mdb-lock` beside it). */
export const SECURE_FILE = SECURE_FILES[0];
/** Where a compaction writes the new file before it replaces SECURE_FILE. */
const COMPACTING_SUFFIX = '.compacting';
/** Stored with a commit that freed bytes of the space; gone once the file is compacted. */
const COMPACTION_DUE = Buffer.from('compaction-due');

/** What the secure space takes from the storage engine: its transactions and its counts. */
export type SpaceHost = Pick<
  EngineSpace,
  'write' | 'atomic' | 'onRollback' | 'inWriteTransaction' | 'count' | 'addCount' | 'forgetCount'
>;

/**
 * The environment options every file of the engine shares. `noMemInit` stays off: LMDB zeroes
 * the unused part of every new page, so nothing else from memory reaches a file.
 */
export const ENVIRONMENT_OPTIONS = {
  pageSize: 8192,
  // The store reads its own writes synchronously; no cache in front of the mapped file.
  cache: false,
  // Encryption, compression and the like stay off: the values are BSON the store reads as bytes.
  compression: false,
  noMemInit: false,
} as const;

const BINARY = { keyEncoding: 'binary', encoding: 'binary' } as const;

/**
 * The documents and index entries of the collections created with
 * `storageEngine: { embedded: { secureDelete: true } }`, in an LMDB file of their own
 * (`secure.mdb`), so that their deleted bytes can be removed from the disk: LMDB keeps freed
 * pages in its file until it reuses them, so a deleted document stays readable there. After
 * every commit that deleted or replaced anything here, the file is compacted (copied without
 * its free pages, then moved over the old one) before the command that did it is answered.
 *
 * It is written in the transactions of the storage engine (StorageEngine wraps each of its
 * transactions around one of this file's): a write of a secure collection commits here first,
 * then in `data.mdb`, so a crash between the two leaves at most this file's part done. A commit
 * that freed bytes stores a mark with them, and a mark found at open compacts the file then:
 * a crash before the compaction ends does not leave the freed bytes behind for good.
 *
 * The file is meant to stay small (keys, not documents that grow with the data): its
 * compaction copies all of it.
 */
export class SecureSpace implements EngineSpace {
  private env!: RootDatabase;
  private documentsDb!: Database<Buffer, Buffer>;
  private entriesDb!: Database<Buffer, Buffer>;
  private state!: Database<Buffer, Buffer>;
  /** Something was deleted or replaced in the open transaction: compact after its commit. */
  private freed = false;

  constructor(
    private readonly file: string,
    private readonly host: SpaceHost,
    private readonly durable: boolean,
  ) {
    this.openEnvironment(false);
  }

  /** Whether a data directory has a secure space already. */
  static existsIn(directory: string): boolean {
    return fs.existsSync(path.join(directory, SECURE_FILE));
  }

  /** Removes what a compaction cut short left (its file is complete only once it was moved into place). */
  static removeLeftovers(directory: string): void {
    const aside = path.join(directory, SECURE_FILE + COMPACTING_SUFFIX);
    fs.rmSync(aside, { force: true });
    fs.rmSync(`${aside}-lock`, { force: true });
  }

  get documents(): Database<Buffer, Buffer> {
    return this.documentsDb;
  }

  get entries(): Database<Buffer, Buffer> {
    return this.entriesDb;
  }

  get path(): string {
    return this.file;
  }

  write<T>(work: () => T): T {
    return this.host.write(work);
  }

  atomic<T>(work: () => T): T {
    return this.host.atomic(work);
  }

  onRollback(undo: () => void): void {
    this.host.onRollback(undo);
  }

  get inWriteTransaction(): boolean {
    return this.host.inWriteTransaction;
  }

  count(id: number): number {
    return this.host.count(id);
  }

  addCount(id: number, delta: number): void {
    if (delta < 0) this.freed = true;
    this.host.addCount(id, delta);
  }

  forgetCount(id: number): void {
    this.freed = true;
    this.host.forgetCount(id);
  }

  replaced(): void {
    this.freed = true;
  }

  /**
   * Runs `work` in a transaction of this file, nested in the storage engine's: committed when
   * `work` returns (before the engine's own commit), rolled back when it throws, and with
   * `discard` rolled back anyway. Nested in another of this file's, it is a child transaction.
   */
  transaction<T>(work: () => T, discard = false): T {
    const freed = this.freed;
    let result: T;
    try {
      this.env.transactionSync(() => {
        result = work();
        if (discard) return ABORT;
        if (this.freed && this.durable) this.state.putSync(COMPACTION_DUE, Buffer.alloc(1));
        return undefined;
      });
    } catch (error) {
      this.freed = freed;
      throw error;
    }
    if (discard) this.freed = freed;
    return result!;
  }

  /** True when a commit freed bytes that are still in the file (compact() removes them). */
  get compactionDue(): boolean {
    return this.freed || this.state.getBinary(COMPACTION_DUE) !== undefined;
  }

  /**
   * Rewrites the file with only the pages in use (LMDB's compacting copy of the last commit),
   * fsync'ed, then moved over the old file: its freed pages, and the deleted bytes in them,
   * are gone. No write may commit meanwhile (the storage engine holds them back). Returns how
   * many bytes the file shrank by.
   */
  async compact(): Promise<number> {
    this.freed = false;
    // Nothing of a memory store outlives it: no copy.
    if (!this.durable) return 0;
    const before = fs.statSync(this.file).size;
    const aside = this.file + COMPACTING_SUFFIX;
    await compactingCopy(this.env, aside);
    await this.env.close();
    fs.renameSync(aside, this.file);
    fsyncDirectory(path.dirname(this.file));
    this.openEnvironment(true);
    return Math.max(0, before - fs.statSync(this.file).size);
  }

  /** A compacting copy of the last commit to the file `target`, fsync'ed; resolves with its bytes. */
  async copyTo(target: string): Promise<number> {
    await compactingCopy(this.env, target);
    return fs.statSync(target).size;
  }

  async close(): Promise<void> {
    await this.env.close();
  }

  /** Opens the file; `compacted`: it was just written by compact(), whose mark it copied. */
  private openEnvironment(compacted: boolean): void {
    this.env = open({
      path: this.file,
      noSubdir: true,
      maxDbs: 3,
      mapSize: 16 * 1024 ** 3,
      noSync: !this.durable,
      ...ENVIRONMENT_OPTIONS,
    });
    this.documentsDb = this.env.openDB<Buffer, Buffer>({ name: 'documents', ...BINARY });
    this.entriesDb = this.env.openDB<Buffer, Buffer>({ name: 'entries', ...BINARY });
    this.state = this.env.openDB<Buffer, Buffer>({ name: 'state', ...BINARY });
    for (const file of [this.file, `${this.file}-lock`]) fs.chmodSync(file, 0o600);
    // The mark was copied with the pages in use; the file it asked for is this one.
    if (compacted && this.state.getBinary(COMPACTION_DUE) !== undefined)
      this.env.transactionSync(() => this.state.removeSync(COMPACTION_DUE));
  }
}

/**
 * LMDB's compacting copy of `env` (its last commit, without free pages) to `target`, fsync'ed.
 * A directory environment is copied into the directory `target` (as `data.mdb`); a file one
 * (`noSubdir`) to the file `target`.
 */
export async function compactingCopy(env: RootDatabase, target: string, directory = false): Promise<void> {
  if (directory) {
    fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(target, { mode: 0o700 });
  } else {
    fs.rmSync(target, { force: true });
  }
  await env.backup(target, true);
  const file = directory ? path.join(target, 'data.mdb') : target;
  fs.chmodSync(file, 0o600);
  fsyncFile(file);
}
