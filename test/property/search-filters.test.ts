import fc from 'fast-check';
import type { CandidateDoc, CandidateExamDoc, SavedListDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import { CandidateRepository } from '../../src/candidates/candidate-repository';
import { checkProperty, FUZZ_SEED, fuzzParameters, propertyCases } from '../support/arbitraries';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aCandidate, aSavedList, at } from '../support/builders';
import { rest, type RestResult } from '../support/rest-client';
import { modelSearch, type ModelFilter } from '../support/search-model';
import { TestClock } from '../support/test-clock';

/**
 * Random search filters (every field but the keyword: alone, together, matching no one,
 * codes in any case, pages past the end), each answered by GraphQL (`candidates`, and the first slice of
 * `candidatesConnection`) and by REST, against the same filter evaluated candidate by candidate
 * over every stored candidate (test/support/search-model.ts): the same ids, in the same order,
 * with the same totals. The candidates cover what the filters look at: languages at every level
 * (and none, and twice the same language), years with and without an occupation, education
 * levels, exams with numeric and other scores, birth years (and none), EMPLOYED ones.
 */

const CANDIDATES = 160;
/**
 * Filters per test, four tests: 1,000 filters in all with PROPERTY_RUNS=full (each filter is a
 * few requests' work, tens of seconds per test), 160 in the suite.
 */
const FILTERS_PER_TEST = propertyCases(40, 250);
/** A test's time: well above what the full count takes on a busy machine. */
const TEST_TIMEOUT_MS = FILTERS_PER_TEST > 100 ? 300_000 : 60_000;
/** Filters per run: one GraphQL request answers them all (aliases), REST one request each. */
const PER_RUN = 10;
/** Of each run's filters, the first this many are also read as a connection (its first slice). */
const AS_CONNECTION = 2;
const NOW = '2026-06-15T12:00:00Z';
const CURRENT_YEAR = 2026;

const COUNTRIES = ['JO', 'LB', 'TR', 'DE'];
const NATIONALITIES = ['SY', 'AF', 'SD'];
const OCCUPATIONS = ['2221', '2211', '5120', '7212'];
const LANGUAGES = ['en', 'ar', 'fr', 'de'];
const CEFR = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'] as const;
const EXAMS = ['IELTS_GEN', 'TOEFL', 'OET', 'OTHER'] as const;
const SCORES = ['6.5', '7', '5.5', ' 8 ', '100', '85.5', 'B', '7/9', '', '.5'];

/** The candidates of the test: every kind of value the filters look at, generated from one seed. */
function candidates(): CandidateDoc[] {
  const level = fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined, freq: 5 });
  const language = fc.record({
    languageIsoCode: fc.constantFrom(...LANGUAGES),
    spokenLevel: level,
    writtenLevel: level,
  });
  const occupation = fc.record({
    occupation: fc.record({ isco08Code: fc.constantFrom(...OCCUPATIONS) }),
    yearsExperience: fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined, freq: 5 }),
  });
  const exam: fc.Arbitrary<CandidateExamDoc> = fc.record({
    exam: fc.constantFrom(...EXAMS),
    score: fc.option(fc.constantFrom(...SCORES), { nil: undefined, freq: 6 }),
  });
  const candidate = fc.record({
    status: fc.constantFrom('ACTIVE', 'ACTIVE', 'PENDING', 'EMPLOYED'),
    countryIsoCode: fc.constantFrom(...COUNTRIES),
    nationalityIsoCode: fc.constantFrom(...NATIONALITIES),
    yearOfBirth: fc.option(fc.integer({ min: 1950, max: 2012 }), { nil: undefined, freq: 8 }),
    maxEducationLevel: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined, freq: 6 }),
    candidateLanguages: fc.array(language, { maxLength: 4 }),
    candidateOccupations: fc.array(occupation, { maxLength: 3 }),
    candidateExams: fc.array(exam, { maxLength: 2 }),
  });
  return fc.sample(candidate, { seed: FUZZ_SEED, numRuns: CANDIDATES }).map((fields, i) =>
    withoutUndefined(
      aCandidate({
        ...fields,
        // Three candidates per creation date: publicId decides their order.
        createdDate: at(Math.floor(i / 3)),
        candidateOccupations: fields.candidateOccupations.map((entry) => ({ ...entry, candidateJobExperiences: [] })),
      }),
    ),
  );
}

/** Optional fields absent rather than undefined (which the driver would store as null), as the service stores them. */
function withoutUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutUndefined) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, item]) => (item === undefined ? [] : [[key, withoutUndefined(item)]])),
  ) as T;
}

/** A code as a client may type it: any case, spaces around it. */
const typed = (codes: readonly string[]) =>
  fc
    .tuple(fc.constantFrom(...codes), fc.constantFrom('as is', 'lower', 'mixed', 'spaces'))
    .map(([code, how]) =>
      how === 'lower'
        ? code.toLowerCase()
        : how === 'mixed'
          ? code[0].toLowerCase() + code.slice(1)
          : how === 'spaces'
            ? ` ${code} `
            : code,
    );
const codes = (known: readonly string[], missing: string) =>
  fc.array(typed([...known, missing]), { minLength: 1, maxLength: 3 });

/** A range of integers: a minimum, a maximum, or both (the minimum at most the maximum). */
function range<K extends string>(
  min: K,
  max: K,
  lowest: number,
  highest: number,
): fc.Arbitrary<Partial<Record<K, number>>> {
  const value = fc.integer({ min: lowest, max: highest });
  return fc.oneof(
    value.map((v) => ({ [min]: v }) as Partial<Record<K, number>>),
    value.map((v) => ({ [max]: v }) as Partial<Record<K, number>>),
    fc
      .tuple(value, value)
      .map(([a, b]) => ({ [min]: Math.min(a, b), [max]: Math.max(a, b) }) as Partial<Record<K, number>>),
  );
}

describe('property: search filters against a brute-force evaluation, on GraphQL and REST', () => {
  let service: AppUnderTest;
  let reader: string;
  let stored: CandidateDoc[];
  let lists: SavedListDoc[];

  beforeAll(async () => {
    service = await startAppUnderTest({
      clock: new TestClock(NOW),
      config: { rateLimitReads: 1_000_000, graphqlMaxAliases: PER_RUN + AS_CONNECTION, graphqlMaxCost: 1_000_000 },
    });
    reader = await service.key('READ_CANDIDATE_DATA');
    const all = candidates();
    await new CandidateRepository(service.db).insertMany(all);
    lists = [
      aSavedList({ candidatePublicIds: all.filter((_, i) => i % 3 === 0).map((c) => c.publicId) }),
      aSavedList({ candidatePublicIds: all.filter((_, i) => i % 5 === 1).map((c) => c.publicId) }),
      aSavedList({ candidatePublicIds: [] }),
    ];
    await service.db.collection<SavedListDoc>(COLLECTIONS.savedLists).insertMany(lists.map((list) => ({ ...list })));
    // The model reads the candidates as stored.
    stored = await service.db
      .collection<CandidateDoc>(COLLECTIONS.candidates)
      .find({}, { projection: { _id: 0 } })
      .toArray();
  });

  afterAll(async () => {
    await service?.stop();
  });

  /** A saved list id: one of the lists, or one that names no list. */
  const listIds = () =>
    fc.array(fc.constantFrom(...lists.map((list) => list.publicId), 'AAAAAAAAAAAAAAAAAAAAAA'), {
      minLength: 1,
      maxLength: 2,
    });
  const languageRequirement = fc.record(
    {
      language: typed(LANGUAGES).map((code) => code.toLowerCase()),
      minSpokenLevel: fc.constantFrom(...CEFR),
      minWrittenLevel: fc.constantFrom(...CEFR),
    },
    { requiredKeys: ['language'] },
  );
  const examRequirement = fc.record(
    { exam: fc.constantFrom(...EXAMS), minScore: fc.constantFrom(0, 5, 6.5, 7, 8.5, 90, 100) },
    { requiredKeys: ['exam'] },
  );
  /** Every field of a filter, each as one arbitrary part. */
  const parts = (): fc.Arbitrary<ModelFilter>[] => [
    codes(COUNTRIES, 'FR').map((location) => ({ location })),
    codes(NATIONALITIES, 'IQ').map((nationality) => ({ nationality })),
    codes(OCCUPATIONS, '9999').map((occupation) => ({ occupation })),
    fc.array(languageRequirement, { minLength: 1, maxLength: 2 }).map((languages) => ({ languages })),
    range('minYearsExperience', 'maxYearsExperience', 0, 30),
    range('minEducationLevel', 'maxEducationLevel', 0, 8),
    range('minAge', 'maxAge', 0, 90),
    fc.array(examRequirement, { minLength: 1, maxLength: 2 }).map((exams) => ({ exams })),
    listIds().map((inSavedLists) => ({ inSavedLists })),
    listIds().map((notInSavedLists) => ({ notInSavedLists })),
  ];
  /** One field alone. */
  const aloneFilter = (): fc.Arbitrary<ModelFilter> => fc.oneof(...parts());
  /** Two or three fields together. */
  const combinedFilter = (): fc.Arbitrary<ModelFilter> =>
    fc
      .shuffledSubarray(parts(), { minLength: 2, maxLength: 3 })
      .chain((chosen) => fc.tuple(...chosen))
      .map((chosen) => Object.assign({}, ...chosen) as ModelFilter);
  const search = (filter: fc.Arbitrary<ModelFilter>) =>
    fc.record({
      filter,
      includeEmployed: fc.boolean(),
      // Mostly the first pages, and pages past the end too.
      page: fc.oneof(
        { weight: 3, arbitrary: fc.constant(0) },
        { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }) },
        { weight: 1, arbitrary: fc.integer({ min: 4, max: 20 }) },
      ),
      limit: fc.integer({ min: 1, max: 25 }),
    });
  type Search = { filter: ModelFilter; includeEmployed: boolean; page: number; limit: number };

  /** The REST query string of a search. */
  function restQuery({ filter: f, includeEmployed, page, limit }: Search): string {
    const params = new URLSearchParams({ page: String(page), limit: String(limit) });
    if (includeEmployed) params.set('includeEmployed', 'true');
    for (const name of ['location', 'nationality', 'occupation', 'inSavedLists', 'notInSavedLists'] as const)
      if (f[name]) params.set(name, f[name].join(','));
    if (f.languages)
      params.set(
        'languages',
        f.languages.map((l) => [l.language, l.minSpokenLevel ?? '', l.minWrittenLevel ?? ''].join(':')).join(','),
      );
    if (f.exams)
      params.set(
        'exams',
        f.exams.map((e) => (e.minScore === undefined ? e.exam : `${e.exam}:${e.minScore}`)).join(','),
      );
    for (const name of [
      'minYearsExperience',
      'maxYearsExperience',
      'minEducationLevel',
      'maxEducationLevel',
      'minAge',
      'maxAge',
    ] as const)
      if (f[name] !== undefined) params.set(name, String(f[name]));
    return params.toString();
  }

  interface Answer {
    totalElements: number;
    totalPages: number;
    ids: string[];
  }

  function expected({ filter: f, includeEmployed, page, limit }: Search): Answer {
    const found = modelSearch(stored, f, includeEmployed, { currentYear: CURRENT_YEAR, lists });
    return {
      totalElements: found.length,
      totalPages: Math.ceil(found.length / limit),
      ids: found.slice(page * limit, page * limit + limit).map((c) => c.publicId),
    };
  }

  /**
   * Searches FILTERS_PER_TEST filters of `filter` (PER_RUN at a time: one GraphQL request with
   * an alias each, one REST request each) and compares every answer with the model's; returns
   * how many found no one, and how many asked for a page past the end.
   */
  async function searchedAsTheModelSays(
    filter: fc.Arbitrary<ModelFilter>,
    seed: number,
  ): Promise<{ filters: number; empty: number; pastTheEnd: number }> {
    const checked = { filters: 0, empty: 0, pastTheEnd: 0 };
    const document = `query Searches(${Array.from(
      { length: PER_RUN },
      (_, i) => `$f${i}: CandidateFilter, $e${i}: Boolean, $p${i}: Int, $l${i}: Int`,
    ).join(', ')}) {
        ${Array.from(
          { length: PER_RUN },
          (_, i) => `
          s${i}: candidates(filter: $f${i}, includeEmployed: $e${i}, page: $p${i}, limit: $l${i}) { totalElements totalPages content { publicId } }
          ${i < AS_CONNECTION ? `c${i}: candidatesConnection(filter: $f${i}, includeEmployed: $e${i}, first: $l${i}) { totalCount edges { node { publicId } } }` : ''}`,
        ).join('\n')}
      }`;
    await checkProperty(
      fc.asyncProperty(fc.array(search(filter), { minLength: PER_RUN, maxLength: PER_RUN }), async (searches) => {
        const variables = Object.fromEntries(
          searches.flatMap((s, i) => [
            [`f${i}`, s.filter],
            [`e${i}`, s.includeEmployed],
            [`p${i}`, s.page],
            [`l${i}`, s.limit],
          ]),
        );
        const viaGraphql = await graphql<Record<string, unknown>>(service.url, document, variables, reader);
        // One request after the other, as one client sends them.
        const viaRest: RestResult<Record<string, unknown>>[] = [];
        for (const s of searches)
          viaRest.push(
            await rest<Record<string, unknown>>(service.url, 'GET', `/v1/candidates?${restQuery(s)}`, { key: reader }),
          );
        expect(viaGraphql.body.errors).toBeUndefined();
        searches.forEach((s, i) => {
          const want = expected(s);
          const page = viaGraphql.body.data![`s${i}`] as {
            totalElements: number;
            totalPages: number;
            content: { publicId: string }[];
          };
          const connection = viaGraphql.body.data![`c${i}`] as
            { totalCount: number; edges: { node: { publicId: string } }[] } | undefined;
          const restPage = viaRest[i];
          const restBody = restPage.body as {
            totalElements: number;
            totalPages: number;
            content: { publicId: string }[];
          };
          const got = {
            graphql: {
              totalElements: page.totalElements,
              totalPages: page.totalPages,
              ids: page.content.map((c) => c.publicId),
            },
            rest: {
              status: restPage.status,
              totalElements: restBody.totalElements,
              totalPages: restBody.totalPages,
              ids: restBody.content?.map((c) => c.publicId),
            },
            connection: connection && {
              totalCount: connection.totalCount,
              ids: connection.edges.map((e) => e.node.publicId),
            },
          };
          const first = expected({ ...s, page: 0 });
          expect({ search: s, ...got }).toEqual({
            search: s,
            graphql: want,
            rest: { status: 200, ...want },
            connection: i < AS_CONNECTION ? { totalCount: want.totalElements, ids: first.ids } : undefined,
          });
          checked.filters++;
          if (want.totalElements === 0) checked.empty++;
          else if (want.ids.length === 0) checked.pastTheEnd++;
        });
      }),
      { ...fuzzParameters(FILTERS_PER_TEST / PER_RUN, TEST_TIMEOUT_MS - 20_000, 30_000), seed: FUZZ_SEED + seed },
    );

    return checked;
  }

  /** Each test's runs covered what they are meant to: none was cut short, some found no one, some were past the end. */
  function expectCoverage(checked: { filters: number; empty: number; pastTheEnd: number }): void {
    expect(checked.filters).toBe(FILTERS_PER_TEST);
    expect(checked.empty).toBeGreaterThan(FILTERS_PER_TEST / 20);
    expect(checked.pastTheEnd).toBeGreaterThan(FILTERS_PER_TEST / 20);
    expect(checked.filters - checked.empty - checked.pastTheEnd).toBeGreaterThan(FILTERS_PER_TEST / 4);
  }

  test(
    `when ${FILTERS_PER_TEST} random filters of one field each are searched on GraphQL (page and connection) and REST, then every answer is the brute-force evaluation's: ids, order and totals`,
    async () => {
      expectCoverage(await searchedAsTheModelSays(aloneFilter(), 0));
    },
    TEST_TIMEOUT_MS,
  );

  test.each([1, 2, 3])(
    `when ${FILTERS_PER_TEST} random filters of several fields (run %i) are searched on GraphQL (page and connection) and REST, then every answer is the brute-force evaluation's: ids, order and totals`,
    async (seed) => {
      expectCoverage(await searchedAsTheModelSays(combinedFilter(), seed));
    },
    TEST_TIMEOUT_MS,
  );
});
