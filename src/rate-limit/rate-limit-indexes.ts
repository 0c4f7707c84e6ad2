import type { IndexSpec } from '../store/indexes';

/** The collection of rate-limit counters (part of the operator contract, like COLLECTIONS). */
export const RATE_LIMIT_COLLECTION = 'rateLimits';

/**
 * Indexes of `rateLimits`. The unique (apiKeyId, kind, windowStart) index makes the upsert of a
 * window's counter create one document however many instances count at once; the TTL index drops
 * a counter once its window is over, on MongoDB and on the embedded store alike (the rate limiter
 * also removes a key's ended windows itself when it opens the next).
 */
export const rateLimitIndexes: readonly IndexSpec[] = [
  {
    collection: RATE_LIMIT_COLLECTION,
    key: { apiKeyId: 1, kind: 1, windowStart: 1 },
    options: { name: 'rateLimits_apiKeyId_kind_windowStart_unique', unique: true },
  },
  {
    collection: RATE_LIMIT_COLLECTION,
    key: { expiresAt: 1 },
    options: { name: 'rateLimits_expiresAt_ttl', expireAfterSeconds: 0 },
  },
];
