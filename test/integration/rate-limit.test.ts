/**
 * Rate limits per API key over the real transports: separate read and write budgets per
 * one-minute window, shared by REST and GraphQL, GraphQL reads weighted by the operation's
 * static cost, the RateLimit / RateLimit-Policy / Retry-After headers, 429 as problem+json
 * (validated against the OpenAPI document by the REST client) and as TOO_MANY_REQUESTS, per-key
 * budgets and unlimited keys made with the keys CLI. The limiter's window arithmetic is checked
 * on its own with a fixed clock.
 *
 * The app under test runs on a clock the tests move by hand (test/support/test-clock.ts): each
 * HTTP test starts in a minute of its own (freshWindow), and a window ends when a test moves
 * the clock past it, never because the wall clock did.
 */
import type { Db } from 'mongodb';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import type { Permission } from '../../src/auth/permissions';
import { parseKeysArgs, runKeysCli, UsageError } from '../../src/cli/keys';
import { PROBLEM_TYPES } from '../../src/http/problem-types';
import { RATE_LIMIT_COLLECTION } from '../../src/rate-limit/rate-limit-indexes';
import { RateLimitRepository, type RateLimitWindowDoc } from '../../src/rate-limit/rate-limit-repository';
import { RateLimiter, rejectionOf } from '../../src/rate-limit/rate-limiter';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { rest } from '../support/rest-client';
import { TestClock } from '../support/test-clock';

/** The service defaults of this file: small, so budgets are spent in a few requests. */
const READS = 5;
const WRITES = 2;
const POLICY = `"reads";q=${READS};w=60, "writes";q=${WRITES};w=60`;

/** The app's clock (and the keys'): a future date, so that a real MongoDB's TTL monitor leaves the counters alone. */
const clock = new TestClock('2030-05-06T12:00:00.000Z');
let service: AppUnderTest;
let candidateIds: string[];

beforeAll(async () => {
  service = await startAppUnderTest({
    candidates: 20,
    seed: 7,
    config: { rateLimitReads: READS, rateLimitWrites: WRITES },
    clock,
  });
  const docs = await service.db
    .collection('candidates')
    .find({}, { projection: { publicId: 1 } })
    .limit(3)
    .toArray();
  candidateIds = docs.map((doc) => String(doc.publicId));
});

afterAll(async () => {
  await service.stop();
});

/** Moves the app's clock to the start of the next minute: a window no earlier test has counted in, which lasts the whole test. */
function freshWindow(): void {
  clock.nextMinute();
}

function keyService(db: Db = service.db): ApiKeyService {
  return new ApiKeyService(createApiKeyRepository(db), clock);
}

async function keyWith(
  options: { rateLimit?: { reads: number; writes: number }; unlimited?: boolean },
  ...permissions: Permission[]
) {
  const { key, record } = await keyService().createKey({
    name: 'rate limit test',
    permissions: permissions.length ? permissions : ['ADMIN'],
    ...options,
  });
  return { key, id: record.id };
}

async function defaultKey(...permissions: Permission[]) {
  return keyWith({}, ...permissions);
}

/** `"reads";r=4;t=37` → { kind: 'reads', r: 4, t: 37 } */
function parseRateLimit(header: string | null): { kind: string; r: number; t: number } | undefined {
  const match = header === null ? null : /^"(\w+)";r=(\d+);t=(\d+)$/.exec(header);
  return match ? { kind: match[1], r: Number(match[2]), t: Number(match[3]) } : undefined;
}

interface GraphQLAnswer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function gql(query: string, key: string, variables: Record<string, unknown> = {}): Promise<GraphQLAnswer> {
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as GraphQLAnswer['body'] };
}

const search = (key: string) => rest(service.url, 'GET', '/v1/candidates?limit=1', { key });
const jobMatch = (key: string) =>
  rest(service.url, 'POST', '/v1/candidates/job-match', { key, body: { candidates: [{ publicId: candidateIds[0] }] } });

async function rejections(kind: string): Promise<number> {
  const metric = await service.app.metrics.rateLimitRejections.get();
  return metric.values.find((value) => value.labels.kind === kind)?.value ?? 0;
}

async function countersOf(apiKeyId: string): Promise<RateLimitWindowDoc[]> {
  return service.db
    .collection<RateLimitWindowDoc>(RATE_LIMIT_COLLECTION)
    .find({ apiKeyId }, { projection: { _id: 0 } })
    .toArray();
}

describe('REST /v1', () => {
  test('when a key reads, then every answer states the policy and the reads left, and the read after the budget is a 429 problem with Retry-After', async () => {
    freshWindow();
    const { key } = await defaultKey('READ_CANDIDATE_DATA');

    const answers = [];
    for (let i = 0; i < READS + 1; i++) answers.push(await search(key));

    for (const [i, answer] of answers.slice(0, READS).entries()) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-policy')).toBe(POLICY);
      expect(parseRateLimit(answer.headers.get('ratelimit'))).toMatchObject({ kind: 'reads', r: READS - 1 - i });
    }
    const refused = answers[READS];
    const state = parseRateLimit(refused.headers.get('ratelimit'))!;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({
      type: PROBLEM_TYPES.tooManyRequests.type,
      title: 'Rate limit exceeded',
      status: 429,
      instance: '/v1/candidates',
    });
    expect(refused.body.detail).toContain(`retry after ${state.t} seconds`);
    expect(state).toMatchObject({ kind: 'reads', r: 0 });
    expect(state.t).toBeGreaterThanOrEqual(1);
    expect(state.t).toBeLessThanOrEqual(60);
    expect(refused.headers.get('retry-after')).toBe(String(state.t));
    expect(refused.headers.get('ratelimit-policy')).toBe(POLICY);
  });

  test('when the read budget is spent 43.2 seconds into a minute, then reads are refused for the 17 seconds left, and pass again once the clock reaches the next minute', async () => {
    clock.nextMinute(43.2);
    const { key } = await defaultKey('READ_CANDIDATE_DATA');
    for (let i = 0; i < READS; i++) expect((await search(key)).status).toBe(200);

    const refused = await search(key);
    clock.advance(16_000);
    const stillRefused = await search(key);
    clock.advance(800);
    const nextWindow = await search(key);

    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('17');
    expect(stillRefused.status).toBe(429);
    expect(stillRefused.headers.get('retry-after')).toBe('1');
    expect(nextWindow.status).toBe(200);
    expect(nextWindow.headers.get('ratelimit')).toBe(`"reads";r=${READS - 1};t=60`);
  });

  test('when the read budget is spent, then writes still pass on their own budget, and the write after it is a 429', async () => {
    freshWindow();
    const { key } = await defaultKey('READ_CANDIDATE_DATA', 'SUBMIT_JOB_MATCHES');
    for (let i = 0; i < READS + 1; i++) await search(key);

    const first = await jobMatch(key);
    const second = await jobMatch(key);
    const third = await jobMatch(key);

    expect([first.status, second.status, third.status]).toEqual([201, 201, 429]);
    expect(parseRateLimit(first.headers.get('ratelimit'))).toMatchObject({ kind: 'writes', r: 1 });
    expect(parseRateLimit(third.headers.get('ratelimit'))).toMatchObject({ kind: 'writes', r: 0 });
    expect(third.body.type).toBe(PROBLEM_TYPES.tooManyRequests.type);
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  test('when a write is refused, then it is refused before its body is read and nothing is recorded', async () => {
    freshWindow();
    const { key, id } = await defaultKey('SUBMIT_JOB_MATCHES');
    for (let i = 0; i < WRITES; i++) expect((await jobMatch(key)).status).toBe(201);

    const malformed = await rest(service.url, 'POST', '/v1/candidates/job-match', {
      key,
      rawBody: '{not json',
      headers: { 'content-type': 'application/json' },
    });

    expect(malformed.status).toBe(429);
    expect(await service.db.collection('offers').countDocuments({ apiKeyId: id })).toBe(WRITES);
  });

  test('when a request is refused, then the app counts it in rate_limit_rejections_total by kind', async () => {
    freshWindow();
    const { key } = await defaultKey('READ_CANDIDATE_DATA');
    const before = await rejections('reads');

    for (let i = 0; i < READS + 2; i++) await search(key);

    expect((await rejections('reads')) - before).toBe(2);
  });

  test('when the key lacks the permission, then the 403 states the policy and costs nothing', async () => {
    const { key, id } = await defaultKey('SUBMIT_JOB_MATCHES');

    const forbidden = await search(key);

    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(forbidden.headers.get('ratelimit')).toBeNull();
    expect(await countersOf(id)).toEqual([]);
  });

  test('when the key is missing or invalid, then the 401 carries no rate-limit header', async () => {
    const missing = await rest(service.url, 'GET', '/v1/candidates');

    expect(missing.status).toBe(401);
    expect(missing.headers.get('ratelimit-policy')).toBeNull();
    expect(missing.headers.get('ratelimit')).toBeNull();
  });

  test('when a key is counted, then its counters are per key id, kind and minute, with an expiry, and hold no key', async () => {
    freshWindow();
    const { key, id } = await defaultKey('READ_CANDIDATE_DATA', 'SUBMIT_JOB_MATCHES');

    await search(key);
    await search(key);
    await jobMatch(key);
    // Counting is buffered (RATE_LIMIT_FLUSH_MS): the flush the interval would make.
    await service.app.flushBookkeeping();

    const counters = await countersOf(id);
    expect(counters.map((c) => [c.kind, c.count]).sort()).toEqual([
      ['reads', 2],
      ['writes', 1],
    ]);
    for (const counter of counters) {
      expect(Object.keys(counter).sort()).toEqual(['apiKeyId', 'count', 'expiresAt', 'kind', 'windowStart']);
      expect(counter.windowStart.getTime() % 60_000).toBe(0);
      expect(counter.expiresAt.getTime()).toBe(counter.windowStart.getTime() + 120_000);
    }
    expect(JSON.stringify(counters)).not.toContain(key);
  });
});

describe('GraphQL /graphql', () => {
  const SMALL = '{ countries { isoCode } }';

  const nodeId = (letter: string) => Buffer.from(`Candidate:${letter.repeat(22)}`).toString('base64url');

  test('when queries run, then each root field costs the reads of the candidate pages it returns (ceil(size / 10), the size inline or a variable; nodes by its number of ids), at least 1; REST pages the same', async () => {
    freshWindow();
    const { key } = await keyWith({ rateLimit: { reads: 1000, writes: 10 } }, 'READ_CANDIDATE_DATA');
    const cases: [query: string, variables: Record<string, unknown>, reads: number][] = [
      [SMALL, {}, 1],
      ['{ __schema { queryType { name } types { name } } }', {}, 1],
      ['{ candidates(limit: 100) { content { publicId partner { publicId } } } }', {}, 10],
      ['query Page($limit: Int) { candidates(limit: $limit) { totalElements } }', { limit: 55 }, 6],
      ['{ candidates { totalElements } }', {}, 1],
      [
        'query Next($first: Int) { candidatesConnection(first: $first) { edges { node { publicId } } } }',
        { first: 25 },
        3,
      ],
      [`{ savedList(publicId: "${'A'.repeat(22)}") { name candidates(limit: 50) { totalElements } } }`, {}, 5],
      [
        `{ a: candidate(publicId: "${'A'.repeat(22)}") { publicId } b: candidate(publicId: "${'B'.repeat(22)}") { publicId } countries { isoCode } }`,
        {},
        3,
      ],
      [
        'fragment Page on Query { candidates(limit: 20) { totalElements } } { ...Page x: candidates(limit: 30) { totalElements } }',
        {},
        5,
      ],
      [`{ node(id: "${nodeId('A')}") { id } }`, {}, 1],
      [`{ nodes(ids: [${Array.from({ length: 11 }, () => `"${nodeId('A')}"`).join(',')}]) { id } }`, {}, 2],
      [
        'query Many($ids: [ID!]!) { nodes(ids: $ids) { id } }',
        { ids: Array.from({ length: 100 }, () => nodeId('B')) },
        10,
      ],
    ];

    let left = 1000;
    for (const [query, variables, reads] of cases) {
      const answer = await gql(query, key, variables);
      left -= reads;
      expect([query, answer.status, parseRateLimit(answer.headers.get('ratelimit'))]).toEqual([
        query,
        200,
        expect.objectContaining({ kind: 'reads', r: left }),
      ]);
    }
    for (const [path, reads] of [
      ['/v1/candidates?limit=100', 10],
      ['/v1/candidates', 1],
      ['/v1/candidates?limit=11&page=2', 2],
      [`/v1/candidates/by-list/${'A'.repeat(22)}?limit=40`, 4],
      [`/v1/candidates/${candidateIds[0]}`, 1],
    ] as const) {
      const answer = await rest(service.url, 'GET', path, { key });
      left -= reads;
      expect([path, parseRateLimit(answer.headers.get('ratelimit'))]).toEqual([
        path,
        expect.objectContaining({ kind: 'reads', r: left }),
      ]);
    }
  });

  test('when a query weighs more than the reads left, then it is refused whole with TOO_MANY_REQUESTS; one heavier than the whole budget is refused without spending it', async () => {
    freshWindow();
    const { key } = await defaultKey('READ_CANDIDATE_DATA');

    const impossible = await gql('{ candidates(limit: 100) { totalElements } }', key);
    const fits = await gql('{ candidates(limit: 40) { totalElements } }', key);
    const over = await gql('{ candidates(limit: 20) { totalElements } }', key);
    const restOver = await rest(service.url, 'GET', '/v1/candidates?limit=20', { key });
    const last = await gql('{ candidates(limit: 10) { totalElements } }', key);

    expect([impossible.status, fits.status, over.status, restOver.status, last.status]).toEqual([
      429, 200, 429, 429, 429,
    ]);
    expect(impossible.body.data).toBeUndefined();
    expect(impossible.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('costs 10 reads, more than the whole read budget'),
      extensions: { code: 'TOO_MANY_REQUESTS' },
    });
    expect(impossible.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(parseRateLimit(impossible.headers.get('ratelimit'))).toMatchObject({ r: READS });
    expect(parseRateLimit(fits.headers.get('ratelimit'))).toMatchObject({ r: 1 });
    expect(over.body.errors?.[0].message).toContain('costs 2 reads');
  });

  test('when REST has spent the read budget, then a GraphQL query is refused with TOO_MANY_REQUESTS, HTTP 429 and Retry-After', async () => {
    freshWindow();
    const { key } = await defaultKey('READ_CANDIDATE_DATA');
    for (let i = 0; i < READS; i++) expect((await search(key)).status).toBe(200);

    const refused = await gql('query Few { candidates(limit: 1) { totalElements } }', key);

    const state = parseRateLimit(refused.headers.get('ratelimit'))!;
    expect(refused.status).toBe(429);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors).toEqual([
      {
        message: `The read budget of this API key (${READS} per 60 seconds) is spent; retry after ${state.t} seconds.`,
        extensions: { code: 'TOO_MANY_REQUESTS', retryAfterSeconds: state.t },
      },
    ]);
    expect(state).toMatchObject({ kind: 'reads', r: 0 });
    expect(refused.headers.get('retry-after')).toBe(String(state.t));
    expect(refused.headers.get('ratelimit-policy')).toBe(POLICY);
  });

  test('when GraphQL has spent the read budget, then REST reads are refused too (one budget for both transports)', async () => {
    freshWindow();
    const { key } = await defaultKey('READ_CANDIDATE_DATA');
    for (let i = 0; i < READS; i++) expect((await gql(SMALL, key)).status).toBe(200);

    expect((await search(key)).status).toBe(429);
  });

  test('when a mutation selects two root fields, then it costs two writes, and a refused mutation records nothing', async () => {
    freshWindow();
    const { key, id } = await keyWith({ rateLimit: { reads: 100, writes: 3 } }, 'SUBMIT_JOB_MATCHES');
    const twice = `mutation Twice($input: JobMatchInput!) {
      a: createJobMatch(input: $input) { jobMatchId }
      b: createJobMatch(input: $input) { jobMatchId }
    }`;
    const input = { candidates: [{ publicId: candidateIds[1] }] };

    const first = await gql(twice, key, { input });
    const second = await gql(twice, key, { input });

    expect(first.status).toBe(200);
    expect(parseRateLimit(first.headers.get('ratelimit'))).toMatchObject({ kind: 'writes', r: 1 });
    expect(second.status).toBe(429);
    expect(second.body.errors?.[0].extensions?.code).toBe('TOO_MANY_REQUESTS');
    expect(await service.db.collection('offers').countDocuments({ apiKeyId: id })).toBe(2);
  });

  test('when a document fails validation, then it costs nothing but the answer states the policy', async () => {
    const { key, id } = await defaultKey('READ_CANDIDATE_DATA');

    const invalid = await gql('{ noSuchField }', key);

    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(invalid.headers.get('ratelimit')).toBeNull();
    expect(await countersOf(id)).toEqual([]);
  });
});

describe('per-key budgets and unlimited keys (keys CLI)', () => {
  const cliEnv = () => ({ MONGODB_URI: service.app.config.mongodbUri, MONGODB_DB: service.app.config.mongodbDb });

  async function createWithCli(options: string[], permissions = 'READ_CANDIDATE_DATA'): Promise<string> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runKeysCli(
      ['create', '--name', 'cli rate limit', '--permissions', permissions, ...options],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      cliEnv(),
      clock,
    );
    expect({ code, err: code === 0 ? [] : err }).toEqual({ code: 0, err: [] });
    return out.at(-1)!;
  }

  async function listWithCli(): Promise<string[]> {
    const out: string[] = [];
    expect(await runKeysCli(['list'], { out: (l) => out.push(l), err: () => undefined }, cliEnv(), clock)).toBe(0);
    return out.join('\n').split('\n');
  }

  test('when create is given --rate-limit or --unlimited, then they are parsed', () => {
    expect(parseKeysArgs(['create', '--name', 'n', '--permissions', 'ADMIN', '--rate-limit', '1200/120'])).toEqual({
      command: 'create',
      name: 'n',
      permissions: ['ADMIN'],
      rateLimit: { reads: 1200, writes: 120 },
    });
    expect(parseKeysArgs(['create', '--name', 'n', '--permissions', 'ADMIN', '--unlimited'])).toEqual({
      command: 'create',
      name: 'n',
      permissions: ['ADMIN'],
      unlimited: true,
    });
  });

  test.each([
    ['both options', ['--rate-limit', '10/1', '--unlimited']],
    ['one number', ['--rate-limit', '10']],
    ['a zero budget', ['--rate-limit', '0/5']],
    ['a missing write budget', ['--rate-limit', '5/']],
    ['words', ['--rate-limit', 'many/few']],
    ['a fraction', ['--rate-limit', '1.5/1']],
    ['a budget over the maximum', ['--rate-limit', '1000001/1']],
    ['a value for --unlimited', ['--unlimited=yes']],
  ])('when --rate-limit or --unlimited has %s, then it is a usage error', (_label, options) => {
    expect(() => parseKeysArgs(['create', '--name', 'n', '--permissions', 'ADMIN', ...options])).toThrow(UsageError);
  });

  test('when a key is created with --rate-limit 3/1, then its answers state that policy, the fourth read is refused, and list shows 3/1', async () => {
    freshWindow();
    const key = await createWithCli(['--rate-limit', '3/1']);

    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await search(key));

    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0].headers.get('ratelimit-policy')).toBe('"reads";q=3;w=60, "writes";q=1;w=60');
    const record = await keyService().authenticate(key);
    expect(record.rateLimit).toEqual({ reads: 3, writes: 1 });
    expect((await listWithCli()).find((line) => line.startsWith(record.id))).toMatch(/\s3\/1\s+any\s+active$/);
  });

  test('when a key made with --rate-limit 5/3 sends 15 aliased createJobMatch in one operation, then it is refused whole (429, Retry-After) and nothing is recorded; 3 aliases then pass', async () => {
    freshWindow();
    const key = await createWithCli(['--rate-limit', '5/3'], 'SUBMIT_JOB_MATCHES');
    const { id } = await keyService().authenticate(key);
    const aliases = (n: number) =>
      `mutation Many($input: JobMatchInput!) { ${Array.from({ length: n }, (_, i) => `m${i}: createJobMatch(input: $input) { jobMatchId }`).join(' ')} }`;
    const input = { candidates: [{ publicId: candidateIds[2] }] };

    const fifteen = await gql(aliases(15), key, { input });
    const offersAfterRefusal = await service.db.collection('offers').countDocuments({ apiKeyId: id });
    const three = await gql(aliases(3), key, { input });
    const fourth = await gql(aliases(1), key, { input });

    expect(fifteen.status).toBe(429);
    expect(fifteen.body.data).toBeUndefined();
    expect(fifteen.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('costs 15 writes'),
      extensions: { code: 'TOO_MANY_REQUESTS' },
    });
    expect(fifteen.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(offersAfterRefusal).toBe(0);
    expect([three.status, fourth.status]).toEqual([200, 429]);
    expect(parseRateLimit(three.headers.get('ratelimit'))).toMatchObject({ kind: 'writes', r: 0 });
    expect(await service.db.collection('offers').countDocuments({ apiKeyId: id })).toBe(3);
  });

  test('when a key is created with --unlimited, then it is never refused, gets no rate-limit headers, writes no counter, and list shows it', async () => {
    const key = await createWithCli(['--unlimited']);
    const record = await keyService().authenticate(key);

    const answers = [];
    for (let i = 0; i < READS * 3; i++) answers.push(await search(key));
    const graphql = await gql('{ candidates(limit: 1) { totalElements } }', key);

    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(graphql.status).toBe(200);
    for (const headers of [...answers.map((a) => a.headers), graphql.headers]) {
      expect(headers.get('ratelimit-policy')).toBeNull();
      expect(headers.get('ratelimit')).toBeNull();
    }
    expect(await countersOf(record.id)).toEqual([]);
    expect(record.unlimited).toBe(true);
    expect((await listWithCli()).find((line) => line.startsWith(record.id))).toMatch(/\sunlimited\s+any\s+active$/);
  });

  test('when a key has no budgets of its own, then list shows default', async () => {
    const { id } = await defaultKey('READ_CANDIDATE_DATA');

    expect((await listWithCli()).find((line) => line.startsWith(id))).toMatch(/\sdefault\s+any\s+active$/);
  });

  test('when the service is asked for both or for a budget out of range, then it refuses with BAD_USER_INPUT', async () => {
    await expect(
      keyService().createKey({
        name: 'x',
        permissions: ['ADMIN'],
        rateLimit: { reads: 1, writes: 1 },
        unlimited: true,
      }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(
      keyService().createKey({ name: 'x', permissions: ['ADMIN'], rateLimit: { reads: 0, writes: 1 } }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

describe('the rate limiter with a fixed clock', () => {
  const at = (iso: string) => new Date(iso);
  let clock: Date;
  let limiter: RateLimiter;
  let counter = 0;
  const aKey = (overrides: { rateLimit?: { reads: number; writes: number }; unlimited?: boolean } = {}) => ({
    id: `key_clock${++counter}`,
    ...overrides,
  });

  beforeEach(() => {
    clock = at('2030-05-06T12:00:43.200Z');
    limiter = new RateLimiter(new RateLimitRepository(service.db), { reads: 10, writes: 2 }, { now: () => clock });
  });

  test('when a request is charged 43.2 seconds into the minute, then the window ends in 17 seconds; at 0 in 60, at 59.999 in 1', async () => {
    const key = aKey();

    const mid = await limiter.charge(key, 'reads', 1);
    clock = at('2030-05-06T12:01:00.000Z');
    const start = await limiter.charge(key, 'reads', 1);
    clock = at('2030-05-06T12:01:59.999Z');
    const end = await limiter.charge(key, 'reads', 1);

    expect([mid?.resetSeconds, start?.resetSeconds, end?.resetSeconds]).toEqual([17, 60, 1]);
    expect([mid?.remaining, start?.remaining, end?.remaining]).toEqual([9, 9, 8]);
  });

  test('when the budget is spent, then the next request is exceeded until the next minute, which starts afresh', async () => {
    const key = aKey();
    const states = [];
    for (let i = 0; i < 3; i++) states.push(await limiter.charge(key, 'writes', 1));
    clock = at('2030-05-06T12:01:00.000Z');
    const next = await limiter.charge(key, 'writes', 1);

    expect(states.map((s) => s?.exceeded)).toEqual([false, false, true]);
    expect(next).toMatchObject({ exceeded: false, remaining: 1 });
  });

  test('when twenty requests are charged at once on a budget of ten, then exactly ten pass', async () => {
    const key = aKey();

    const states = await Promise.all(Array.from({ length: 20 }, () => limiter.charge(key, 'reads', 1)));

    expect(states.filter((s) => !s?.exceeded)).toHaveLength(10);
    expect(new Set(states.filter((s) => !s?.exceeded).map((s) => s?.remaining)).size).toBe(10);
  });

  test('when one operation weighs more than the whole budget, then it is refused and spends nothing; one heavier than what is left is refused whole', async () => {
    const key = aKey();

    const impossible = await limiter.charge(key, 'reads', 50);
    const seven = await limiter.charge(key, 'reads', 7);
    const four = await limiter.charge(key, 'reads', 4);

    expect(impossible).toMatchObject({ cost: 50, remaining: 10, exceeded: true });
    expect(seven).toMatchObject({ cost: 7, remaining: 3, exceeded: false });
    expect(four).toMatchObject({ cost: 4, exceeded: true });
    expect(rejectionOf(impossible)?.message).toMatch(/costs 50 reads, more than the whole read budget .*split it/);
    expect(rejectionOf(four)?.message).toMatch(
      /costs 4 reads, more than the read budget .* has left; nothing of it was run/,
    );
  });

  test('when a key has its own budgets or is unlimited, then they replace the defaults; an unlimited key stores nothing', async () => {
    const own = aKey({ rateLimit: { reads: 3, writes: 1 } });
    const unlimited = aKey({ unlimited: true });

    expect(await limiter.charge(own, 'reads', 1)).toMatchObject({ budgets: { reads: 3, writes: 1 }, remaining: 2 });
    expect(await limiter.charge(unlimited, 'reads', 1)).toBeUndefined();
    expect(await countersOf(unlimited.id)).toEqual([]);
  });

  test("when a new window starts, then the key's ended windows are removed", async () => {
    const key = aKey();
    await limiter.charge(key, 'reads', 1);
    clock = at('2030-05-06T12:01:10.000Z');
    await limiter.charge(key, 'reads', 1);
    clock = at('2030-05-06T12:05:00.000Z');

    await limiter.charge(key, 'reads', 1);

    // The removal is not awaited by the charge (it is best effort), so give it a moment.
    for (let i = 0; i < 50 && (await countersOf(key.id)).length > 1; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await countersOf(key.id)).map((c) => c.windowStart.toISOString())).toEqual(['2030-05-06T12:05:00.000Z']);
  });

  test('when rejections happen, then the rejection listeners hear each with its kind', async () => {
    const heard: string[] = [];
    limiter.onRejection((kind) => heard.push(kind));
    const key = aKey({ rateLimit: { reads: 1, writes: 1 } });

    await limiter.charge(key, 'reads', 1);
    await limiter.charge(key, 'reads', 1);
    await limiter.charge(key, 'writes', 1);
    await limiter.charge(key, 'writes', 1);

    expect(heard).toEqual(['reads', 'writes']);
  });
});

describe('the buffered rate limiter (two instances, a fixed clock, flushes made by the test)', () => {
  /** Long enough that no timer flushes during a test (each takes well under a second): every flush here is the test's. */
  const FLUSH_MS = 10_000;
  const at = (iso: string) => new Date(iso);
  let clock: Date;
  let counter = 0;
  const aKey = (reads: number) => ({ id: `key_buffered${++counter}`, rateLimit: { reads, writes: 1 } });
  const instance = (repository: RateLimitRepository = new RateLimitRepository(service.db)) =>
    new RateLimiter(repository, { reads: 10, writes: 2 }, { now: () => clock }, FLUSH_MS);
  const storedCount = async (apiKeyId: string) => (await countersOf(apiKeyId)).reduce((sum, c) => sum + c.count, 0);
  const admitted = (states: Awaited<ReturnType<RateLimiter['charge']>>[]) =>
    states.filter((state) => !state?.exceeded).length;

  beforeEach(() => {
    // Early in a minute, so that a test can move the clock by minutes' fractions within one window.
    clock = at('2030-05-06T12:00:01.000Z');
  });

  test('when one instance counts, then it admits exactly the budget, writes only the first charge until it flushes, and the flush writes every unit', async () => {
    const limiter = instance();
    const key = aKey(10);

    const states = [];
    for (let i = 0; i < 12; i++) states.push(await limiter.charge(key, 'reads', 1));
    const beforeFlush = await storedCount(key.id);
    await limiter.flush();

    expect(states.map((state) => state?.exceeded)).toEqual([...Array<boolean>(10).fill(false), true, true]);
    expect(states.map((state) => state?.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0]);
    expect(beforeFlush).toBe(1);
    expect(await storedCount(key.id)).toBe(12);
  });

  test('when twenty requests are charged at once while the window opens, then exactly ten pass', async () => {
    const limiter = instance();
    const key = aKey(10);

    const states = await Promise.all(Array.from({ length: 20 }, () => limiter.charge(key, 'reads', 1)));

    expect(admitted(states)).toBe(10);
    expect(new Set(states.filter((s) => !s?.exceeded).map((s) => s?.remaining)).size).toBe(10);
  });

  test('when an operation weighs more than what is left here, then it is refused whole', async () => {
    const limiter = instance();
    const key = aKey(10);

    const seven = await limiter.charge(key, 'reads', 7);
    const four = await limiter.charge(key, 'reads', 4);

    expect([seven?.exceeded, four?.exceeded]).toEqual([false, true]);
    expect(rejectionOf(four)?.message).toMatch(
      /costs 4 reads, more than the read budget .* has left; nothing of it was run/,
    );
  });

  test('when instance A flushed what it spent, then instance B, opening the window, counts it and admits only the rest', async () => {
    const a = instance();
    const b = instance();
    const key = aKey(10);

    for (let i = 0; i < 6; i++) await a.charge(key, 'reads', 1);
    await a.flush();
    const onB = [];
    for (let i = 0; i < 5; i++) onB.push(await b.charge(key, 'reads', 1));

    expect(onB.map((state) => state?.exceeded)).toEqual([false, false, false, false, true]);
  });

  test('when both instances spend between flushes, then the overspend is at most what the other admitted since its last read, and after both flushed neither admits more', async () => {
    const a = instance();
    const b = instance();
    const key = aKey(10);
    await a.charge(key, 'reads', 1);
    await b.charge(key, 'reads', 1);
    await a.flush(); // A reads 2

    // Neither sees the other's units until they are flushed and read back.
    const onB = [];
    for (let i = 0; i < 8; i++) onB.push(await b.charge(key, 'reads', 1));
    const onA = [];
    for (let i = 0; i < 8; i++) onA.push(await a.charge(key, 'reads', 1));
    await b.flush();
    await a.flush();
    await b.flush();
    const afterFlush = [await a.charge(key, 'reads', 1), await b.charge(key, 'reads', 1)];

    expect(admitted(onB)).toBe(8);
    // B's 8 were not in A's view: A admitted 8 too, 8 over the budget of 10, never more than B's unseen units.
    expect(admitted(onA)).toBe(8);
    expect(2 + admitted(onA) + admitted(onB) - 10).toBeLessThanOrEqual(admitted(onB));
    expect(afterFlush.map((state) => state?.exceeded)).toEqual([true, true]);
    expect(await storedCount(key.id)).toBe(18);
  });

  test('when a window has been idle for more than two intervals, then the next charge reads what the other instance spent before it is decided', async () => {
    const a = instance();
    const b = instance();
    const key = aKey(10);
    await a.charge(key, 'reads', 1);
    for (let i = 0; i < 9; i++) await b.charge(key, 'reads', 1);
    await b.flush();

    clock = new Date(clock.getTime() + 2 * FLUSH_MS - 1000);
    const stillFresh = await a.charge(key, 'reads', 1);
    clock = new Date(clock.getTime() + 2000);
    const afterIdle = await a.charge(key, 'reads', 1);

    // Within two intervals A decides from its own view (it last read 1, then added 1); past them it reads 10 + 1 first.
    expect(stillFresh?.exceeded).toBe(false);
    expect(afterIdle?.exceeded).toBe(true);
  });

  test('when a flush fails, then the failure listeners hear it, the units stay buffered, and the next flush writes them', async () => {
    const repository = new RateLimitRepository(service.db);
    const addMany = repository.addMany.bind(repository);
    let failures = 1;
    repository.addMany = async (increments) => {
      if (failures-- > 0) throw new Error('store unreachable');
      return addMany(increments);
    };
    const limiter = instance(repository);
    const heard: unknown[] = [];
    limiter.onFlushFailure((error) => heard.push(error));
    const key = aKey(10);
    for (let i = 0; i < 4; i++) await limiter.charge(key, 'reads', 1);

    await expect(limiter.flush()).rejects.toThrow('store unreachable');
    const afterFailure = await storedCount(key.id);
    await limiter.flush();

    expect(heard).toHaveLength(1);
    expect(afterFailure).toBe(1);
    expect(await storedCount(key.id)).toBe(4);
    expect((await limiter.charge(key, 'reads', 1))?.remaining).toBe(5);
  });

  test('when a window has ended and its units are flushed, then the limiter forgets it and the next window starts afresh', async () => {
    const limiter = instance();
    const key = aKey(2);
    await limiter.charge(key, 'reads', 1);
    await limiter.charge(key, 'reads', 1);
    const spent = await limiter.charge(key, 'reads', 1);

    clock = at('2030-05-06T12:01:00.500Z');
    await limiter.flush();
    const next = await limiter.charge(key, 'reads', 1);

    expect(spent?.exceeded).toBe(true);
    expect(next).toMatchObject({ exceeded: false, remaining: 1 });
    expect((await countersOf(key.id)).map((c) => [c.windowStart.toISOString(), c.count]).sort()).toEqual([
      ['2030-05-06T12:00:00.000Z', 3],
      ['2030-05-06T12:01:00.000Z', 1],
    ]);
  });
});
