import type { IndexSpec } from '../store/indexes';

/**
 * The collection of the change-event outbox (part of the operator contract, like COLLECTIONS):
 * one document per change, its `_id` the event's seq (so unique and in order without an index
 * of its own), and the counter document (`_id` 0) every change-writing transaction increments,
 * which is what makes seq order commit order.
 */
export const CHANGE_COLLECTIONS = {
  changeEvents: 'changeEvents',
} as const;

/**
 * Indexes of the outbox: readers page by `_id` (seq), which needs none; the erasure finds the
 * events of one candidate by its publicId.
 */
export const changeIndexes: readonly IndexSpec[] = [
  {
    collection: CHANGE_COLLECTIONS.changeEvents,
    key: { publicId: 1 },
    options: { name: 'changeEvents_publicId' },
  },
];
