/**
 * Two instances of the service over one store and one database, as behind a load balancer:
 * what one instance counts, records or revokes holds on the other at once, because all of it
 * lives in MongoDB (rate-limit counters, idempotency records, API keys, the audit trail) and
 * never in a process. Both instances run on one clock the tests move by hand (a rate-limit
 * window ends when a test says so, not when the wall clock's minute does).
 */
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import type { Permission } from '../../src/auth/permissions';
import { loadConfig, type Config } from '../../src/config';
import { seedDemoData } from '../../src/app/seed-demo-data';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { testDatabaseName } from '../support/builders';
import { rest } from '../support/rest-client';
import { startStoreUnderTest, type StoreUnderTest } from 'embedded-mongodb/test-support';
import { TestClock } from '../support/test-clock';

const READS = 3;
const WRITES = 2;

interface Instance {
  app: CandidateDirectory;
  url: string;
}

/** The clock of both instances and of the keys: a future date, so that a real MongoDB's TTL monitor leaves the counters alone. */
const clock = new TestClock('2030-05-06T12:00:00.000Z');
let store: StoreUnderTest;
let a: Instance;
let b: Instance;
let candidateIds: string[];

/** One instance of the service on a free port, over the shared store and database. */
async function startInstance(config: Config): Promise<Instance> {
  const app = await createApp(config, createLogger(config), clock);
  return { app, url: await app.start() };
}

beforeAll(async () => {
  store = await startStoreUnderTest();
  const config = loadConfig(
    {},
    {
      port: 0,
      mongodbUri: store.uri,
      mongodbDb: testDatabaseName('scale_out'),
      logLevel: 'silent',
      rateLimitReads: READS,
      rateLimitWrites: WRITES,
    },
  );
  a = await startInstance(config);
  b = await startInstance(config);
  await seedDemoData(a.app.database.db, { candidates: 10, seed: 3 });
  const docs = await a.app.database.db.collection('candidates').find({}).limit(2).toArray();
  candidateIds = docs.map((doc) => String(doc.publicId));
});

afterAll(async () => {
  await a?.app.stop();
  await b?.app.stop();
  await store?.stop();
});

/** Keys are made through instance A's database handle; B only ever reads them from the store. */
function apiKeys(instance: Instance = a): ApiKeyService {
  return new ApiKeyService(createApiKeyRepository(instance.app.database.db), clock);
}

async function aKey(...permissions: [Permission, ...Permission[]]): Promise<{ key: string; id: string }> {
  const { key, record } = await apiKeys().createKey({ name: 'scale-out test', permissions });
  return { key, id: record.id };
}

/** Moves both instances' clock to the start of the next minute: a window no earlier test has counted in, which lasts the whole test. */
function freshWindow(): void {
  clock.nextMinute();
}

const search = (instance: Instance, key: string) => rest(instance.url, 'GET', '/v1/candidates?limit=1', { key });

/**
 * Rate-limit counting is buffered (RATE_LIMIT_FLUSH_MS): an instance sees the other's units
 * once the other has written them and it has read them back. This makes both flushes the
 * interval would make, A's then B's, without waiting for it.
 */
async function flushBoth(): Promise<void> {
  await a.app.flushBookkeeping();
  await b.app.flushBookkeeping();
  await a.app.flushBookkeeping();
}

test('when a key spends its read budget on instance A, then instance B refuses its next read with 429', async () => {
  freshWindow();
  const { key } = await aKey('READ_CANDIDATE_DATA');

  const onA = [];
  for (let i = 0; i < READS; i++) onA.push(await search(a, key));
  await flushBoth();
  const onB = await search(b, key);

  expect(onA.map((answer) => answer.status)).toEqual([200, 200, 200]);
  expect(onA.map((answer) => answer.headers.get('ratelimit'))).toEqual([
    expect.stringMatching(/^"reads";r=2;t=\d+$/),
    expect.stringMatching(/^"reads";r=1;t=\d+$/),
    expect.stringMatching(/^"reads";r=0;t=\d+$/),
  ]);
  expect(onB.status).toBe(429);
  expect(onB.headers.get('retry-after')).toMatch(/^\d+$/);
});

test('when a key has spent its read budget across both instances, then both refuse it until the clock reaches the next minute, and both admit it then', async () => {
  clock.nextMinute(30);
  const { key } = await aKey('READ_CANDIDATE_DATA');
  for (const instance of [a, b, a]) {
    expect((await search(instance, key)).status).toBe(200);
    await flushBoth();
  }

  const refused = [await search(a, key), await search(b, key)];
  clock.nextMinute();
  const nextMinute = [await search(b, key), await search(a, key)];

  expect(refused.map((answer) => [answer.status, answer.headers.get('retry-after')])).toEqual([
    [429, '30'],
    [429, '30'],
  ]);
  expect(nextMinute.map((answer) => [answer.status, answer.headers.get('ratelimit')])).toEqual([
    [200, '"reads";r=2;t=60'],
    [200, expect.stringMatching(/^"reads";r=[01];t=60$/)],
  ]);
});

test('when requests of one key alternate between the instances, then they draw on one budget', async () => {
  freshWindow();
  const { key } = await aKey('READ_CANDIDATE_DATA');

  const answers = [];
  for (const instance of [a, b, a, b]) {
    answers.push(await search(instance, key));
    await flushBoth();
  }

  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
  expect(answers.map((answer) => /r=(\d+)/.exec(answer.headers.get('ratelimit') ?? '')?.[1])).toEqual([
    '2',
    '1',
    '0',
    '0',
  ]);
});

test('when a POST with an Idempotency-Key was answered by A, then B replays that answer and nothing is recorded twice', async () => {
  const { key, id } = await aKey('SUBMIT_JOB_MATCHES');
  const request = {
    key,
    body: { candidates: [{ publicId: candidateIds[0] }] },
    headers: { 'Idempotency-Key': 'scale-out-1' },
  };

  const first = await rest(a.url, 'POST', '/v1/candidates/job-match', request);
  const replay = await rest(b.url, 'POST', '/v1/candidates/job-match', request);

  expect(first.status).toBe(201);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(first.body);
  expect(await b.app.database.db.collection('offers').countDocuments({ apiKeyId: id })).toBe(1);
});

test('when a key is revoked through instance A, then instance B refuses it on its very next request, on both transports', async () => {
  const { key, id } = await aKey('READ_CANDIDATE_DATA');
  expect((await search(b, key)).status).toBe(200);

  await apiKeys(a).revokeKey(id);
  const restAnswer = await search(b, key);
  const graphqlAnswer = await fetch(`${b.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: '{ countries { isoCode } }' }),
  });

  expect(restAnswer.status).toBe(401);
  expect(graphqlAnswer.status).toBe(401);
  expect(
    ((await graphqlAnswer.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code,
  ).toBe('UNAUTHENTICATED');
});

test('when both instances answer one key, then one audit trail holds the events of both, readable through either', async () => {
  const { key, id } = await aKey('READ_CANDIDATE_DATA');
  const { key: admin } = await aKey('ADMIN');
  await rest(a.url, 'GET', '/v1/candidates?limit=1', { key, headers: { 'x-request-id': 'from-a' } });
  await rest(b.url, 'GET', '/v1/candidates?limit=1', { key, headers: { 'x-request-id': 'from-b' } });

  // Each event is queued once its response has closed (AUDIT_FLUSH_MS batches them): the flushes
  // the interval would make, repeated until both are in, without spending the admin key's 3 reads.
  const stored = () => a.app.database.db.collection('auditEvents').countDocuments({ apiKeyId: id });
  for (let round = 0; round < 100 && (await stored()) < 2; round++) {
    await a.app.flushBookkeeping();
    await b.app.flushBookkeeping();
    if ((await stored()) < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const response = await fetch(`${b.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': admin },
    body: JSON.stringify({ query: `{ auditEvents(apiKeyId: "${id}") { edges { node { requestId } } } }` }),
  });
  const body = (await response.json()) as { data: { auditEvents: { edges: { node: { requestId: string } }[] } } };
  const requestIds = body.data.auditEvents.edges.map((edge) => edge.node.requestId);

  expect(requestIds.sort()).toEqual(['from-a', 'from-b']);
});
