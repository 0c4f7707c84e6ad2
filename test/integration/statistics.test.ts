/**
 * candidateStatistics over the real GraphQL transport and the real store: counts computed in the
 * store from a data set this file builds, checked against the true counts the test computes
 * itself from the same data. Counts are checked at ε = 10, where the noise is almost always
 * 0 and never beyond NOISE_BOUND; the privacy of ε = 1 is checked by statistics-differencing.test.ts
 * and the budget by statistics-budget.test.ts. Permissions; the audit trail; bad input.
 */
import type { AuditEventDoc } from '../../src/audit/audit-event';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import { hashApiKey } from '../../src/auth/api-key-format';
import type { CandidateDoc, CandidateStatus, Gender } from 'candidate-documents';
import { CandidateRepository } from '../../src/candidates/candidate-repository';
import { halfWidth } from '../../src/statistics/noise-intervals';
import { startAppUnderTest, graphql, type AppUnderTest, type GraphQLResponse } from '../support/app-under-test';
import { aCandidate } from '../support/builders';
import { rest } from '../support/rest-client';

/** ε of the accuracy checks: noise of scale 2/10 (4/10 with a multi-valued dimension)... */
const EPSILON = 10;
/**
 * ...beyond which it goes with probability below e^-30 at scale 0.4, and about e^-12 per number at
 * scale 1 (two multi-valued dimensions: under 1 in 500 runs over their few hundred listed cells).
 */
const NOISE_BOUND = 12;
/** The app's clock: age bands are computed in this year. */
const NOW = new Date(Date.UTC(2030, 5, 1));

/** A small deterministic PRNG, so the data set (and a failure) reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * 400 candidates with the awkward cases: missing values, no occupation or language, an
 * occupation listed twice, a year of birth in the future, a rare one (1942: a small age band),
 * EMPLOYED candidates, and a location (TR) of only six candidates that are not EMPLOYED.
 */
function dataSet(): CandidateDoc[] {
  const next = random(16);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  const candidates: CandidateDoc[] = [];
  for (let i = 0; i < 400; i++) {
    const occupations = Array.from({ length: Math.floor(next() * 4) }, () => pick(['2221', '2211', '7126', '5120']));
    if (occupations.length > 0 && next() < 0.2) occupations.push(occupations[0]);
    const languages = [...new Set(Array.from({ length: Math.floor(next() * 3) }, () => pick(['ar', 'en', 'fr'])))];
    const candidate = aCandidate({
      createdDate: new Date(Date.UTC(pick([2021, 2022, 2023, 2024]), Math.floor(next() * 12), 1 + (i % 28))),
      status: pick<CandidateStatus>(['ACTIVE', 'ACTIVE', 'ACTIVE', 'PENDING', 'EMPLOYED']),
      countryIsoCode: pick(['LB', 'LB', 'JO']),
      nationalityIsoCode: pick(['SY', 'SY', 'IQ', 'AF']),
      candidateOccupations: occupations.map((code) => ({ occupation: { isco08Code: code }, yearsExperience: 2 })),
      candidateLanguages: languages.map((code) => ({ languageIsoCode: code, writtenLevel: 4, spokenLevel: 5 })),
    });
    const gender = pick<Gender | undefined>(['MALE', 'FEMALE', 'FEMALE', 'OTHER', undefined]);
    if (gender) candidate.gender = gender;
    else delete candidate.gender;
    const education = pick([3, 6, 6, 7, undefined]);
    if (education !== undefined) candidate.maxEducationLevel = education;
    const arrival = pick([2014, 2015, 2016, 2017, undefined]);
    if (arrival !== undefined) candidate.yearOfArrival = arrival;
    const born = pick([1965, 1978, 1985, 1989, 1990, 1996, 2001, 2035, undefined]);
    if (i % 50 === 0) candidate.yearOfBirth = 1942;
    else if (born !== undefined) candidate.yearOfBirth = born;
    else delete candidate.yearOfBirth;
    candidates.push(candidate);
  }
  for (let i = 0; i < 6; i++)
    candidates.push(aCandidate({ countryIsoCode: 'TR', nationalityIsoCode: 'AF', status: 'ACTIVE' }));
  candidates.push(aCandidate({ countryIsoCode: 'TR', nationalityIsoCode: 'AF', status: 'EMPLOYED' }));
  return candidates;
}

const DATA = dataSet();

type Dimension =
  | 'LOCATION'
  | 'NATIONALITY'
  | 'OCCUPATION'
  | 'STATUS'
  | 'GENDER'
  | 'EDUCATION_LEVEL'
  | 'LANGUAGE'
  | 'YEAR_OF_ARRIVAL'
  | 'REGISTRATION_YEAR'
  | 'AGE_BAND';

/** The codes a candidate has in a dimension, as the SDL defines them (the test's own statement of the rule). */
function codesOf(candidate: CandidateDoc, dimension: Dimension): string[] {
  const one = (value: string | number | null | undefined): string[] => [
    value === undefined || value === null ? 'UNKNOWN' : String(value),
  ];
  // The first 3 distinct values of the list, in its order.
  const many = (values: string[]): string[] => (values.length === 0 ? ['UNKNOWN'] : [...new Set(values)].slice(0, 3));
  switch (dimension) {
    case 'LOCATION':
      return one(candidate.countryIsoCode);
    case 'NATIONALITY':
      return one(candidate.nationalityIsoCode);
    case 'OCCUPATION':
      return many((candidate.candidateOccupations ?? []).map((o) => o.occupation!.isco08Code));
    case 'STATUS':
      return one(candidate.status);
    case 'GENDER':
      return one(candidate.gender);
    case 'EDUCATION_LEVEL':
      return one(candidate.maxEducationLevel);
    case 'LANGUAGE':
      return many((candidate.candidateLanguages ?? []).map((l) => l.languageIsoCode!));
    case 'YEAR_OF_ARRIVAL':
      return one(candidate.yearOfArrival);
    case 'REGISTRATION_YEAR':
      return one(candidate.createdDate.getUTCFullYear());
    case 'AGE_BAND': {
      if (candidate.yearOfBirth === undefined) return ['UNKNOWN'];
      const age = NOW.getUTCFullYear() - candidate.yearOfBirth;
      if (age < 0) return ['UNKNOWN'];
      const low = Math.floor(age / 10) * 10;
      return [`${low}-${low + 9}`];
    }
  }
}

interface Filter {
  location?: string[];
  nationality?: string[];
  occupation?: string[];
}

function selected(filter: Filter, includeEmployed: boolean): CandidateDoc[] {
  return DATA.filter(
    (c) =>
      (includeEmployed || c.status !== 'EMPLOYED') &&
      (!filter.location || filter.location.includes(c.countryIsoCode!)) &&
      (!filter.nationality || filter.nationality.includes(c.nationalityIsoCode!)) &&
      (!filter.occupation ||
        (c.candidateOccupations ?? []).some((o) => filter.occupation!.includes(o.occupation!.isco08Code))),
  );
}

/** True counts per combination of codes (joined by "|"). */
function trueCounts(filter: Filter, includeEmployed: boolean, groupBy: Dimension[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const candidate of selected(filter, includeEmployed)) {
    let combinations: string[][] = [[]];
    for (const dimension of groupBy)
      combinations = combinations.flatMap((prefix) => codesOf(candidate, dimension).map((code) => [...prefix, code]));
    for (const combination of combinations)
      counts.set(combination.join('|'), (counts.get(combination.join('|')) ?? 0) + 1);
  }
  return counts;
}

interface Interval {
  low: number;
  high: number;
}

interface Statistics {
  total: number;
  totalInterval: Interval;
  confidence: number;
  sensitivity: number;
  answeredAt: string;
  question: {
    locations: string[];
    nationalities: string[];
    occupations: string[];
    includeEmployed: boolean;
    groupBy: Dimension[];
    epsilon: number;
  };
  cells: { count: number; interval: Interval; values: { dimension: Dimension; code: string; label: string }[] }[];
  suppressedCells: number;
  minimumCellSize: number;
  rounding: number;
  epsilon: number;
  epsilonCharged: number;
}

const QUERY = `query Stats($filter: CandidateFilter, $includeEmployed: Boolean, $groupBy: [CandidateDimension!]!, $epsilon: Float) {
  candidateStatistics(filter: $filter, includeEmployed: $includeEmployed, groupBy: $groupBy, epsilon: $epsilon) {
    total suppressedCells minimumCellSize rounding epsilon epsilonCharged
    totalInterval { low high } confidence sensitivity answeredAt
    question { locations nationalities occupations includeEmployed groupBy epsilon }
    cells { count interval { low high } values { dimension code label } }
  }
}`;

describe('candidateStatistics', () => {
  let service: AppUnderTest;
  let analyst: string;

  beforeAll(async () => {
    service = await startAppUnderTest({
      clock: { now: () => NOW },
      config: { statisticsBudget: 1_000_000 },
    });
    await new CandidateRepository(service.db).insertMany(DATA);
    analyst = await service.key('READ_STATISTICS');
  });

  afterAll(async () => {
    await service.stop();
  });

  const statistics = (
    variables: { filter?: Filter; includeEmployed?: boolean; groupBy: Dimension[]; epsilon?: number },
    key = analyst,
  ): Promise<GraphQLResponse<{ candidateStatistics: Statistics }>> =>
    graphql<{ candidateStatistics: Statistics }>(service.url, QUERY, { epsilon: EPSILON, ...variables }, key);

  async function published(variables: {
    filter?: Filter;
    includeEmployed?: boolean;
    groupBy: Dimension[];
    epsilon?: number;
  }): Promise<Statistics> {
    const { body } = await statistics(variables);
    expect(body.errors).toBeUndefined();
    return body.data!.candidateStatistics;
  }

  /**
   * The answer against the true counts: every listed cell within minimumCellSize + NOISE_BOUND of its true count
   * and at least minimumCellSize; every combination whose true count is NOISE_BOUND above
   * minimumCellSize listed; the total within NOISE_BOUND; the order by noisy count, then codes.
   */
  function assertPublished(answer: Statistics, filter: Filter, includeEmployed: boolean, groupBy: Dimension[]): void {
    const counts = trueCounts(filter, includeEmployed, groupBy);
    const got = new Map(answer.cells.map((cell) => [cell.values.map((value) => value.code).join('|'), cell.count]));
    for (const [codes, count] of got) {
      // A combination is listed when its noisy count reaches minimumCellSize, empty ones too (the
      // threshold allows about one per answer): such a cell is off by at least the threshold, and
      // the largest noise of all the combinations by at most NOISE_BOUND more.
      expect(Math.abs(count - (counts.get(codes) ?? 0))).toBeLessThanOrEqual(answer.minimumCellSize + NOISE_BOUND);
      expect(count).toBeGreaterThanOrEqual(answer.minimumCellSize);
    }
    for (const [codes, count] of counts)
      if (count >= answer.minimumCellSize + NOISE_BOUND) expect([codes, got.has(codes)]).toEqual([codes, true]);
    expect(Math.abs(answer.total - selected(filter, includeEmployed).length)).toBeLessThanOrEqual(NOISE_BOUND);
    expect(answer).toMatchObject({ suppressedCells: 0, rounding: 1, epsilon: EPSILON });
    for (const cell of answer.cells) expect(cell.values.map((value) => value.dimension)).toEqual(groupBy);
    const order = answer.cells.map((cell) => [cell.count, cell.values.map((value) => value.code)] as const);
    const sorted = [...order].sort(
      (a, b) => b[0] - a[0] || (a[1].join('|') < b[1].join('|') ? -1 : a[1].join('|') > b[1].join('|') ? 1 : 0),
    );
    expect(order).toEqual(sorted);
  }

  test.each<Dimension>([
    'LOCATION',
    'NATIONALITY',
    'OCCUPATION',
    'STATUS',
    'GENDER',
    'EDUCATION_LEVEL',
    'LANGUAGE',
    'YEAR_OF_ARRIVAL',
    'REGISTRATION_YEAR',
    'AGE_BAND',
  ])(
    'when counted by %s, then every listed count is the true count plus bounded noise, and every large cell is listed',
    async (dimension) => {
      // Act
      const answer = await published({ groupBy: [dimension] });

      // Assert
      assertPublished(answer, {}, false, [dimension]);
      expect(answer.cells.length).toBeGreaterThan(0);
    },
  );

  test('when a dimension has unknown values, then the data set really has UNKNOWN cells and candidates with more than 3 occupations (the tests above exercise both)', () => {
    // Assert
    expect(trueCounts({}, false, ['OCCUPATION']).has('UNKNOWN')).toBe(true);
    expect(trueCounts({}, false, ['AGE_BAND']).has('UNKNOWN')).toBe(true);
    expect(DATA.some((c) => (c.candidateOccupations ?? []).length > 3)).toBe(true);
  });

  test.each<[string, Filter, boolean, Dimension[]]>([
    ['LOCATION by OCCUPATION', {}, false, ['LOCATION', 'OCCUPATION']],
    ['OCCUPATION by LANGUAGE (two multi-valued dimensions)', {}, false, ['OCCUPATION', 'LANGUAGE']],
    ['NATIONALITY by AGE_BAND, in LB, EMPLOYED included', { location: ['LB'] }, true, ['NATIONALITY', 'AGE_BAND']],
    ['OCCUPATION by GENDER, filtered on occupation', { occupation: ['2221', '7126'] }, false, ['OCCUPATION', 'GENDER']],
    [
      'LANGUAGE by REGISTRATION_YEAR, filtered on nationality and occupation',
      { nationality: ['SY', 'IQ'], occupation: ['2211', '5120'] },
      false,
      ['LANGUAGE', 'REGISTRATION_YEAR'],
    ],
  ])(
    'when two dimensions are combined (%s), then each cell counts the candidates with both values, plus bounded noise',
    async (_name, filter, includeEmployed, groupBy) => {
      // Act
      const answer = await published({ filter, includeEmployed, groupBy });

      // Assert
      assertPublished(answer, filter, includeEmployed, groupBy);
      expect(answer.cells.length).toBeGreaterThan(0);
    },
  );

  test('when the same query runs again, then the answer is the same stored answer, at no cost (no noise to average away)', async () => {
    // Act
    const first = await published({ groupBy: ['NATIONALITY', 'LANGUAGE'], epsilon: 1 });
    const second = await published({ groupBy: ['NATIONALITY', 'LANGUAGE'], epsilon: 1 });

    // Assert
    expect(first.epsilonCharged).toBe(1);
    expect(second).toEqual({ ...first, epsilonCharged: 0 });
  });

  test('when a query differs only in ε, then it is a new query with its own noise and its own charge', async () => {
    // Act
    const first = await published({ groupBy: ['GENDER'], epsilon: 0.5 });
    const second = await published({ groupBy: ['GENDER'], epsilon: 0.501 });

    // Assert
    expect([first.epsilonCharged, second.epsilonCharged]).toEqual([0.5, 0.501]);
  });

  test('when questions differ only in a filter field beyond the codes (ages, a keyword, languages), then each is a question of its own: charged, echoed and audited with it', async () => {
    // Arrange
    const key = await service.key('READ_STATISTICS');
    const record = await service.db.collection('apiKeys').findOne({ keyHash: hashApiKey(key) });
    const ask = async (filter: Record<string, unknown>) => {
      const { body } = await graphql<{
        candidateStatistics: { epsilonCharged: number; question: Record<string, unknown> };
      }>(
        service.url,
        `
          query Aged($filter: CandidateFilter) {
            candidateStatistics(filter: $filter, groupBy: [GENDER], epsilon: 0.25) {
              epsilonCharged
              question {
                minAge
                maxAge
                keyword
                languages {
                  language
                  minSpokenLevel
                  minWrittenLevel
                }
              }
            }
          }
        `,
        { filter },
        key,
      );
      expect(body.errors).toBeUndefined();
      return body.data!.candidateStatistics;
    };

    // Act
    const answers = [
      await ask({ minAge: 30 }),
      await ask({ minAge: 31 }),
      await ask({ minAge: 30, keyword: ' nurse ' }),
      await ask({ minAge: 30, languages: [{ language: ' EN ', minSpokenLevel: 'B1' }] }),
      await ask({ minAge: 30 }),
    ];
    let events: AuditEventDoc[] = [];
    for (let round = 0; round < 100 && events.length < answers.length; round++) {
      events = await service.db
        .collection<AuditEventDoc>(AUDIT_COLLECTION)
        .find({ apiKeyId: String(record!.id) })
        .toArray();
      if (events.length < answers.length) await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // Assert: four questions charged, the fifth the first again
    expect(answers.map((answer) => answer.epsilonCharged)).toEqual([0.25, 0.25, 0.25, 0.25, 0]);
    expect(answers.map((answer) => answer.question)).toEqual([
      { minAge: 30, maxAge: null, keyword: null, languages: null },
      { minAge: 31, maxAge: null, keyword: null, languages: null },
      { minAge: 30, maxAge: null, keyword: 'nurse', languages: null },
      {
        minAge: 30,
        maxAge: null,
        keyword: null,
        languages: [{ language: 'en', minSpokenLevel: 'B1', minWrittenLevel: null }],
      },
      { minAge: 30, maxAge: null, keyword: null, languages: null },
    ]);
    const audited = events.map((event) => event.statisticsQueries?.[0]?.filter);
    // Ages as the years of birth they select, the keyword trimmed, languages as the stored levels they accept.
    expect(new Set(audited.map((filter) => JSON.stringify(filter))).size).toBe(4);
    for (const filter of audited) expect(filter).toHaveProperty('birthYears');
  });

  test('when a filter is given, then it selects what the same filter selects in candidates', async () => {
    // Arrange
    const reader = await service.key('READ_CANDIDATE_DATA');
    const filter = { location: [' lb '], occupation: ['2221'] };

    // Act
    const answer = await published({ filter, groupBy: [] });
    const search = await graphql<{ candidates: { totalElements: number } }>(
      service.url,
      'query($filter: CandidateFilter) { candidates(filter: $filter) { totalElements } }',
      { filter },
      reader,
    );

    // Assert
    const total = search.body.data!.candidates.totalElements;
    expect(total).toBe(selected({ location: ['LB'], occupation: ['2221'] }, false).length);
    expect(total).toBeGreaterThanOrEqual(10);
    expect(Math.abs(answer.total - total)).toBeLessThanOrEqual(NOISE_BOUND);
    expect(answer.cells).toEqual([{ values: [], count: answer.total, interval: answer.totalInterval }]);
  });

  test('when the filtered population is tiny, then the answer has the same shape as any other: whether cells are listed does not depend on a true count', async () => {
    // Arrange
    expect(selected({ location: ['TR'] }, false)).toHaveLength(6);

    // Act
    const tiny = await published({ filter: { location: ['TR'] }, groupBy: ['GENDER'] });
    const large = await published({ filter: { location: ['LB'] }, groupBy: ['GENDER'] });

    // Assert
    expect(tiny.total).toEqual(expect.any(Number));
    expect(tiny.minimumCellSize).toBe(large.minimumCellSize);
    expect(tiny).toMatchObject({ suppressedCells: 0, rounding: 1, epsilonCharged: EPSILON });
    assertPublished(tiny, { location: ['TR'] }, false, ['GENDER']);
  });

  test('when cells are published, then they carry labels from the reference data', async () => {
    // Act
    const answer = await published({ filter: { location: ['LB'] }, groupBy: ['LOCATION', 'EDUCATION_LEVEL'] });

    // Assert
    const values = answer.cells.flatMap((cell) => cell.values);
    expect(values).toContainEqual({ dimension: 'LOCATION', code: 'LB', label: 'Lebanon' });
    expect(values).toContainEqual({ dimension: 'EDUCATION_LEVEL', code: '6', label: "Bachelor's or equivalent level" });
  });

  test.each<[Dimension[], number]>([
    [[], 1],
    [['GENDER'], 2],
    [['LOCATION', 'AGE_BAND'], 2],
    [['LANGUAGE'], 4],
    [['OCCUPATION', 'STATUS'], 4],
    [['OCCUPATION', 'LANGUAGE'], 10],
  ])(
    'when counted by %j, then Δ is %i and every number carries the exact 95 %% interval of its noise (how often it holds the truth: test/unit/statistics-intervals.test.ts)',
    async (groupBy, sensitivity) => {
      // Act: at ε = 1, where the intervals are wide enough to see
      const answer = await published({ groupBy, epsilon: 1 });

      // Assert
      const width = halfWidth(1, sensitivity);
      // At ε = 1, the half-widths docs/analysts.md gives for each Δ.
      expect(width).toBe({ 1: 3, 2: 6, 4: 12, 10: 30 }[sensitivity]);
      const around = (count: number) => ({ low: Math.max(0, count - width), high: count + width });
      expect(answer).toMatchObject({ sensitivity, confidence: 0.95, epsilon: 1 });
      expect(answer.totalInterval).toEqual(around(answer.total));
      for (const cell of answer.cells) expect(cell.interval).toEqual(around(cell.count));
    },
  );

  test("when a question is previewed and then run, then the preview said the answer's Δ, interval widths, minimum cell size and charge", async () => {
    // Arrange
    const question = {
      filter: { nationality: ['SY'] },
      groupBy: ['LOCATION', 'LANGUAGE'] as Dimension[],
      epsilon: 5,
    };

    // Act
    const { body } = await graphql<{ candidateStatisticsPreview: Record<string, unknown> }>(
      service.url,
      `
        query ($filter: CandidateFilter, $groupBy: [CandidateDimension!]!, $epsilon: Float) {
          candidateStatisticsPreview(filter: $filter, groupBy: $groupBy, epsilon: $epsilon) {
            question {
              locations
              nationalities
              occupations
              includeEmployed
              groupBy
              epsilon
            }
            epsilon
            epsilonCharged
            sensitivity
            confidence
            totalHalfWidth
            cellHalfWidth
            minimumCellSize
            combinations
            refused
          }
        }
      `,
      question,
      analyst,
    );
    const answer = await published(question);

    // Assert
    expect(body.errors).toBeUndefined();
    const width = answer.totalInterval.high - answer.total;
    expect(body.data!.candidateStatisticsPreview).toEqual({
      question: answer.question,
      epsilon: 5,
      epsilonCharged: answer.epsilonCharged,
      sensitivity: answer.sensitivity,
      confidence: answer.confidence,
      totalHalfWidth: width,
      cellHalfWidth: answer.cells[0].interval.high - answer.cells[0].count,
      minimumCellSize: answer.minimumCellSize,
      // every country and language of the reference data, and UNKNOWN in each
      combinations: expect.any(Number),
      refused: false,
    });
    expect(answer.question).toEqual({
      locations: [],
      nationalities: ['SY'],
      occupations: [],
      includeEmployed: false,
      groupBy: ['LOCATION', 'LANGUAGE'],
      epsilon: 5,
    });
    expect(width).toBe(halfWidth(5, 4));
    expect(answer.cells.length).toBeGreaterThan(0);
    expect(body.data!.candidateStatisticsPreview.combinations).toBeGreaterThan(200 * 100);
    expect(answer.answeredAt).toBe(NOW.toISOString());
  });

  describe('permissions', () => {
    test('when a key holds only READ_STATISTICS, then it can run statistics and nothing that returns a candidate', async () => {
      // Arrange
      const someone = DATA[0].publicId;

      // Act
      const stats = await statistics({ groupBy: ['LOCATION'] });
      const reads = await Promise.all([
        graphql(service.url, '{ candidates { totalElements content { publicId } } }', {}, analyst),
        graphql(service.url, '{ candidatesConnection(first: 1) { totalCount } }', {}, analyst),
        graphql(
          service.url,
          'query($id: PublicId!) { candidate(publicId: $id) { publicId } }',
          { id: someone },
          analyst,
        ),
      ]);
      const restSearch = await rest(service.url, 'GET', '/v1/candidates', { key: analyst });
      const restById = await rest(service.url, 'GET', `/v1/candidates/${someone}`, { key: analyst });

      // Assert
      expect(stats.body.errors).toBeUndefined();
      expect(stats.body.data!.candidateStatistics.total).toBeGreaterThan(0);
      for (const read of reads) {
        expect(read.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
        expect(JSON.stringify(read.body)).not.toContain(someone);
      }
      expect(restSearch.status).toBe(403);
      expect(restById.status).toBe(403);
    });

    test('when a key holds only READ_CANDIDATE_DATA, then statistics, their preview and the budget are FORBIDDEN', async () => {
      // Arrange
      const reader = await service.key('READ_CANDIDATE_DATA');

      // Act
      const { body } = await statistics({ groupBy: ['LOCATION'] }, reader);
      const ahead = await graphql(
        service.url,
        '{ candidateStatisticsPreview(groupBy: [LOCATION]) { refused } }',
        {},
        reader,
      );
      const budget = await graphql(service.url, '{ statisticsBudget { remaining } }', {}, reader);

      // Assert
      expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(body.data?.candidateStatistics ?? null).toBeNull();
      expect(ahead.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(budget.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    });

    test('when a key holds ADMIN, then it can run statistics (ADMIN implies READ_STATISTICS)', async () => {
      // Arrange
      const admin = await service.key('ADMIN');

      // Act
      const { body } = await statistics({ groupBy: ['STATUS'] }, admin);

      // Assert
      expect(body.errors).toBeUndefined();
      expect(body.data!.candidateStatistics.cells.length).toBeGreaterThan(0);
    });
  });

  test('when a statistics query runs, then the audit trail records the key, the filter, the dimensions and the ε charged, and no result', async () => {
    // Arrange
    const key = await service.key('READ_STATISTICS');
    const record = await service.db.collection('apiKeys').findOne({ keyHash: hashApiKey(key) });
    const apiKeyId = String(record!.id);

    // Act
    const answer = await statistics(
      { filter: { nationality: ['sy', ' IQ'], occupation: ['2221'] }, groupBy: ['LOCATION', 'GENDER'] },
      key,
    );
    let events: AuditEventDoc[] = [];
    for (let round = 0; round < 100 && events.length === 0; round++) {
      events = await service.db
        .collection<AuditEventDoc>(AUDIT_COLLECTION)
        .find({ apiKeyId }, { projection: { _id: 0 } })
        .toArray();
      if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // Assert
    expect(answer.body.errors).toBeUndefined();
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({
      apiKeyId,
      transport: 'GRAPHQL',
      operation: 'Stats',
      rootFields: ['Query.candidateStatistics'],
      candidatePublicIds: [],
      status: 200,
    });
    // Timed by the app's clock, as the age bands are.
    expect(event.time).toEqual(NOW);
    expect(event.statisticsQueries).toEqual([
      {
        locations: [],
        // In canonical (sorted) order: the form repeats are recognised by.
        nationalities: ['IQ', 'SY'],
        occupations: ['2221'],
        includeEmployed: false,
        groupBy: ['LOCATION', 'GENDER'],
        epsilonCharged: EPSILON,
      },
    ]);
    // Nothing of the answer is kept: the event has the usual fields and the query, nothing else.
    expect(Object.keys(event).sort()).toEqual([
      'apiKeyId',
      'candidatePublicIds',
      'eventId',
      'operation',
      'requestId',
      'rootFields',
      'statisticsQueries',
      'status',
      'time',
      'transport',
    ]);
    expect(answer.body.data!.candidateStatistics.total).toEqual(expect.any(Number));

    // The ADMIN view of the trail shows it too.
    const admin = await service.key('ADMIN');
    const trail = await graphql<{ auditEvents: { edges: { node: { statisticsQueries: unknown[] } }[] } }>(
      service.url,
      'query($id: String) { auditEvents(apiKeyId: $id) { edges { node { statisticsQueries { locations nationalities occupations includeEmployed groupBy epsilonCharged } } } } }',
      { id: apiKeyId },
      admin,
    );
    expect(trail.body.data!.auditEvents.edges.map((edge) => edge.node.statisticsQueries)).toEqual([
      event.statisticsQueries,
    ]);
  });

  test('when a question is previewed, then the audit trail records it as a preview that charged nothing', async () => {
    // Arrange
    const key = await service.key('READ_STATISTICS');
    const record = await service.db.collection('apiKeys').findOne({ keyHash: hashApiKey(key) });
    const apiKeyId = String(record!.id);

    // Act
    const { body } = await graphql(
      service.url,
      'query Ahead { candidateStatisticsPreview(filter: { location: ["lb"] }, groupBy: [GENDER], epsilon: 2) { epsilonCharged } }',
      {},
      key,
    );
    let events: AuditEventDoc[] = [];
    for (let round = 0; round < 100 && events.length === 0; round++) {
      events = await service.db.collection<AuditEventDoc>(AUDIT_COLLECTION).find({ apiKeyId }).toArray();
      if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // Assert
    expect(body).toEqual({ data: { candidateStatisticsPreview: { epsilonCharged: 2 } } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ operation: 'Ahead', rootFields: ['Query.candidateStatisticsPreview'] });
    expect(events[0].statisticsQueries).toEqual([
      {
        locations: ['LB'],
        nationalities: [],
        occupations: [],
        includeEmployed: false,
        groupBy: ['GENDER'],
        epsilonCharged: 0,
        preview: true,
      },
    ]);
    const admin = await service.key('ADMIN');
    const trail = await graphql<{ auditEvents: { edges: { node: { statisticsQueries: unknown[] } }[] } }>(
      service.url,
      'query($id: String) { auditEvents(apiKeyId: $id) { edges { node { statisticsQueries { groupBy epsilonCharged preview } } } } }',
      { id: apiKeyId },
      admin,
    );
    expect(trail.body.data!.auditEvents.edges.map((edge) => edge.node.statisticsQueries)).toEqual([
      [{ groupBy: ['GENDER'], epsilonCharged: 0, preview: true }],
    ]);
  });

  test.each<[string, Record<string, unknown>]>([
    ['three dimensions', { groupBy: ['LOCATION', 'GENDER', 'STATUS'] }],
    ['the same dimension twice', { groupBy: ['LOCATION', 'LOCATION'] }],
    ['a malformed code in the filter', { groupBy: ['LOCATION'], filter: { location: ['Lebanon'] } }],
    ['an ε of 0', { groupBy: ['LOCATION'], epsilon: 0 }],
    ['an ε with four decimals', { groupBy: ['LOCATION'], epsilon: 0.0005 }],
    ['an ε above 10', { groupBy: ['LOCATION'], epsilon: 11 }],
  ])(
    'when the query asks %s, then the answer is BAD_USER_INPUT and nothing is counted, and its preview is refused alike',
    async (_name, variables) => {
      // Act
      const { body } = await graphql<{ candidateStatistics: Statistics }>(service.url, QUERY, variables, analyst);
      const ahead = await graphql<{ candidateStatisticsPreview: unknown }>(
        service.url,
        `
          query ($filter: CandidateFilter, $groupBy: [CandidateDimension!]!, $epsilon: Float) {
            candidateStatisticsPreview(filter: $filter, groupBy: $groupBy, epsilon: $epsilon) {
              refused
            }
          }
        `,
        variables,
        analyst,
      );

      // Assert
      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(body.data?.candidateStatistics ?? null).toBeNull();
      expect(ahead.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(ahead.body.data?.candidateStatisticsPreview ?? null).toBeNull();
    },
  );
});
