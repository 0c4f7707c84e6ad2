import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CandidateDoc } from 'candidate-documents';
import { createSchema } from '../../src/graphql/schema';
import { loadPersistedOperations, persistedOperationsDirectory } from '../../src/rest/persisted-operations';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

const CANDIDATE_COUNT = 300;
const PROBLEMS = 'https://candidate-directory.example/problems/';
const SOME_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** Every operation of the contract, as method and concrete path. */
const OPERATIONS: [string, string][] = [
  ['GET', '/v1/candidates'],
  ['GET', `/v1/candidates/${SOME_ID}`],
  ['GET', `/v1/candidates/by-list/${SOME_ID}`],
  ['POST', '/v1/candidates/job-match'],
  ['POST', '/v1/candidates/offer-to-assist'],
  ['POST', '/v1/candidates/register'],
];

describe('HTTP behaviour of /v1: problems, methods, media types, sizes', () => {
  let service: AppUnderTest;
  let admin: string;
  let publicId: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: CANDIDATE_COUNT, seed: 15 });
    admin = await service.key('ADMIN');
    publicId = (await service.db.collection<CandidateDoc>(COLLECTIONS.candidates).findOne({}))!.publicId;
  });

  afterAll(async () => {
    await service.stop();
  });

  describe('authentication comes first', () => {
    test.each([
      ...OPERATIONS,
      ['DELETE', '/v1/candidates'],
      ['GET', '/v1/no-such-thing'],
      ['GET', '/v1/candidates?limit=0'],
    ])('when %s %s comes without a key, then the answer is 401 problem+json', async (method, path) => {
      const { status, headers, body } = await rest(service.url, method, path, method === 'POST' ? { body: {} } : {});

      expect(status).toBe(401);
      expect(headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(body).toEqual({
        type: `${PROBLEMS}unauthenticated`,
        title: 'Authentication required',
        status: 401,
        detail: expect.any(String),
        instance: path.split('?')[0],
      });
    });

    test.each([
      ['a malformed key', 'not-a-key'],
      ['a well-formed unknown key', `cdk_${'B'.repeat(43)}`],
    ])('when %s is sent, then the answer is 401', async (_case, key) => {
      const { status } = await rest(service.url, 'GET', '/v1/candidates', { key });

      expect(status).toBe(401);
    });

    test('when the header name is in another case, then the key is still read', async () => {
      const { status } = await rest(service.url, 'GET', '/v1/candidates?limit=1', { headers: { 'X-Api-KEY': admin } });

      expect(status).toBe(200);
    });
  });

  describe('routes and methods', () => {
    test.each([
      ['GET', '/v1/candidates/job-match', 'POST'],
      ['PUT', '/v1/candidates/offer-to-assist', 'POST'],
      ['DELETE', '/v1/candidates/register', 'POST'],
      ['DELETE', '/v1/candidates', 'GET, HEAD'],
      ['POST', '/v1/candidates', 'GET, HEAD'],
      ['PATCH', `/v1/candidates/${SOME_ID}`, 'GET, HEAD'],
      ['POST', `/v1/candidates/by-list/${SOME_ID}`, 'GET, HEAD'],
    ])('when %s %s is sent, then the answer is 405 with Allow: %s', async (method, path, allow) => {
      const { status, headers, body } = await rest(service.url, method, path, { key: admin });

      expect(status).toBe(405);
      expect(headers.get('allow')).toBe(allow);
      expect(body).toMatchObject({
        type: `${PROBLEMS}method-not-allowed`,
        title: 'Method not allowed',
        status: 405,
        instance: path,
      });
    });

    test.each(['/v1', '/v1/candidate', `/v1/candidates/${SOME_ID}/offers`, `/v1/candidates/by-list/${SOME_ID}/more`])(
      'when %s is requested, then the answer is a 404 problem',
      async (path) => {
        const { status, body } = await rest(service.url, 'GET', path, { key: admin });

        expect(status).toBe(404);
        expect(body).toMatchObject({ type: `${PROBLEMS}not-found`, instance: path });
      },
    );

    test.each(['/v1/candidates/%ZZ', '/v1/candidates/by-list/%E0%A4%A'])(
      'when the path %s is not valid percent-encoding, then the answer is 400',
      async (path) => {
        const { status, body } = await rest(service.url, 'GET', path, { key: admin });

        expect(status).toBe(400);
        expect(body).toMatchObject({
          type: `${PROBLEMS}invalid-parameter`,
          instance: path.replace(/%(?![0-9A-F]{2})/g, '%25'),
        });
      },
    );

    test('when the request line holds characters a URI may not, then instance is still a valid URI reference', async () => {
      const { status, body } = await rest(service.url, 'GET', '/v1/candidates/{x}|y', { key: admin });

      expect(status).toBe(400);
      expect(body.instance).toBe('/v1/candidates/%7Bx%7D%7Cy');
    });

    test('when a GET has a trailing slash, then it is the same resource', async () => {
      const { status, body } = await rest(service.url, 'GET', `/v1/candidates/${publicId}/`, { key: admin });

      expect(status).toBe(200);
      expect(body.publicId).toBe(publicId);
    });
  });

  describe('request bodies', () => {
    const post = (headers: Record<string, string>, rawBody?: string) =>
      rest(service.url, 'POST', '/v1/candidates/job-match', { key: admin, headers, rawBody });

    test.each([
      ['text/plain', { 'Content-Type': 'text/plain' }, '{"candidates":[]}'],
      ['form data', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'candidates=1'],
      ['no content type', {}, undefined],
      ['a JSON-like vendor type', { 'Content-Type': 'application/vnd.partner+json' }, '{}'],
    ])('when the body is %s, then the answer is 415', async (_case, headers, rawBody) => {
      const { status, body } = await post(headers, rawBody);

      expect(status).toBe(415);
      expect(body).toMatchObject({ type: `${PROBLEMS}unsupported-media-type`, title: 'Unsupported media type' });
    });

    test('when the charset is not UTF-8, then the answer is 415', async () => {
      const { status } = await post({ 'Content-Type': 'application/json; charset=iso-8859-1' }, '{}');

      expect(status).toBe(415);
    });

    test('when the content type has parameters and another case, then JSON is still accepted', async () => {
      const { status } = await post(
        { 'Content-Type': 'Application/JSON; charset=UTF-8' },
        JSON.stringify({ candidates: [{ publicId }] }),
      );

      expect(status).toBe(201);
    });

    test('when the JSON is malformed, then the answer is 400 and the body is not quoted', async () => {
      recordSecret('secret-value@example.org');
      const { status, body, text } = await post(
        { 'Content-Type': 'application/json' },
        '{"candidates": [ {"publicId": "secret-value@example.org" ',
      );

      expect(status).toBe(400);
      expect(body).toMatchObject({
        type: `${PROBLEMS}malformed-json`,
        title: 'Malformed JSON body',
        detail: 'The request body is not valid JSON.',
      });
      expect(text).not.toContain('secret-value');
    });

    test.each([
      ['a JSON string', '"hello"'],
      ['a JSON number', '42'],
    ])('when the body is %s, then the answer is 400', async (_case, rawBody) => {
      const { status } = await post({ 'Content-Type': 'application/json' }, rawBody);

      expect(status).toBe(400);
    });

    test('when the JSON body is empty, then the answer is 400 naming the missing field', async () => {
      const { status, body } = await post({ 'Content-Type': 'application/json' }, '');

      expect(status).toBe(400);
      expect(body.detail).toContain('candidates is required');
    });

    test('when the body is larger than 100kb, then the answer is 413', async () => {
      const big = JSON.stringify({ candidates: [{ publicId }], additionalNotes: 'x'.repeat(110 * 1024) });

      const { status, body } = await post({ 'Content-Type': 'application/json' }, big);

      expect(status).toBe(413);
      expect(body).toMatchObject({ type: `${PROBLEMS}payload-too-large`, status: 413 });
    });

    test('when a POST carries a query parameter, then the answer is 400 naming it', async () => {
      const { status, body } = await rest(service.url, 'POST', '/v1/candidates/job-match?dryRun=true', {
        key: admin,
        body: { candidates: [{ publicId }] },
      });

      expect(status).toBe(400);
      expect(body.detail).toContain('dryRun is not a parameter');
    });
  });

  describe('problem details', () => {
    test('when a request fails, then instance is its path without the query, which may hold what the service will not repeat', async () => {
      const query = '?email=someone.private%40example.org&location=LB,JO&limit=0';

      const { status, body, text } = await rest(service.url, 'GET', `/v1/candidates${query}`, { key: admin });

      expect(status).toBe(400);
      expect(body.instance).toBe('/v1/candidates');
      expect(text).not.toMatch(/someone|private|example\.org/);
    });

    test('when a request names an X-Request-Id, then it is echoed; otherwise one is made', async () => {
      const given = await rest(service.url, 'GET', '/v1/candidates?limit=1', {
        key: admin,
        headers: { 'X-Request-Id': 'trace-123' },
      });
      const made = await rest(service.url, 'GET', '/v1/candidates?limit=1', {
        key: admin,
        headers: { 'X-Request-Id': 'not ok <script>' },
      });

      expect(given.headers.get('x-request-id')).toBe('trace-123');
      expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    test('when execution fails on corrupt stored data, then the answer is a 500 that reveals nothing', async () => {
      const corrupt = 'CorruptCorruptCorrupt0';
      await service.db.collection(COLLECTIONS.candidates).insertOne({
        publicId: corrupt,
        createdDate: new Date(),
        status: 'ACTIVE',
        candidateOccupations: 'not a list',
      });

      const { status, body, text } = await rest(service.url, 'GET', `/v1/candidates/${corrupt}`, { key: admin });

      expect(status).toBe(500);
      expect(body.type).toBe(`${PROBLEMS}internal-error`);
      expect(text).not.toMatch(/Iterable|candidateOccupations|not a list/);
    });
  });
});

describe('/v1 when the database fails', () => {
  let service: AppUnderTest;
  let key: string;

  beforeAll(async () => {
    service = await startAppUnderTest();
    key = await service.key('ADMIN');
    await service.app.database.close();
  });

  afterAll(async () => {
    await service.stop();
  });

  test.each(OPERATIONS)(
    'when %s %s cannot reach the database, then the answer is a 503 problem revealing nothing',
    async (method, path) => {
      const body = {
        '/v1/candidates/job-match': { candidates: [{ publicId: SOME_ID }] },
        '/v1/candidates/offer-to-assist': { candidates: [{ publicId: SOME_ID }], reason: 'OTHER' },
        '/v1/candidates/register': { registrationData: { identity: { email: 'down@example.org' } } },
      }[path];
      recordSecret('down@example.org');

      const response = await rest(service.url, method, path, {
        key,
        headers: { 'X-Request-Id': 'outage-1' },
        ...(method === 'POST' ? { body } : {}),
      });

      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(response.body).toEqual({
        type: `${PROBLEMS}service-unavailable`,
        title: 'Service unavailable',
        status: 503,
        detail: 'The service is temporarily unavailable; retry later.',
        instance: path,
      });
    },
  );
});

describe('persisted operations at start-up', () => {
  test('when the persisted operations fit the schema, then they load', () => {
    expect(() => loadPersistedOperations(createSchema())).not.toThrow();
  });

  test('when a persisted operation no longer fits the schema, then loading fails naming it', () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'persisted-'));
    try {
      fs.cpSync(persistedOperationsDirectory(), directory, { recursive: true });
      const file = path.join(directory, 'get-candidate.graphql');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('...RestCandidate', '...RestCandidate formerField'));

      expect(() => loadPersistedOperations(createSchema(), directory)).toThrow(/GetCandidate.*formerField/);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
