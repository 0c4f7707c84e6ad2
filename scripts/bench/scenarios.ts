import path from 'node:path';
import { COMMON_OCCUPATIONS, HOSTS, ORIGINS } from 'demo-data';
import { DIMENSIONS } from '../../src/statistics/dimensions';
import { DEEP_QUERY, DEEP_QUERY_PAGE, persistedOperation, STATISTICS_QUERY } from './graphql-operations';
import { shuffled, stridedPages, strideFor } from './rotation';
import { REPO } from './service';

export interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Whether a row's answers could come from the read caches: `hot` repeats the same few requests
 * (served from the caches after the warm-up); `cold` sends requests that are all distinct within
 * more distinct answers than the caches hold; `cold, caches off` repeats requests on a service
 * with the read caches off, so every answer is computed from the store; `fixed body` is a
 * baseline server answering one pre-serialised body.
 */
export type Heat = 'hot' | 'cold' | 'cold, caches off' | 'fixed body';

export interface Scenario {
  /** stable key, used by the goals */
  key: string;
  /** the row label of the table */
  label: string;
  kind: 'REST' | 'GraphQL' | 'baseline';
  heat: Heat;
  /** overrides --connections (the unloaded-latency probe) */
  connections?: number;
  /** the scenario writes to the store (runs last, after every read) */
  writes?: boolean;
  /** the request to send next; called for every request when `dynamic`, once otherwise */
  next(): HttpRequest;
  dynamic: boolean;
  /**
   * GraphQL answers 200 with an `errors` member when a query fails, so status codes alone
   * would hide failures. Apollo writes `errors` first, so the start of the body tells.
   */
  verifyBody?: (body: string) => boolean;
}

export interface ScenarioContext {
  apiKey: string;
  /** publicIds of real candidates, spread over the whole store */
  candidateIds: readonly string[];
  /** publicIds of the saved lists of the demo data */
  savedListIds: readonly string[];
  /** makes registration e-mails unique across runs and sizes */
  runTag: string;
  /** pages of the unfiltered search (every status but EMPLOYED), when known */
  searchPages?: { of100: number; of20: number };
  /**
   * The last full page of 100 of that search (the last page may hold only a few candidates,
   * which would make the deepest page look cheaper than it is), when known.
   */
  deepestFullPageOf100?: number;
}

/** What the cold rows rotate over (rotation.ts seededData). */
export interface ColdContext {
  apiKey: string;
  /** every candidate, in a fixed shuffled order */
  everyCandidateId: readonly string[];
  searchPages: { of100: number; of20: number };
  /** query strings of the combined filter, each with a non-empty answer */
  combinedFilters: readonly string[];
  /** query strings of the searches beside the employer's question and the keyword (rotation.ts SeededData) */
  searchFilters: {
    locationPages: readonly string[];
    locationOccupation: readonly string[];
    employer: readonly string[];
    keywords: readonly string[];
  };
}

const get = (apiKey: string, requestPath: string): HttpRequest => ({
  method: 'GET',
  path: requestPath,
  headers: { 'x-api-key': apiKey },
});

const gzipped = (request: HttpRequest): HttpRequest => ({
  ...request,
  headers: { ...request.headers, 'accept-encoding': 'gzip' },
});

const post = (apiKey: string, requestPath: string, body: unknown): HttpRequest => ({
  method: 'POST',
  path: requestPath,
  headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

function fixed(
  key: string,
  label: string,
  kind: Scenario['kind'],
  request: HttpRequest,
  extra: Partial<Scenario> = {},
): Scenario {
  return { key, label, kind, heat: 'hot', next: () => request, dynamic: false, ...extra };
}

function rotating<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('nothing to rotate over');
  let i = 0;
  return () => items[i++ % items.length];
}

const noGraphQLErrors = (body: string): boolean => !body.startsWith('{"errors"');

/** The read scenarios, then the writing one. */
export function serviceScenarios(context: ScenarioContext): Scenario[] {
  const { apiKey } = context;
  const nextId = rotating(context.candidateIds);
  const nextList = rotating(context.savedListIds);
  const searchDocument = persistedOperation(path.join(REPO, 'schema', 'rest'), 'find-candidates.graphql');
  let registrations = 0;
  return [
    fixed('rest-search-10', 'REST search limit=10', 'REST', get(apiKey, '/v1/candidates?limit=10')),
    fixed('rest-search-100', 'REST search limit=100', 'REST', get(apiKey, '/v1/candidates?limit=100')),
    fixed(
      'rest-search-100-1c',
      'REST search limit=100, 1 connection (unloaded latency)',
      'REST',
      get(apiKey, '/v1/candidates?limit=100'),
      { connections: 1 },
    ),
    // The other end of the same search: its cost should not grow with the page number.
    ...(context.deepestFullPageOf100 !== undefined
      ? [
          fixed(
            'rest-search-100-1c-deepest',
            `REST search limit=100, deepest full page (page=${context.deepestFullPageOf100}), 1 connection (unloaded latency)`,
            'REST',
            get(apiKey, `/v1/candidates?limit=100&page=${context.deepestFullPageOf100}`),
            { connections: 1 },
          ),
        ]
      : []),
    // As partners' HTTP clients ask by default: the same page, compressed.
    fixed(
      'rest-search-100-gzip',
      'REST search limit=100, Accept-Encoding: gzip',
      'REST',
      gzipped(get(apiKey, '/v1/candidates?limit=100')),
    ),
    fixed('rest-filter-location', 'REST search location=LB', 'REST', get(apiKey, '/v1/candidates?location=LB')),
    fixed(
      'rest-filter-nationality',
      'REST search nationality=SY',
      'REST',
      get(apiKey, '/v1/candidates?nationality=SY'),
    ),
    fixed(
      'rest-filter-occupation',
      'REST search occupation=2221',
      'REST',
      get(apiKey, '/v1/candidates?occupation=2221'),
    ),
    fixed(
      'rest-filter-combined',
      'REST search location=LB,JO & nationality=SY & occupation=2221',
      'REST',
      get(apiKey, '/v1/candidates?location=LB,JO&nationality=SY&occupation=2221'),
    ),
    {
      key: 'rest-by-id',
      label: `REST by id (${context.candidateIds.length} ids rotated)`,
      kind: 'REST',
      heat: 'hot',
      dynamic: true,
      next: () => get(apiKey, `/v1/candidates/${nextId()}`),
    },
    {
      key: 'rest-by-list',
      label: `REST by saved list limit=100 (${context.savedListIds.length} lists rotated)`,
      kind: 'REST',
      heat: 'hot',
      dynamic: true,
      next: () => get(apiKey, `/v1/candidates/by-list/${nextList()}?limit=100`),
    },
    fixed(
      'graphql-search-100',
      'GraphQL search limit=100 (REST selection)',
      'GraphQL',
      post(apiKey, '/graphql', { query: searchDocument, variables: { limit: 100 } }),
      { verifyBody: noGraphQLErrors },
    ),
    fixed(
      'graphql-deep',
      `GraphQL deep page limit=${DEEP_QUERY_PAGE}`,
      'GraphQL',
      post(apiKey, '/graphql', { query: DEEP_QUERY, variables: { limit: DEEP_QUERY_PAGE } }),
      { verifyBody: noGraphQLErrors },
    ),
    statisticsScenario(apiKey, 1),
    statisticsScenario(apiKey, 2),
    {
      key: 'rest-register',
      label: 'REST register (writes, unique e-mails)',
      kind: 'REST',
      heat: 'cold',
      writes: true,
      dynamic: true,
      next: () =>
        post(apiKey, '/v1/candidates/register', registration(`bench-${context.runTag}-${++registrations}@example.org`)),
    },
  ];
}

/**
 * The statistics queries of the cold rows: every filter an analyst might start from (none; each
 * location, nationality and common occupation of the demo data; each with and without EMPLOYED)
 * with every dimension (or pair), in a fixed shuffled order, so that consecutive requests differ
 * and no request repeats within a run (there are more than a measured window sends).
 */
export function statisticsRequests(
  dimensionCount: 1 | 2,
): { filter: Record<string, string[]>; includeEmployed: boolean; groupBy: string[] }[] {
  const filters: Record<string, string[]>[] = [
    {},
    ...Object.keys(HOSTS).map((code) => ({ location: [code] })),
    ...Object.keys(ORIGINS).map((code) => ({ nationality: [code] })),
    ...COMMON_OCCUPATIONS.slice(0, 10).map((occupation) => ({ occupation: [occupation.code] })),
  ];
  const groupings =
    dimensionCount === 1
      ? DIMENSIONS.map((d) => [d])
      : DIMENSIONS.flatMap((d, i) => DIMENSIONS.slice(i + 1).map((e) => [d, e]));
  // A fixed shuffle: the same order in every run.
  return shuffled(
    filters.flatMap((filter) =>
      [false, true].flatMap((includeEmployed) => groupings.map((groupBy) => ({ filter, includeEmployed, groupBy }))),
    ),
  );
}

/** candidateStatistics by one or two dimensions, cold: every request distinct (see statisticsRequests), 1 connection. */
function statisticsScenario(apiKey: string, dimensionCount: 1 | 2): Scenario {
  const requests = statisticsRequests(dimensionCount);
  const next = rotating(requests);
  const what = dimensionCount === 1 ? 'one dimension' : 'two dimensions';
  return {
    key: `graphql-statistics-${dimensionCount}d-cold`,
    label: `GraphQL statistics, ${what}, cold (${requests.length} distinct filter × dimension queries rotated), 1 connection`,
    kind: 'GraphQL',
    heat: 'cold',
    connections: 1,
    dynamic: true,
    next: () => post(apiKey, '/graphql', { query: STATISTICS_QUERY, variables: next() }),
    verifyBody: noGraphQLErrors,
  };
}

/** A registration like a partner system sends: identity (test values only) and a profile with an occupation. */
export function registration(email: string): unknown {
  return {
    registrarId: 'benchmark',
    registrationData: {
      identity: { firstName: 'Bench', lastName: 'Mark', email },
      country: { isoCode: 'JO' },
      nationality: { isoCode: 'SY' },
      gender: 'FEMALE',
      city: 'Amman',
      yearOfArrival: 2016,
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 6 }],
      candidateLanguages: [{ language: { isoCode: 'ar' }, writtenLevel: { level: 6 }, spokenLevel: { level: 6 } }],
      maxEducationLevel: { level: 6 },
    },
  };
}

/** The same requests as REST by id (rotating ids, same headers) against a baseline server. */
export function baselineScenario(key: string, label: string, context: ScenarioContext): Scenario {
  const nextId = rotating(context.candidateIds);
  return {
    key,
    label,
    kind: 'baseline',
    heat: 'fixed body',
    dynamic: true,
    next: () => get(context.apiKey, `/v1/candidates/${nextId()}`),
  };
}

/**
 * The cold rows: every request distinct within a rotation longer than the read caches hold
 * (run.ts starts their service with caches that cannot hold it, see rotation.ts), the read
 * path a partner paging through the directory once, or a client asking for many candidates, gets.
 */
export function coldScenarios(context: ColdContext): Scenario[] {
  const { apiKey, searchPages } = context;
  const nextId = rotating(context.everyCandidateId);
  const nextFilter = rotating(context.combinedFilters);
  const { locationPages, locationOccupation, employer, keywords } = context.searchFilters;
  const nextLocationPage = rotating(locationPages);
  const nextLocationOccupation = rotating(locationOccupation);
  const nextEmployer = rotating(employer);
  const nextKeyword = rotating(keywords);
  let sequentialPage = 0;
  const stridedPage100 = stridedPages(searchPages.of100);
  const stridedPage20 = stridedPages(searchPages.of20);
  const cold = (scenario: Omit<Scenario, 'heat' | 'dynamic'>): Scenario => ({
    ...scenario,
    heat: 'cold',
    dynamic: true,
  });
  return [
    cold({
      key: 'rest-by-id-cold',
      label: `REST by id, cold (every candidate, ${context.everyCandidateId.length} ids rotated)`,
      kind: 'REST',
      next: () => get(apiKey, `/v1/candidates/${nextId()}`),
    }),
    cold({
      key: 'rest-search-100-cold',
      label: `REST search limit=100, cold (every page in order, ${searchPages.of100} pages rotated)`,
      kind: 'REST',
      next: () => get(apiKey, `/v1/candidates?limit=100&page=${sequentialPage++ % searchPages.of100}`),
    }),
    cold({
      key: 'rest-search-100-stride-cold',
      label: `REST search limit=100, cold (every page, stride ${strideFor(searchPages.of100)} of ${searchPages.of100} pages)`,
      kind: 'REST',
      next: () => get(apiKey, `/v1/candidates?limit=100&page=${stridedPage100()}`),
    }),
    cold({
      key: 'rest-filter-combined-cold',
      label: `REST search location=A,B & nationality=N & occupation=O, cold (${context.combinedFilters.length} non-empty combinations rotated)`,
      kind: 'REST',
      next: () => get(apiKey, `/v1/candidates?${nextFilter()}`),
    }),
    // Today's searches and the two of the new filters they are compared with (the goals), all at
    // the default page size: each rotation's requests distinct, its answers not empty.
    cold({
      key: 'rest-filter-location-cold',
      label: `REST search location=A, cold (every page of each host country, ${locationPages.length} pages rotated)`,
      kind: 'REST',
      next: () => get(apiKey, `/v1/candidates?${nextLocationPage()}`),
    }),
    cold({
      key: 'rest-filter-location-occupation-cold',
      label: `REST search location=A,B & occupation=O, cold (${locationOccupation.length} non-empty combinations rotated)`,
      kind: 'REST',
      next: () => get(apiKey, `/v1/candidates?${nextLocationOccupation()}`),
    }),
    cold({
      key: 'rest-filter-employer-cold',
      label: `REST search location=A,B & occupation=O & languages=L:level & minYearsExperience=Y, cold (${employer.length} non-empty questions rotated)`,
      kind: 'REST',
      next: () => get(apiKey, `/v1/candidates?${nextEmployer()}`),
    }),
    cold({
      key: 'rest-keyword-cold',
      label: `REST search keyword=…, cold (${keywords.length} searches of words of the candidates' text, one to three words each, rotated)`,
      kind: 'REST',
      next: () => get(apiKey, `/v1/candidates?${nextKeyword()}`),
    }),
    cold({
      key: 'graphql-deep-cold',
      label: `GraphQL deep page limit=${DEEP_QUERY_PAGE}, cold (every page, stride ${strideFor(searchPages.of20)} of ${searchPages.of20} pages)`,
      kind: 'GraphQL',
      next: () =>
        post(apiKey, '/graphql', { query: DEEP_QUERY, variables: { limit: DEEP_QUERY_PAGE, page: stridedPage20() } }),
      verifyBody: noGraphQLErrors,
    }),
  ];
}
