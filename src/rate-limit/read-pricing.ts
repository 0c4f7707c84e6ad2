import { DEFAULT_LIMIT, MAX_LIMIT, MIN_LIMIT } from '../candidates/search-input';

/*
 * What a read costs against a key's read budget, the same on both transports: the GraphQL
 * weight of an operation (graphql/operation-weight.ts) and the REST router price pages by it.
 */

/** Candidates per read unit: a page of up to 10 candidates costs 1 read, a page of 100 costs 10. */
export const CANDIDATES_PER_READ = 10;

/**
 * The reads a page of `size` candidates costs: ceil(size / 10), the size taken within the
 * bounds of a page (1 to 100; a size out of bounds is refused later, and costs as the bound).
 * The same on both transports: `GET /v1/candidates?limit=100` and `candidates(limit: 100)` cost 10.
 */
export function pageReads(size: number | undefined): number {
  const bounded =
    size === undefined || !Number.isFinite(size)
      ? DEFAULT_LIMIT
      : Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, Math.floor(size)));
  return Math.ceil(bounded / CANDIDATES_PER_READ);
}
