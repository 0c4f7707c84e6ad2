import type { Database } from 'lmdb';

/**
 * What a collection and its indexes need of the storage: the key spaces that hold their
 * documents and index entries, and the transactions of the store (one for every space).
 *
 * The storage engine is one such space (`data.mdb`); a collection created with
 * `storageEngine: { embedded: { secureDelete: true } }` lives in the secure space instead
 * (secure-space.ts), written in the same transactions.
 */
export interface EngineSpace {
  readonly documents: Database<Buffer, Buffer>;
  readonly entries: Database<Buffer, Buffer>;
  /** Runs `work` in the store's write transaction (joined when one is open), committed durably. */
  write<T>(work: () => T): T;
  /** Like `write`, but nested it is a child transaction: rolled back alone when `work` throws. */
  atomic<T>(work: () => T): T;
  /** `undo` runs if the open transaction is rolled back. */
  onRollback(undo: () => void): void;
  readonly inWriteTransaction: boolean;
  /** How many documents or entries the collection or index `id` holds. */
  count(id: number): number;
  addCount(id: number, delta: number): void;
  forgetCount(id: number): void;
  /** A stored document was replaced by new bytes: the old ones are no longer data. */
  replaced(): void;
}
