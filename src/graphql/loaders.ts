import DataLoader from 'dataloader';
import type { CoalescedFetch } from '../cache/coalesced-fetch';
import type { EpochCache } from '../cache/epoch-cache';
import type { CandidateDoc, JobOpportunityDoc } from 'candidate-documents';
import type { Repositories } from '../service-types';

/**
 * The DataLoaders of one request. Created per request (never shared: a loader caches what
 * it loaded, and that must not outlive the caller it was loaded for). Every batch answers
 * in key order, with null for a key that names nothing. Candidates and job opportunities
 * come from the process's read caches when they hold them for the request's read epoch
 * (the same for every caller: reads are authorised before anything is loaded); only the
 * others are fetched, in one batch, which the process's coalescer sends together with the
 * batches of concurrent requests (src/cache/coalesced-fetch.ts). Reference data needs no loader: its resolvers read the
 * snapshot taken at start (GraphQLContext.reference), synchronously.
 */
export interface Loaders {
  jobOpportunities: DataLoader<string, JobOpportunityDoc | null>;
  candidates: DataLoader<string, CandidateDoc | null>;
}

/** Where the size of every batch goes (the `dataloader_batch_size` histogram of src/observability/metrics.ts). */
export interface BatchSizeObserver {
  observe(labels: { loader: keyof Loaders }, keys: number): void;
}

const UNOBSERVED: BatchSizeObserver = { observe: () => {} };

export function createLoaders(
  repositories: Repositories,
  readEpoch: string,
  batchSizes: BatchSizeObserver = UNOBSERVED,
): Loaders {
  const observed =
    <K, V>(loader: keyof Loaders, fetch: (keys: readonly K[]) => Promise<V[]>) =>
    (keys: readonly K[]) => {
      batchSizes.observe({ loader }, keys.length);
      return fetch(keys);
    };
  return {
    jobOpportunities: keyedLoader(
      observed(
        'jobOpportunities',
        cachedFetch(repositories.jobOpportunityCache, readEpoch, repositories.jobOpportunityFetch),
      ),
      (doc) => doc.publicId,
    ),
    candidates: keyedLoader(
      observed('candidates', cachedFetch(repositories.candidateCache, readEpoch, repositories.candidateFetch)),
      (doc) => doc.publicId,
    ),
  };
}

/**
 * A batch lookup by publicId that takes what `cache` holds for `readEpoch` and fetches the
 * rest through `coalesced`, with the other requests of the same moment under the same epoch.
 * An empty epoch (a request refused before it read one) caches and coalesces nothing.
 */
function cachedFetch<V extends { publicId: string }>(
  cache: EpochCache<string, V>,
  readEpoch: string,
  coalesced: CoalescedFetch<V>,
): (publicIds: readonly string[]) => Promise<V[]> {
  if (readEpoch === '') return (publicIds) => coalesced.fetchAlone(publicIds);
  return async (publicIds) => {
    const found: V[] = [];
    const missing: string[] = [];
    for (const publicId of publicIds) {
      const value = cache.get(publicId, readEpoch);
      if (value === undefined) missing.push(publicId);
      else found.push(value);
    }
    if (missing.length > 0)
      for (const value of await coalesced.load(missing, readEpoch))
        found.push(cache.set(value.publicId, readEpoch, value));
    return found;
  };
}

/** Every key through `loader`; loadMany answers an Error in place of a failed key, here a failed batch fails the call. */
export async function loadAll<K, V>(loader: DataLoader<K, V>, keys: readonly K[]): Promise<V[]> {
  const values = await loader.loadMany(keys);
  const failure = values.find((value): value is Error => value instanceof Error);
  if (failure) throw failure;
  return values as V[];
}

/** A loader over a batch lookup that returns documents in any order; answers in key order. */
function keyedLoader<K extends string | number, V>(
  fetch: (keys: readonly K[]) => Promise<V[]>,
  keyOf: (value: V) => K,
): DataLoader<K, V | null> {
  return new DataLoader<K, V | null>(
    async (keys) => {
      const byKey = new Map<K, V>();
      for (const value of await fetch(keys)) byKey.set(keyOf(value), value);
      return keys.map((key) => byKey.get(key) ?? null);
    },
    { maxBatchSize: 1000 },
  );
}
