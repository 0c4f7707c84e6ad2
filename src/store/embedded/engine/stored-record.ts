import type { Document } from 'bson';

/**
 * One document of a collection. Documents are never mutated in place: an update swaps `doc`
 * for a new object, so cursors and replies holding the old object keep a consistent version.
 */
export interface StoredRecord {
  /** Insertion sequence: natural order, and the tie-breaker between equal index keys. */
  readonly seq: number;
  doc: Document;
  /** BSON size of `doc`, for collStats / dbStats. */
  size: number;
}
