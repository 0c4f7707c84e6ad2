import { DemoGenerator } from 'demo-data';
import { COMMON_OCCUPATIONS, HOSTS, ORIGINS } from 'demo-data';
import { shippedDemoReference } from '../../src/app/demo-reference';

/**
 * What the cold rows rotate over, and the cache sizes under which that rotation stays cold.
 * A request is cold when the read caches cannot hold its answer since it was last sent: the
 * rows cycle through more distinct answers than the caches keep (least recently used goes first,
 * src/cache/lru-cache.ts), so each answer is evicted before its turn comes again.
 */

/** A fixed shuffle (xorshift, Fisher–Yates): the same order in every run. */
export function shuffled<T>(items: readonly T[], seed = 0x9e3779b9): T[] {
  const result = [...items];
  let state = seed | 0 || 1;
  for (let i = result.length - 1; i > 0; i--) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const j = (state >>> 0) % (i + 1);
    [result[i], result[j]] = [result[j], result[i]];
  }
  return result;
}

function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

/**
 * A stride that visits every one of `count` pages once per cycle, jumping across the range:
 * the smallest prime from about 0.38 × count that does not divide count (so page i × stride
 * mod count is a permutation), 1 for fewer than 3 pages.
 */
export function strideFor(count: number): number {
  if (count < 3) return 1;
  for (let p = Math.max(2, Math.floor(count * 0.382)); ; p++) if (isPrime(p) && count % p !== 0) return p;
}

/** 0, s, 2s, … mod count, forever: with strideFor(count), every page once per count requests. */
export function stridedPages(count: number, stride = strideFor(count)): () => number {
  if (count < 1) throw new Error('no page to rotate over');
  let i = 0;
  return () => (i++ * stride) % count;
}

/** The pages of `listed` search results at `limit` per page (at least one, the empty first page). */
export const pagesOf = (listed: number, limit: number): number => Math.max(1, Math.ceil(listed / limit));

const COMMON = new Set(COMMON_OCCUPATIONS.map((o) => o.code));

export interface SeededData {
  /** every candidate's publicId, EMPLOYED included, in a fixed shuffled order */
  candidateIds: string[];
  /** candidates a search without includeEmployed returns (every status but EMPLOYED) */
  listed: number;
  /**
   * Query strings `location=A,B&nationality=N&occupation=O` of the combined filter, each matching
   * at least one listed candidate, in a fixed shuffled order. The codes are the demo vocabulary's
   * (packages/demo-data/src/vocabulary.ts): host countries, origins, common occupations.
   */
  combinedFilters: string[];
}

/**
 * The seeded data as the seed command wrote it, regenerated from the same seed (the demo
 * generator is deterministic): every id, and the combined filters whose answers are not empty.
 * Location pairs are drawn among the countries where people of that nationality live.
 */
export function seededData(size: number, seed: number): SeededData {
  const generator = new DemoGenerator({ candidates: size, seed, reference: shippedDemoReference() });
  // nationality → occupation → location → listed candidates
  const counts = new Map<string, Map<string, Map<string, number>>>();
  const hostsOf = new Map<string, Set<string>>();
  let listed = 0;
  for (const candidate of generator.candidates()) {
    if (candidate.status === 'EMPLOYED') continue;
    listed++;
    const nationality = candidate.nationalityIsoCode;
    const location = candidate.countryIsoCode;
    if (!nationality || !location || !(location in HOSTS) || !(nationality in ORIGINS)) continue;
    const hosts = hostsOf.get(nationality) ?? new Set<string>();
    hosts.add(location);
    hostsOf.set(nationality, hosts);
    const byOccupation = counts.get(nationality) ?? new Map<string, Map<string, number>>();
    counts.set(nationality, byOccupation);
    const occupations = (candidate.candidateOccupations ?? [])
      .map((o) => o.occupation?.isco08Code)
      .filter((c): c is string => !!c && COMMON.has(c));
    for (const occupation of new Set(occupations)) {
      const byLocation = byOccupation.get(occupation) ?? new Map<string, number>();
      byOccupation.set(occupation, byLocation);
      byLocation.set(location, (byLocation.get(location) ?? 0) + 1);
    }
  }
  const combinedFilters: string[] = [];
  for (const [nationality, byOccupation] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    const hosts = [...(hostsOf.get(nationality) ?? [])].sort();
    for (const [occupation, byLocation] of [...byOccupation].sort(([a], [b]) => a.localeCompare(b))) {
      for (let a = 0; a < hosts.length; a++) {
        for (let b = a + 1; b < hosts.length; b++) {
          if ((byLocation.get(hosts[a]) ?? 0) + (byLocation.get(hosts[b]) ?? 0) === 0) continue;
          combinedFilters.push(`location=${hosts[a]},${hosts[b]}&nationality=${nationality}&occupation=${occupation}`);
        }
      }
    }
  }
  return {
    candidateIds: shuffled(generator.candidatePublicIds()),
    listed,
    combinedFilters: shuffled(combinedFilters, 0x2545f491),
  };
}

/** How many distinct answers each cold rotation has, and a lower bound of each answer's size. */
export interface Rotations {
  ids: number;
  /** candidates the unfiltered search returns over all its pages */
  listed: number;
  pagesOf100: number;
  pagesOf20: number;
  combinedFilters: number;
}

/**
 * Lower bounds of the serialised /v1 answers (bytes) the response cache would keep: a by-id
 * answer of the demo data is about 6 KB, a page of 100 about 570 KB, a page of the combined
 * filter (default limit) tens of KB; half of each leaves room for smaller answers.
 */
export const ANSWER_BYTES_AT_LEAST = { byId: 3_000, page100: 250_000, combined: 5_000 };

export interface CacheSettings {
  /** READ_CACHE_ENTRIES: candidates (and key records, job opportunities); search pages are a tenth of it */
  entries: number;
  /** READ_CACHE_MB: serialised /v1 answers */
  mb: number;
}

/**
 * The cache sizes of the cold rows: the deployed defaults, unless one of the rotations would fit
 * in them; then at most half of the smallest rotation, so that every answer is evicted before
 * its next turn. The caches stay on (lookups, insertions and evictions all run).
 */
export function coldCacheSettings(defaults: CacheSettings, rotations: Rotations): CacheSettings {
  // The candidate cache holds READ_CACHE_ENTRIES candidates; the search-page cache a tenth of that many pages.
  const entries = Math.min(
    defaults.entries,
    Math.floor(
      Math.min(rotations.ids, 10 * Math.min(rotations.pagesOf100, rotations.pagesOf20, rotations.combinedFilters)) / 2,
    ),
  );
  const bytes = Math.min(
    rotations.ids * ANSWER_BYTES_AT_LEAST.byId,
    rotations.pagesOf100 * ANSWER_BYTES_AT_LEAST.page100,
    rotations.combinedFilters * ANSWER_BYTES_AT_LEAST.combined,
  );
  const mb = Math.min(defaults.mb, Math.floor(bytes / 2 / 2 ** 20));
  return { entries: Math.max(1, entries), mb: Math.max(1, mb) };
}
