import type { IndexSpec } from '../store/indexes';

/** The collection of automatic persisted queries (part of the operator contract, like COLLECTIONS). */
export const PERSISTED_QUERY_COLLECTION = 'persistedQueries';

/**
 * Indexes of `persistedQueries` (the `_id` is the query's hash). The TTL index drops a query once
 * it expires, on MongoDB and on the embedded store alike; the repository also treats an expired
 * query as absent and removes expired ones itself when it stores another. The same index orders
 * the eviction of the oldest when the collection is full (GRAPHQL_APQ_MAX_ENTRIES).
 */
export const persistedQueryIndexes: readonly IndexSpec[] = [
  {
    collection: PERSISTED_QUERY_COLLECTION,
    key: { expiresAt: 1 },
    options: { name: 'persistedQueries_expiresAt_ttl', expireAfterSeconds: 0 },
  },
];
