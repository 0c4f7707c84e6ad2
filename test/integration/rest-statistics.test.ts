/**
 * GET /v1/statistics: candidateStatistics for tools that are not browsers, as JSON or CSV, with
 * the permission, the budget and the stored answers of the GraphQL field, and the filter
 * parameters of GET /v1/candidates. Every response is checked against the OpenAPI document
 * (rest-client.ts).
 */
import { buildSchema, isObjectType } from 'graphql';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { loadTypeDefs } from '../../src/graphql/schema';
import { CANDIDATE_COLLECTIONS } from '../../src/candidates/candidate-indexes';
import { FILTER_PARAMETERS } from '../../src/rest/query-parameters';
import { QUESTION_FILTER_PARAMETERS } from '../../src/rest/statistics-csv';
import { DIMENSIONS } from '../../src/statistics/dimensions';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';
import { TestClock } from '../support/test-clock';

/** Noon in a 24-hour budget period that renews at midnight UTC. */
const clock = new TestClock('2030-05-06T12:00:00.000Z');

interface Interval {
  low: number;
  high: number;
}

interface Statistics {
  question: Record<string, unknown> & { groupBy: string[] };
  total: number;
  totalInterval: Interval;
  cells: { values: { dimension: string; code: string; label: string }[]; count: number; interval: Interval }[];
  confidence: number;
  sensitivity: number;
  minimumCellSize: number;
  epsilon: number;
  epsilonCharged: number;
  budget: number;
  budgetRemaining: number;
  budgetRenewsAt: string;
  answeredAt: string;
}

const GRAPHQL_QUERY = `query($filter: CandidateFilter, $includeEmployed: Boolean, $groupBy: [CandidateDimension!]!, $epsilon: Float) {
  candidateStatistics(filter: $filter, includeEmployed: $includeEmployed, groupBy: $groupBy, epsilon: $epsilon) {
    question { locations nationalities occupations includeEmployed groupBy epsilon }
    total totalInterval { low high }
    cells { values { dimension code label } count interval { low high } }
    confidence sensitivity minimumCellSize epsilon epsilonCharged budget budgetRemaining budgetRenewsAt answeredAt
  }
}`;

/** RFC 4180 CSV (quoted fields with doubled quotes, CRLF lines) into rows of fields: the test's own reader. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) throw new Error('the CSV does not end with CRLF');
  return rows;
}

/** The CSV as objects by header name. */
function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  for (const row of rows) expect(row).toHaveLength(header.length);
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

/** Every unordered pair of distinct dimensions, each in the order the DIMENSIONS list names them. */
const PAIRS = DIMENSIONS.flatMap((first, i) => DIMENSIONS.slice(i + 1).map((second) => [first, second] as const));

describe('GET /v1/statistics', () => {
  let service: AppUnderTest;
  let analyst: string;
  /** a partner's key: the search the statistics are compared with */
  let reader: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 120, seed: 3, clock, config: { statisticsBudget: 1_000_000 } });
    analyst = await service.key('READ_STATISTICS');
    reader = await service.key('READ_CANDIDATE_DATA');
  });

  afterAll(async () => {
    await service.stop();
  });

  const get = (path: string, key = analyst, accept?: string) =>
    rest(service.url, 'GET', path, { key, headers: accept === undefined ? {} : { accept } });

  test('when a question is asked over GraphQL and then over REST, then REST gives the stored answer, free, as JSON without the deprecated fields', async () => {
    // Arrange
    const variables = { filter: { nationality: ['SY'] }, groupBy: ['LOCATION', 'GENDER'], epsilon: 5 };
    const first = await graphql<{ candidateStatistics: Statistics }>(service.url, GRAPHQL_QUERY, variables, analyst);

    // Act
    const answer = await get('/v1/statistics?groupBy=LOCATION,GENDER&epsilon=5&nationality=sy');

    // Assert
    expect(first.body.errors).toBeUndefined();
    const graphqlAnswer = first.body.data!.candidateStatistics;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('vary')).toMatch(/Accept/);
    expect(answer.body).toEqual({
      ...graphqlAnswer,
      epsilonCharged: 0,
      budgetRemaining: graphqlAnswer.budgetRemaining,
    });
    expect(graphqlAnswer.epsilonCharged).toBe(5);
    expect(answer.body.cells.length).toBeGreaterThan(0);
  });

  test('when a key lacks READ_STATISTICS, then the answer is 403; without a key, 401; nothing is counted', async () => {
    // Act
    const forbidden = await get('/v1/statistics?groupBy=GENDER', reader);
    const anonymous = await rest(service.url, 'GET', '/v1/statistics?groupBy=GENDER');

    // Assert
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.type).toMatch(/\/forbidden$/);
    expect(anonymous.status).toBe(401);
  });

  test('when the privacy budget is spent, then a new question is 429 privacy-budget-exhausted with Retry-After until it renews, and a repeat is still answered', async () => {
    // Arrange: a key with a budget of its own, ε = 5 a period
    const { key } = await new ApiKeyService(createApiKeyRepository(service.db), clock).createKey({
      name: 'analyst with a small budget',
      permissions: ['READ_STATISTICS'],
      statisticsBudget: 5,
    });
    recordSecret(key);
    const first = await get('/v1/statistics?groupBy=STATUS&epsilon=5', key);

    // Act
    const refused = await get('/v1/statistics?groupBy=STATUS&epsilon=0.001', key);
    const repeat = await get('/v1/statistics?epsilon=5&groupBy=STATUS', key);

    // Assert
    expect(first.body).toMatchObject({ epsilonCharged: 5, budget: 5, budgetRemaining: 0 });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      type: 'https://candidate-directory.example/problems/privacy-budget-exhausted',
      title: 'Privacy budget exhausted',
      status: 429,
    });
    expect(first.body.budgetRenewsAt).toBe('2030-05-07T00:00:00.000Z');
    expect(refused.body.detail).toContain('renews at 2030-05-07T00:00:00.000Z');
    // Twelve hours from the clock's noon to the renewal.
    expect(refused.headers.get('retry-after')).toBe('43200');
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ epsilonCharged: 0, total: first.body.total });
  });

  test.each<[string, string]>([
    ['an unknown dimension', 'groupBy=LOCATION,COLOUR'],
    ['three dimensions', 'groupBy=LOCATION,GENDER,STATUS'],
    ['the same dimension twice', 'groupBy=GENDER,GENDER'],
    ['an ε that is not a number', 'groupBy=GENDER&epsilon=one'],
    ['an ε of 0', 'groupBy=GENDER&epsilon=0'],
    ['an ε with four decimals', 'groupBy=GENDER&epsilon=0.0005'],
    ['a malformed location code', 'groupBy=GENDER&location=Lebanon'],
    ['a parameter of the search that is not a filter', 'groupBy=GENDER&page=2'],
    ['groupBy given twice', 'groupBy=GENDER&groupBy=STATUS'],
  ])(
    'when the request has %s, then the answer is 400 invalid-parameter and nothing is charged',
    async (_name, query) => {
      // Arrange
      const key = await service.key('READ_STATISTICS');

      // Act
      const answer = await get(`/v1/statistics?${query}`, key);
      const after = await graphql<{ statisticsBudget: { spent: number } }>(
        service.url,
        '{ statisticsBudget { spent } }',
        {},
        key,
      );

      // Assert
      expect(answer.status).toBe(400);
      expect(answer.body.type).toMatch(/\/invalid-parameter$/);
      expect(after.body.data!.statisticsBudget.spent).toBe(0);
    },
  );

  /** Each filter parameter of GET /v1/candidates with a value (a saved list's id: `<list>`), and the question's echo of it. */
  const FILTER_EXAMPLES: [string, Record<string, unknown>][] = [
    ['location=lb,JO', { locations: ['JO', 'LB'] }],
    ['nationality=SY,IQ,AF', { nationalities: ['AF', 'IQ', 'SY'] }],
    ['occupation=2221,7126,2211', { occupations: ['2211', '2221', '7126'] }],
    [
      'languages=EN:b1,ar::A2',
      {
        languages: [
          { language: 'ar', minWrittenLevel: 'A2' },
          { language: 'en', minSpokenLevel: 'B1' },
        ],
      },
    ],
    ['minYearsExperience=2', { minYearsExperience: 2 }],
    ['maxYearsExperience=10', { maxYearsExperience: 10 }],
    ['minEducationLevel=3', { minEducationLevel: 3 }],
    ['maxEducationLevel=5', { maxEducationLevel: 5 }],
    ['minAge=30', { minAge: 30 }],
    ['maxAge=45', { maxAge: 45 }],
    ['exams=ielts_gen:5.5', { exams: [{ exam: 'IELTS_GEN', minScore: 5.5 }] }],
    ['keyword=%20care%20-night%20', { keyword: 'care -night' }],
    ['inSavedLists=<list>', { inSavedLists: ['<list>'] }],
    ['notInSavedLists=<list>', { notInSavedLists: ['<list>'] }],
    ['includeEmployed=true', { includeEmployed: true }],
  ];

  test('when the filter examples are read, then they give every filter parameter of GET /v1/candidates', () => {
    expect(FILTER_EXAMPLES.map(([query]) => query.split('=')[0]).sort()).toEqual(
      [...Object.keys(FILTER_PARAMETERS), 'includeEmployed'].sort(),
    );
  });

  test.each(FILTER_EXAMPLES)(
    'when GET /v1/statistics is given %s, then it counts what GET /v1/candidates selects with it, echoes it, and its CSV asks it again',
    async (example, echo) => {
      // Arrange: a saved list of the demo data
      const list = await service.db
        .collection(CANDIDATE_COLLECTIONS.savedLists)
        .findOne({}, { projection: { publicId: 1 } });
      const query = example.replace('<list>', String(list!.publicId));

      // Act
      const search = await rest(service.url, 'GET', `/v1/candidates?${query}&limit=1`, { key: reader });
      const statistics = await get(`/v1/statistics?${query}&epsilon=10`);
      const csv = await get(`/v1/statistics?${query}&epsilon=10`, analyst, 'text/csv');
      const [{ query: asked }] = csvRecords(csv.text);
      const again = await get(asked);

      // Assert
      expect(search.status).toBe(200);
      expect(search.body.totalElements).toBeGreaterThan(0);
      expect(statistics.status).toBe(200);
      // At ε = 10 and Δ = 1 the noise is 0 with probability 0.9999.
      expect(Math.abs(statistics.body.total - search.body.totalElements)).toBeLessThanOrEqual(1);
      expect(statistics.body.question).toEqual({
        locations: [],
        nationalities: [],
        occupations: [],
        includeEmployed: false,
        groupBy: [],
        epsilon: 10,
        ...JSON.parse(JSON.stringify(echo).replace('<list>', String(list!.publicId))),
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({
        ...statistics.body,
        epsilonCharged: 0,
        budgetRemaining: again.body.budgetRemaining,
      });
    },
  );

  test('when the question has a field, then the CSV writes it back as a filter parameter of the route (none is left out)', () => {
    const question = buildSchema(loadTypeDefs().join('\n')).getType('StatisticsQuestion');
    if (!isObjectType(question)) throw new Error('StatisticsQuestion is not an object type');
    const filterFields = Object.keys(question.getFields()).filter(
      (field) => !['groupBy', 'epsilon', 'includeEmployed'].includes(field),
    );

    expect(Object.keys(QUESTION_FILTER_PARAMETERS).sort()).toEqual(filterFields.sort());
    expect(Object.values(QUESTION_FILTER_PARAMETERS).sort()).toEqual(Object.keys(FILTER_PARAMETERS).sort());
  });

  test('when the CSV is asked for with no dimension, then it is one row: the total, its interval and what it means, and its query asks the same question again', async () => {
    // Act
    const csv = await get('/v1/statistics?epsilon=0.5&location=lb', analyst, 'text/csv');
    const json = await get('/v1/statistics?epsilon=0.5&location=LB');
    const again = await get(csvRecords(csv.text)[0].query);

    // Assert
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(csvRecords(csv.text)).toEqual([
      {
        count: String(json.body.total),
        low: String(json.body.totalInterval.low),
        high: String(json.body.totalInterval.high),
        epsilon: '0.5',
        sensitivity: '1',
        confidence: '0.95',
        query: '/v1/statistics?groupBy=&epsilon=0.5&location=LB',
        answeredAt: json.body.answeredAt,
      },
    ]);
    expect(again.body).toEqual({ ...json.body, budgetRemaining: again.body.budgetRemaining });
    expect([json.body.epsilonCharged, again.body.epsilonCharged]).toEqual([0, 0]);
  });

  test.each(PAIRS.map(([first, second]) => [`${first},${second}`]))(
    'when the answer by %s is asked as JSON and as CSV, then every number of the CSV is the JSON one, row by row',
    async (groupBy) => {
      // Act: the second is the stored answer of the first, free
      const json = await get(`/v1/statistics?groupBy=${groupBy}&epsilon=4&includeEmployed=true`);
      const csv = await get(
        `/v1/statistics?groupBy=${groupBy}&epsilon=4&includeEmployed=true`,
        analyst,
        'text/csv;q=1, application/json;q=0.5',
      );

      // Assert
      const answer = json.body as Statistics;
      const [first, second] = groupBy.split(',');
      const records = csvRecords(csv.text);
      const query = `/v1/statistics?groupBy=${groupBy}&epsilon=4&includeEmployed=true`;
      const meaning = {
        epsilon: '4',
        sensitivity: String(answer.sensitivity),
        confidence: '0.95',
        query,
        answeredAt: answer.answeredAt,
      };
      expect(records).toEqual([
        {
          [first]: '',
          [second]: '',
          [`${first}_label`]: '',
          [`${second}_label`]: '',
          count: String(answer.total),
          low: String(answer.totalInterval.low),
          high: String(answer.totalInterval.high),
          ...meaning,
        },
        ...answer.cells.map((cell) => ({
          [first]: cell.values[0].code,
          [second]: cell.values[1].code,
          [`${first}_label`]: cell.values[0].label,
          [`${second}_label`]: cell.values[1].label,
          count: String(cell.count),
          low: String(cell.interval.low),
          high: String(cell.interval.high),
          ...meaning,
        })),
      ]);
      expect(parseCsv(csv.text)[0]).toEqual([
        first,
        second,
        `${first}_label`,
        `${second}_label`,
        'count',
        'low',
        'high',
        'epsilon',
        'sensitivity',
        'confidence',
        'query',
        'answeredAt',
      ]);
    },
  );
});
