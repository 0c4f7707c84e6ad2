/**
 * Automatic persisted queries on /graphql, as Apollo Client's persisted-query link speaks them:
 * `extensions.persistedQuery { version: 1, sha256Hash }`, over POST and GET. Two instances of
 * the service share one store, as behind a load balancer: a query registered on one is known
 * to the other. Registered queries obey the key, the abuse limits and the rate limit like any other.
 */
import { createHash } from 'node:crypto';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import type { Permission } from '../../src/auth/permissions';
import { loadConfig, type Config } from '../../src/config';
import { seedDemoData } from '../../src/app/seed-demo-data';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { PERSISTED_QUERY_COLLECTION } from '../../src/persisted-queries/persisted-query-indexes';
import { PersistedQueryRepository } from '../../src/persisted-queries/persisted-query-repository';
import { PersistedQueryStore } from '../../src/persisted-queries/persisted-query-store';
import { testDatabaseName } from '../support/builders';
import { recordSecret } from '../support/log-capture';
import { startStoreUnderTest, type StoreUnderTest } from 'embedded-mongodb/test-support';
import { TestClock } from '../support/test-clock';

const MAX_ENTRIES = 3;
const READS = 40;

interface Instance {
  app: CandidateDirectory;
  url: string;
}

interface Answer {
  status: number;
  body: { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] };
}

/** The clock of both instances and of the keys (rate-limit windows, query expiry), moved by the tests. */
const clock = new TestClock('2030-05-06T12:00:00.000Z');
let store: StoreUnderTest;
let a: Instance;
let b: Instance;
let reader: string;
let registrar: string;

async function startInstance(config: Config): Promise<Instance> {
  const app = await createApp(config, createLogger(config), clock);
  return { app, url: await app.start() };
}

const sha256 = (query: string) => createHash('sha256').update(query).digest('hex');
const persisted = (hash: string, version = 1) => ({ persistedQuery: { version, sha256Hash: hash } });

/** `key` '': no X-API-Key header. */
async function post(instance: Instance, body: Record<string, unknown>, key = reader): Promise<Answer> {
  const response = await fetch(`${instance.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

async function get(instance: Instance, params: Record<string, string>, key = reader): Promise<Answer> {
  const response = await fetch(`${instance.url}/graphql?${new URLSearchParams(params)}`, {
    headers: { 'x-api-key': key },
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** Moves both instances' clock to the start of the next minute: a rate-limit window of its own, which lasts the whole test. */
function freshWindow(): void {
  clock.nextMinute();
}

const codes = (answer: Answer) => (answer.body.errors ?? []).map((error) => error.extensions?.code);
const storedCount = () => a.app.database.db.collection(PERSISTED_QUERY_COLLECTION).countDocuments({});

beforeAll(async () => {
  store = await startStoreUnderTest();
  const config = loadConfig(
    {},
    {
      port: 0,
      mongodbUri: store.uri,
      mongodbDb: testDatabaseName('apq'),
      logLevel: 'silent',
      rateLimitReads: READS,
      graphqlApqMaxEntries: MAX_ENTRIES,
    },
  );
  a = await startInstance(config);
  b = await startInstance(config);
  await seedDemoData(a.app.database.db, { candidates: 5, seed: 5 });
  const keys = new ApiKeyService(createApiKeyRepository(a.app.database.db), clock);
  const key = async (...permissions: [Permission, ...Permission[]]) => {
    const { key: value } = await keys.createKey({ name: `apq ${permissions.join(' ')}`, permissions });
    recordSecret(value);
    return value;
  };
  reader = await key('READ_CANDIDATE_DATA');
  registrar = await key('REGISTER_CANDIDATES');
});

afterAll(async () => {
  await a?.app.stop();
  await b?.app.stop();
  await store?.stop();
});

beforeEach(async () => {
  await a.app.database.db.collection(PERSISTED_QUERY_COLLECTION).deleteMany({});
});

describe('automatic persisted queries on /graphql', () => {
  test('when only the hash of an unknown query is sent, then the answer is PERSISTED_QUERY_NOT_FOUND; once registered with its query, the hash alone runs it, on POST and GET', async () => {
    const query = '{ countries { isoCode } }';
    const hash = sha256(query);

    const before = await post(a, { extensions: persisted(hash) });
    const registered = await post(a, { query, extensions: persisted(hash) });
    const byPost = await post(a, { extensions: persisted(hash) });
    const byGet = await get(a, { extensions: JSON.stringify(persisted(hash)) });

    expect(codes(before)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(before.body.data ?? null).toBeNull();
    expect(registered.body.errors).toBeUndefined();
    expect(registered.body.data!.countries.length).toBeGreaterThan(100);
    expect(byPost.body).toEqual(registered.body);
    expect(byGet.status).toBe(200);
    expect(byGet.body).toEqual(registered.body);
  });

  test('when a query is registered on one instance, then the hash alone runs it on the other (one store, shared)', async () => {
    const query = '{ languageLevels { level name } }';
    const hash = sha256(query);

    const registered = await post(a, { query, extensions: persisted(hash) });
    const onB = await post(b, { extensions: persisted(hash) });

    expect(registered.body.errors).toBeUndefined();
    expect(onB.body).toEqual(registered.body);
  });

  test('when the hash does not match the query, then the request is refused with 400 and nothing is stored', async () => {
    const query = '{ languages { isoCode } }';
    const otherHash = sha256('{ languages { name } }');

    const mismatch = await post(a, { query, extensions: persisted(otherHash) });
    const afterwards = await post(a, { extensions: persisted(otherHash) });

    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors?.[0]).toEqual(
      expect.objectContaining({
        message: expect.stringMatching(/sha does not match/),
        extensions: { code: 'BAD_REQUEST' },
      }),
    );
    expect(mismatch.body.data ?? null).toBeNull();
    expect(codes(afterwards)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(await storedCount()).toBe(0);
  });

  test('when a version other than 1 is sent, then the request is refused with 400', async () => {
    const answer = await post(a, { extensions: persisted(sha256('{ countries { isoCode } }'), 2) });

    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]).toEqual(
      expect.objectContaining({ message: expect.stringMatching(/version/), extensions: { code: 'BAD_REQUEST' } }),
    );
  });

  test('when a query breaks an abuse limit, then it is refused as without the hash and not registered', async () => {
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: countries { isoCode }`).join(' ');
    const query = `{ ${aliases} }`;
    const hash = sha256(query);

    const refused = await post(a, { query, extensions: persisted(hash) });
    const afterwards = await post(a, { extensions: persisted(hash) });

    expect(refused.body.data ?? null).toBeNull();
    expect(refused.body.errors?.length).toBeGreaterThan(0);
    expect(codes(afterwards)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });

  test('when a registered query is sent by hash without a key, or by a key without the permission, then it is refused as the query itself would be', async () => {
    const query = '{ candidates(limit: 1) { totalElements } }';
    const hash = sha256(query);
    await post(a, { query, extensions: persisted(hash) });

    const anonymous = await post(a, { extensions: persisted(hash) }, '');
    const forbidden = await post(b, { extensions: persisted(hash) }, registrar);
    const allowed = await post(b, { extensions: persisted(hash) });

    expect(anonymous.status).toBe(401);
    expect(codes(anonymous)).toEqual(['UNAUTHENTICATED']);
    expect(codes(forbidden)).toEqual(['FORBIDDEN']);
    expect(allowed.body.data).toEqual({ candidates: { totalElements: 5 } });
  });

  test('when a query is sent with its hash but without a key, then nothing is stored', async () => {
    const query = '{ educationLevels { level } }';
    const hash = sha256(query);

    const anonymous = await post(a, { query, extensions: persisted(hash) }, '');

    expect(anonymous.status).toBe(401);
    expect(await storedCount()).toBe(0);
  });

  test('when more queries are registered than GRAPHQL_APQ_MAX_ENTRIES, then the store keeps that many and the earliest registered is gone', async () => {
    const queries = Array.from(
      { length: MAX_ENTRIES + 2 },
      (_, i) => `{ occupations(limit: ${i + 1}) { isco08Code } }`,
    );
    for (const query of queries) {
      const answer = await post(a, { query, extensions: persisted(sha256(query)) });
      expect(answer.body.errors).toBeUndefined();
    }

    const first = await post(b, { extensions: persisted(sha256(queries[0])) });
    const last = await post(b, { extensions: persisted(sha256(queries.at(-1)!)) });

    expect(await storedCount()).toBe(MAX_ENTRIES);
    expect(codes(first)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(last.body.errors).toBeUndefined();
  });

  test('when a key has spent its read budget, then a query sent by hash alone is refused with 429 as the query itself would be', async () => {
    const { key } = await new ApiKeyService(createApiKeyRepository(a.app.database.db), clock).createKey({
      name: 'apq rate limit',
      permissions: ['READ_CANDIDATE_DATA'],
      rateLimit: { reads: 2, writes: 1 },
    });
    recordSecret(key);
    const query = '{ languages { isoCode } }';
    const hash = sha256(query);
    freshWindow();

    const registered = await post(a, { query, extensions: persisted(hash) }, key);
    const byHash = await post(b, { extensions: persisted(hash) }, key);
    const overBudget = await post(b, { extensions: persisted(hash) }, key);

    expect(registered.body.errors).toBeUndefined();
    expect(byHash.body.data).toEqual(registered.body.data);
    expect(overBudget.status).toBe(429);
    expect(codes(overBudget)).toEqual(['TOO_MANY_REQUESTS']);
  });

  test('when GRAPHQL_APQ_MAX_ENTRIES is 0, then a hash is answered PERSISTED_QUERY_NOT_SUPPORTED and nothing is stored', async () => {
    const config = loadConfig(
      {},
      {
        port: 0,
        mongodbUri: store.uri,
        mongodbDb: a.app.database.db.databaseName,
        logLevel: 'silent',
        graphqlApqMaxEntries: 0,
      },
    );
    const off = await startInstance(config);
    try {
      const query = '{ countries { isoCode } }';

      const answer = await post(off, { query, extensions: persisted(sha256(query)) });

      expect(codes(answer)).toEqual(['PERSISTED_QUERY_NOT_SUPPORTED']);
      expect(await storedCount()).toBe(0);
    } finally {
      await off.app.stop();
    }
  });
});

describe('PersistedQueryStore (bounds in time)', () => {
  test('when a query is older than GRAPHQL_APQ_TTL_SECONDS, then it is absent, and the next registration removes it from the store', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const cache = new PersistedQueryStore(
      new PersistedQueryRepository(a.app.database.db),
      { maxEntries: 10, ttlSeconds: 60 },
      { now: () => now },
    );

    await cache.set('apq:old', '{ countries { isoCode } }');
    const fresh = await cache.get('apq:old');
    now = new Date('2026-01-01T00:01:01Z');
    const expired = await cache.get('apq:old');
    await cache.set('apq:new', '{ languages { isoCode } }');

    expect(fresh).toBe('{ countries { isoCode } }');
    expect(expired).toBeUndefined();
    expect(
      await a.app.database.db
        .collection(PERSISTED_QUERY_COLLECTION)
        .find({}, { projection: { _id: 1 } })
        .toArray(),
    ).toEqual([{ _id: 'apq:new' }]);
  });
});

describe('automatic persisted queries hold queries only', () => {
  const registration = (email: string) =>
    `mutation Register { registerCandidate(input: { registrationData: { identity: { email: "${email}" } } }) { publicId } }`;

  test('when a mutation is sent with its hash (its input written out, or as variables), then it is refused with 400 naming variables and trusted documents, nothing runs and nothing is stored', async () => {
    const written = registration('apq.written@example.org');
    recordSecret('apq.written@example.org');
    const withVariables =
      'mutation R($input: RegisterCandidateInput!) { registerCandidate(input: $input) { publicId } }';
    const candidatesBefore = await a.app.database.db.collection('candidates').countDocuments({});

    const refused = [
      await post(a, { query: written, extensions: persisted(sha256(written)) }, registrar),
      await post(
        a,
        {
          query: withVariables,
          variables: { input: { registrationData: { identity: { email: 'apq.vars@example.org' } } } },
          extensions: persisted(sha256(withVariables)),
        },
        registrar,
      ),
    ];

    for (const answer of refused) {
      expect(answer.status).toBe(400);
      expect(codes(answer)).toEqual(['BAD_USER_INPUT']);
      expect(answer.body.errors?.[0]?.message).toMatch(/variables.*trusted documents/);
      expect(answer.body.data ?? null).toBeNull();
    }
    expect(await storedCount()).toBe(0);
    expect(await a.app.database.db.collection('candidates').countDocuments({})).toBe(candidatesBefore);
  });

  test('when a document with a query and a mutation is registered, then it is refused too (the whole text would be kept)', async () => {
    const query = `query Q { countries { isoCode } } ${registration('apq.both@example.org')}`;
    recordSecret('apq.both@example.org');

    const answer = await post(a, { query, operationName: 'Q', extensions: persisted(sha256(query)) });

    expect(answer.status).toBe(400);
    expect(codes(answer)).toEqual(['BAD_USER_INPUT']);
    expect(await storedCount()).toBe(0);
  });

  test('when the store holds mutations an earlier release kept, then a request by their hash is refused, and the next start removes them and keeps the queries', async () => {
    const mutation = registration('apq.kept@example.org');
    recordSecret('apq.kept@example.org');
    const query = '{ languages { isoCode } }';
    const expiresAt = new Date(clock.now().getTime() + 3_600_000);
    await a.app.database.db
      .collection<{ _id: string; query: string; expiresAt: Date }>(PERSISTED_QUERY_COLLECTION)
      .insertMany([
        { _id: `apq:${sha256(mutation)}`, query: mutation, expiresAt },
        { _id: `apq:${sha256('{ not a document')}`, query: '{ not a document', expiresAt },
        { _id: `apq:${sha256(query)}`, query, expiresAt },
      ]);

    const byHash = await post(a, { extensions: persisted(sha256(mutation)) }, registrar);
    const restarted = await startInstance(a.app.config);
    let kept: unknown[];
    try {
      kept = await a.app.database.db
        .collection(PERSISTED_QUERY_COLLECTION)
        .find({}, { projection: { _id: 0, query: 1 } })
        .toArray();
    } finally {
      await restarted.app.stop();
    }

    expect(byHash.status).toBe(400);
    expect(codes(byHash)).toEqual(['BAD_USER_INPUT']);
    expect(kept).toEqual([{ query }]);
  });
});
