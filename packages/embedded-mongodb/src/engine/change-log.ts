import type { Document } from 'bson';
import type { StoredRecord } from './stored-record';

/**
 * A durable change, recorded after the in-memory state accepted it. Changes are physical
 * ("this document now reads ...") rather than the command that caused them, so replaying a
 * journal never re-runs update operators or regenerates values.
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
   * `record`: with a put, the record that holds the document. A durable log writes the record's
   * bytes as they are and, once they are on disk, tells the record where (it then lets go of
   * its copy). `before`: with a put that replaced a document or a del, the document's bytes
   * before the change (what a transaction's undo restores; durable logs ignore it).
   */
  append(change: Change, record?: StoredRecord, before?: Uint8Array): void;
}

/** For in-memory stores and for replaying a journal, which must not record itself again. */
export const DISCARD_CHANGES: ChangeLog = { append: () => undefined };
