import type { IndexSpec } from '../store/indexes';

/**
 * The collection of the change-event outbox (part of the operator contract, like COLLECTIONS):
 * one document per change, written in the change's transaction, numbered (`seq`) afterwards by
 * sequencing from the counter document (`_id` "sequence"); see change-events.ts.
 */
export const CHANGE_COLLECTIONS = {
  changeEvents: 'changeEvents',
} as const;

/**
 * Indexes of the outbox: readers page by `seq`, sequencing finds the events without one (null);
 * the erasure finds the events of one candidate by its publicId.
 */
export const changeIndexes: readonly IndexSpec[] = [
  { collection: CHANGE_COLLECTIONS.changeEvents, key: { seq: 1 }, options: { name: 'changeEvents_seq' } },
  {
    collection: CHANGE_COLLECTIONS.changeEvents,
    key: { publicId: 1 },
    options: { name: 'changeEvents_publicId' },
  },
];
