import { DemoGenerator } from 'demo-data';
import { COMMON_OCCUPATIONS, HOSTS, ORIGINS } from 'demo-data';
import { shippedDemoReference } from '../../src/app/demo-reference';
import { languageLevels } from '../../src/reference/reference-data';

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
  /**
   * Query strings of today's search an employer starts from, `location=A,B&occupation=O`, each
   * matching at least one listed candidate, in a fixed shuffled order.
   */
  locationOccupationFilters: string[];
  /**
   * Query strings of an employer's question, `location=A,B&occupation=O&languages=L:level&
   * minYearsExperience=Y` (host country pairs, common occupations, English, German or French
   * spoken at B1, B2 or C1, at least 1, 2, 3 or 5 years in the occupation), each matching at
   * least one listed candidate, in a fixed shuffled order (at most MAX_ROTATION of them, as for
   * the other rotations here).
   */
  employerFilters: string[];
  /** Query strings of today's location search, `location=A&page=P`: every non-empty page of each host country. */
  locationPages: string[];
  /**
   * Keyword searches, `keyword=…`: each word of the candidates' searched text (skills, roles,
   * job descriptions, certifications, courses, occupation names) that some listed candidate
   * holds, alone, then two by two and three by three, in a fixed shuffled order.
   */
  keywords: string[];
}

/** Languages of the destination countries an employer asks for, the CEFR levels, and the years of experience (as `minYearsExperience`). */
const EMPLOYER_LANGUAGES = ['en', 'de', 'fr'] as const;
const EMPLOYER_LEVELS = ['B1', 'B2', 'C1'] as const;
/** More requests than a measured window sends to one row: a longer rotation would only cost memory. */
const MAX_ROTATION = 20_000;
const EMPLOYER_YEARS = [1, 2, 3, 5] as const;
/** Words of five letters or more that English text search ignores (its stop words). */
const STOP_WORDS = new Set(
  'about above after again against below between could during further having other ought should their theirs there these those through under until where which while would yours yourself yourselves ourselves themselves itself herself himself myself'.split(
    ' ',
  ),
);
const CEFR_RANK = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'];
/** A stored language level's place in CEFR order (-1: no CEFR level). */
const cefrRankOf = (() => {
  const ranks = new Map(languageLevels().map((l) => [l.level, CEFR_RANK.indexOf(l.cefrLevel ?? '')]));
  return (level: number | undefined): number => (level === undefined ? -1 : (ranks.get(level) ?? -1));
})();

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
  // `host|occupation|language|level|years` of each question some listed candidate answers
  const employerSeen = new Set<string>();
  const locationCounts = new Map<string, number>();
  const words = new Set<string>();
  const occupationNames = shippedDemoReference().occupationNames;
  for (const candidate of generator.candidates()) {
    if (candidate.status === 'EMPLOYED') continue;
    listed++;
    const host = candidate.countryIsoCode;
    if (host && host in HOSTS) locationCounts.set(host, (locationCounts.get(host) ?? 0) + 1);
    const texts = [
      ...(candidate.candidateSkills ?? []).map((s) => s.skill ?? ''),
      ...(candidate.candidateCertifications ?? []).map((c) => c.name ?? ''),
      ...(candidate.candidateEducations ?? []).map((e) => e.courseName ?? ''),
      ...(candidate.candidateOccupations ?? []).flatMap((o) => [
        occupationNames.get(o.occupation?.isco08Code ?? '') ?? '',
        ...(o.candidateJobExperiences ?? []).flatMap((j) => [j.role ?? '', j.description ?? '']),
      ]),
    ];
    for (const word of texts
      .join(' ')
      .toLowerCase()
      .match(/[a-z]{5,}/g) ?? [])
      if (!STOP_WORDS.has(word)) words.add(word);
    if (host && host in HOSTS) {
      const spoken = new Map<string, number>();
      for (const entry of candidate.candidateLanguages ?? []) {
        const code = entry.languageIsoCode;
        if (code && (EMPLOYER_LANGUAGES as readonly string[]).includes(code))
          spoken.set(code, Math.max(spoken.get(code) ?? -1, cefrRankOf(entry.spokenLevel)));
      }
      for (const entry of candidate.candidateOccupations ?? []) {
        const occupation = entry.occupation?.isco08Code;
        if (!occupation || !COMMON.has(occupation) || entry.yearsExperience === undefined) continue;
        for (const [language, rank] of spoken)
          for (const level of EMPLOYER_LEVELS)
            for (const years of EMPLOYER_YEARS)
              if (rank >= CEFR_RANK.indexOf(level) && entry.yearsExperience >= years)
                employerSeen.add(`${host}|${occupation}|${language}|${level}|${years}`);
      }
    }
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
  // Today's filter an employer starts from, and the employer's question on the same pairs.
  const locationOccupation = new Set<string>();
  const employer: string[] = [];
  const seenAt = (host: string, rest: string): boolean => employerSeen.has(`${host}|${rest}`);
  const hosts = [...Object.keys(HOSTS)].sort();
  for (let a = 0; a < hosts.length; a++)
    for (let b = a + 1; b < hosts.length; b++)
      for (const occupation of [...COMMON].sort())
        for (const language of EMPLOYER_LANGUAGES)
          for (const level of EMPLOYER_LEVELS)
            for (const years of EMPLOYER_YEARS) {
              const rest = `${occupation}|${language}|${level}|${years}`;
              if (!seenAt(hosts[a], rest) && !seenAt(hosts[b], rest)) continue;
              locationOccupation.add(`location=${hosts[a]},${hosts[b]}&occupation=${occupation}`);
              employer.push(
                `location=${hosts[a]},${hosts[b]}&occupation=${occupation}&languages=${language}:${level}&minYearsExperience=${years}`,
              );
            }
  const locationPages = [...locationCounts].flatMap(([host, count]) =>
    Array.from({ length: pagesOf(count, 10) }, (_, page) => `location=${host}&page=${page}`),
  );
  const single = shuffled([...words].sort(), 0x1b873593);
  // Words two by two (neighbours in the shuffled order, and one, two apart) and three by three.
  const pairs = [1, 2, 3].flatMap((apart) => single.slice(apart).map((word, i) => `${single[i]} ${word}`));
  const triples = single.slice(2).map((word, i) => `${single[i]} ${single[i + 1]} ${word}`);
  return {
    candidateIds: shuffled(generator.candidatePublicIds()),
    listed,
    combinedFilters: shuffled(combinedFilters, 0x2545f491),
    locationOccupationFilters: shuffled([...locationOccupation], 0x68e31da4).slice(0, MAX_ROTATION),
    employerFilters: shuffled(employer, 0x5bd1e995).slice(0, MAX_ROTATION),
    locationPages: shuffled(locationPages, 0x27d4eb2f).slice(0, MAX_ROTATION),
    keywords: [...single, ...pairs, ...triples]
      .slice(0, MAX_ROTATION)
      .map((keyword) => `keyword=${encodeURIComponent(keyword)}`),
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
  /** the rotations of today's location (by page) and location + occupation searches, the employer's question and the keyword */
  searchFilters: { locationPages: number; locationOccupation: number; employer: number; keywords: number };
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
  const filtered = Math.min(rotations.combinedFilters, ...Object.values(rotations.searchFilters));
  const entries = Math.min(
    defaults.entries,
    Math.floor(Math.min(rotations.ids, 10 * Math.min(rotations.pagesOf100, rotations.pagesOf20, filtered)) / 2),
  );
  const bytes = Math.min(
    rotations.ids * ANSWER_BYTES_AT_LEAST.byId,
    rotations.pagesOf100 * ANSWER_BYTES_AT_LEAST.page100,
    filtered * ANSWER_BYTES_AT_LEAST.combined,
  );
  const mb = Math.min(defaults.mb, Math.floor(bytes / 2 / 2 ** 20));
  return { entries: Math.max(1, entries), mb: Math.max(1, mb) };
}
