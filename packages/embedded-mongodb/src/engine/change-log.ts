import type { Document } from 'bson';

/**
 * A change, reported after the storage accepted it: what a multi-document transaction captures
 * of its commands, and what an earlier release's journal holds (converting a data directory).
 * Changes are physical ("this document now reads ...") rather than the command that caused
 * them, so applying one never re-runs update operators or regenerates values.
 */
export type Change =
  | { t: 'put'; db: string; c: string; d: Document }
  | { t: 'del'; db: string; c: string; id: unknown }
  | { t: 'createCollection'; db: string; c: string; options: Document }
  | { t: 'dropCollection'; db: string; c: string }
  | { t: 'dropDatabase'; db: string }
  | { t: 'createIndex'; db: string; c: string; spec: Document }
  | { t: 'dropIndex'; db: string; c: string; name: string }
  /** The changes of one committed transaction: one journal record, so recovery has all of them or none. */
  | { t: 'txn'; changes: Change[] };

export interface ChangeLog {
  /**
   * `before`: with a put that replaced a document or a del, the document's bytes before the
   * change (what a transaction's undo restores).
   */
  append(change: Change, before?: Uint8Array): void;
}

/** Changes nobody captures: the storage engine has already stored them. */
export const DISCARD_CHANGES: ChangeLog = { append: () => undefined };
