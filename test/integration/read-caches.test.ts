/**
 * The read caches (docs/operators.md, "Read caches"): what an instance keeps between requests serves a
 * request only under the read epoch that request read, so answers are fast when nothing
 * changed and exact when something did.
 */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { CommandStartedEvent } from 'mongodb';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import type { CandidateDoc } from 'candidate-documents';
import { RATE_LIMIT_COLLECTION } from '../../src/rate-limit/rate-limit-indexes';
import { COLLECTIONS } from '../../src/app/indexes';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { isBackgroundCommand } from '../support/background-commands';
import { rest } from '../support/rest-client';

const registration = (email: string) => ({
  registrarId: 'cache-test',
  registrationData: {
    identity: { email },
    country: { isoCode: 'LB' },
    nationality: { isoCode: 'SY' },
    candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 3 }],
  },
});

/** The collections a function's requests touch, one entry per command. */
async function collectionsTouched(service: AppUnderTest, run: () => Promise<unknown>): Promise<string[]> {
  const touched: string[] = [];
  const listener = (event: CommandStartedEvent) => {
    if (!isBackgroundCommand(event)) touched.push(String(event.command[event.commandName]));
  };
  service.app.database.client.on('commandStarted', listener);
  try {
    await run();
    return touched;
  } finally {
    service.app.database.client.off('commandStarted', listener);
  }
}

describe('read caches', () => {
  let service: AppUnderTest;
  let reader: string;
  let registrar: string;
  let someId: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 40, seed: 5 });
    reader = await service.key('READ_CANDIDATE_DATA');
    registrar = await service.key('REGISTER_CANDIDATES');
    someId = (await service.db.collection<CandidateDoc>(COLLECTIONS.candidates).findOne({}))!.publicId;
  });

  afterAll(async () => {
    await service.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    rest(service.url, 'GET', path, { key: reader, headers });

  test('when the same GET is repeated with no write between, then the repeat reads no candidate and no key, only the epoch', async () => {
    const first = await get(`/v1/candidates/${someId}`);
    const touched = await collectionsTouched(service, () => get(`/v1/candidates/${someId}`));
    const again = await get(`/v1/candidates/${someId}`);

    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    // (the rate-limit counter and the audit event are written for every request)
    expect(touched.filter((c) => c !== AUDIT_COLLECTION && c !== RATE_LIMIT_COLLECTION)).toEqual(['readEpoch']);
  });

  test('when a candidate registers after a search was answered, then the next search counts it, on REST and GraphQL', async () => {
    const before = await get('/v1/candidates?location=LB&limit=100');
    const graphqlBefore = await graphql<{ candidates: { totalElements: number } }>(
      service.url,
      '{ candidates(filter: {location: ["LB"]}) { totalElements } }',
      {},
      reader,
    );

    const registered = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      body: registration('cache-test@example.org'),
    });
    const after = await get('/v1/candidates?location=LB&limit=100');
    const graphqlAfter = await graphql<{ candidates: { totalElements: number } }>(
      service.url,
      '{ candidates(filter: {location: ["LB"]}) { totalElements } }',
      {},
      reader,
    );

    expect(registered.status).toBe(201);
    expect(after.body.totalElements).toBe(before.body.totalElements + 1);
    expect(after.body.content.map((c: { publicId: string }) => c.publicId)).toContain(registered.body.publicId);
    expect(graphqlAfter.body.data!.candidates.totalElements).toBe(
      graphqlBefore.body.data!.candidates.totalElements + 1,
    );
  });

  test('when a candidate is read twice over GraphQL, then the second read takes it from the cache, and the answer is the same', async () => {
    const query = `query($id: PublicId!) { candidate(publicId: $id) { publicId status candidateOccupations { occupation { isco08Code } } partner { publicId } } }`;
    const first = await graphql(service.url, query, { id: someId }, reader);
    const touched = await collectionsTouched(service, async () => {
      const second = await graphql(service.url, query, { id: someId }, reader);
      expect(second.body).toEqual(first.body);
    });

    expect(first.body.errors).toBeUndefined();
    expect(touched).not.toContain(COLLECTIONS.candidates);
  });

  /** A GET through plain node:http: the bytes as sent (fetch would decompress them) and no headers but these. */
  const rawGet = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) =>
      http
        .get(`${service.url}${path}`, { headers: { 'x-api-key': reader, ...headers } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject),
    );

  test('when an answer comes from the cache, then it carries the ETag of its body and a conditional GET gets 304, per encoding', async () => {
    const first = await rawGet(`/v1/candidates?limit=5`);
    const second = await rawGet(`/v1/candidates?limit=5`);
    const etag = second.headers.etag!;
    const zipped = await rawGet(`/v1/candidates?limit=5`, { 'accept-encoding': 'gzip' });
    const zippedEtag = zipped.headers.etag!;
    // Plain node:http: fetch turns a conditional request into Cache-Control: no-cache, which must get 200.
    const conditional = await rawGet(`/v1/candidates?limit=5`, { 'if-none-match': etag });
    const zippedConditional = await rawGet(`/v1/candidates?limit=5`, {
      'if-none-match': zippedEtag,
      'accept-encoding': 'gzip',
    });
    const otherEncoding = await rawGet(`/v1/candidates?limit=5`, { 'if-none-match': zippedEtag });
    const noCache = await get(`/v1/candidates?limit=5`, { 'if-none-match': etag });

    expect(etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    expect(first.headers.etag).toBe(etag);
    expect(zippedEtag).toBe(`${etag.slice(0, -1)}-gzip"`);
    expect([conditional.status, zippedConditional.status]).toEqual([304, 304]);
    expect(otherEncoding.status).toBe(200);
    expect(noCache.status).toBe(200);
  });

  test('when the client accepts gzip, then an answer of 1 KB or more comes compressed, the same JSON, with Vary: Accept-Encoding', async () => {
    const path = `/v1/candidates?limit=20`;
    // The first answer is computed for a gzip client; the others come from the cache.
    const fresh = await rawGet(path, { 'accept-encoding': 'gzip, deflate, br' });
    const plain = await rawGet(path);
    const cached = await rawGet(path, { 'accept-encoding': 'gzip' });
    const refused = await rawGet(path, { 'accept-encoding': 'gzip;q=0, identity' });

    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(1024);
    for (const zipped of [fresh, cached]) {
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
      expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
      expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
      expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    }
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);
  });

  test('when an answer is under 1 KB, then it is sent as it is, even to a client that accepts gzip', async () => {
    const small = await rawGet(`/v1/candidates?location=ZZ`, { 'accept-encoding': 'gzip' });

    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8'))).toMatchObject({ content: [], totalElements: 0 });
  });

  test('when an answer comes from the cache, then the request still has its own audit event naming the candidates returned', async () => {
    const path = `/v1/candidates?limit=3&nationality=SY`;
    await get(path);
    const cached = await get(path, { 'x-request-id': 'cached-answer-audit' });
    const returned = cached.body.content.map((c: { publicId: string }) => c.publicId);

    let event: { candidatePublicIds: string[]; status: number } | null = null;
    for (let i = 0; i < 100 && event === null; i++) {
      event = await service.db
        .collection<{ candidatePublicIds: string[]; status: number }>(AUDIT_COLLECTION)
        .findOne({ requestId: 'cached-answer-audit' });
      if (event === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(returned.length).toBeGreaterThan(0);
    expect(event).toMatchObject({ status: 200, candidatePublicIds: returned });
  });

  test('when a GET fails (404), then nothing is kept: each 404 is looked up in the store again', async () => {
    // Ids are random; a 404 is answered from the store every time (only 200 answers are kept).
    const unknown = 'AAAAAAAAAAAAAAAAAAAAAA';
    const touched = await collectionsTouched(service, async () => {
      expect((await get(`/v1/candidates/${unknown}`)).status).toBe(404);
      expect((await get(`/v1/candidates/${unknown}`)).status).toBe(404);
    });
    expect(touched.filter((c) => c === COLLECTIONS.candidates)).toHaveLength(2);
  });
});

describe('read caches switched off', () => {
  let service: AppUnderTest;
  let reader: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 5, seed: 6, config: { readCacheEntries: 0, readCacheMb: 0 } });
    reader = await service.key('READ_CANDIDATE_DATA');
  });

  afterAll(async () => {
    await service.stop();
  });

  test('when READ_CACHE_ENTRIES and READ_CACHE_MB are 0, then every request reads its key and its candidates', async () => {
    const id = (await service.db.collection<CandidateDoc>(COLLECTIONS.candidates).findOne({}))!.publicId;
    await rest(service.url, 'GET', `/v1/candidates/${id}`, { key: reader });
    const touched = await collectionsTouched(service, () =>
      rest(service.url, 'GET', `/v1/candidates/${id}`, { key: reader }),
    );

    expect(touched).toContain(COLLECTIONS.apiKeys);
    expect(touched).toContain(COLLECTIONS.candidates);
  });
});

describe('read caches under a cold rotation', () => {
  let service: AppUnderTest;
  let reader: string;
  let ids: string[];

  beforeAll(async () => {
    // Room for two candidates only, no kept answers, and no rate-limit flush while the test runs.
    service = await startAppUnderTest({
      candidates: 12,
      seed: 9,
      config: { readCacheEntries: 2, readCacheMb: 0, rateLimitFlushMs: 60_000 },
    });
    reader = await service.key('READ_CANDIDATE_DATA');
    ids = (await service.db.collection<CandidateDoc>(COLLECTIONS.candidates).find({}).toArray()).map(
      (doc) => doc.publicId,
    );
  });

  afterAll(async () => {
    await service.stop();
  });

  test('when requests rotate over more candidates than the cache holds, then each reads its candidate but neither the key (it has a budget of its own) nor the rate-limit counter', async () => {
    await rest(service.url, 'GET', `/v1/candidates/${ids[0]}`, { key: reader });

    const touched = await collectionsTouched(service, async () => {
      // The warm-up's candidate comes last, when the two kept since have pushed it out.
      for (const id of [...ids.slice(1), ids[0]])
        expect((await rest(service.url, 'GET', `/v1/candidates/${id}`, { key: reader })).status).toBe(200);
    });

    expect(touched.filter((c) => c === COLLECTIONS.candidates)).toHaveLength(ids.length);
    expect(touched).not.toContain(COLLECTIONS.apiKeys);
    // The key's window was opened by the first request; a new minute starting meanwhile opens one more.
    expect(touched.filter((c) => c === RATE_LIMIT_COLLECTION).length).toBeLessThanOrEqual(1);
  });

  test('when requests for different candidates run at once (their loads coalesced into shared fetches), then each gets exactly the answer it gets alone', async () => {
    const alone = new Map<string, string>();
    for (const id of ids) alone.set(id, (await rest(service.url, 'GET', `/v1/candidates/${id}`, { key: reader })).text);

    const together = await Promise.all(
      [...ids, ...ids].map((id) =>
        rest(service.url, 'GET', `/v1/candidates/${id}`, { key: reader }).then((answer) => [id, answer] as const),
      ),
    );

    for (const [id, answer] of together) {
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(alone.get(id));
    }
  });
});
