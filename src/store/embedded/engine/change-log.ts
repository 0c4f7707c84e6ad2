import type { Document } from 'bson';

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
  | { t: 'dropIndex'; db: string; c: string; name: string };

export interface ChangeLog {
  append(change: Change): void;
}

/** For in-memory stores and for replaying a journal, which must not record itself again. */
export const DISCARD_CHANGES: ChangeLog = { append: () => undefined };
