import type { IndexSpec } from '../store/indexes';

/** The collection of idempotency records (part of the operator contract, like COLLECTIONS). */
export const IDEMPOTENCY_COLLECTION = 'idempotencyKeys';

/** How long a key is remembered: a retry after a day is a new request. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/**
 * Indexes of `idempotencyKeys`. The unique (apiKeyId, keyHash) index is what makes the first of
 * two concurrent requests with one key the only one to run, across instances; the TTL index
 * drops records a day after they were made, on MongoDB and on the embedded store alike (each runs
 * a TTL pass a minute; the repository also treats an expired record as absent in between).
 */
export const idempotencyIndexes: readonly IndexSpec[] = [
  {
    collection: IDEMPOTENCY_COLLECTION,
    key: { apiKeyId: 1, keyHash: 1 },
    options: { name: 'idempotencyKeys_apiKeyId_keyHash_unique', unique: true },
  },
  {
    collection: IDEMPOTENCY_COLLECTION,
    key: { createdDate: 1 },
    options: { name: 'idempotencyKeys_createdDate_ttl', expireAfterSeconds: IDEMPOTENCY_TTL_SECONDS },
  },
  {
    // An erasure finds the records of the registration of its candidate (only those hold the field).
    collection: IDEMPOTENCY_COLLECTION,
    key: { candidatePublicId: 1 },
    options: {
      name: 'idempotencyKeys_candidatePublicId',
      partialFilterExpression: { candidatePublicId: { $exists: true } },
    },
  },
];
