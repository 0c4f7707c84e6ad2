import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { CandidateDoc, OfferDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import {
  checkProperty,
  BODY_LIMIT_BYTES,
  describeRequest,
  edgeText,
  exchange,
  expectNone,
  fuzzParameters,
  hostileValue,
  identityCanary,
  identityLeaks,
  invalidUtf8Bytes,
  jobMatchInput,
  offerToAssistInput,
  registrationInput,
  InvalidUtf8,
  jsonBytes,
  longText,
  mutate,
  mutation,
  objectOf,
  prototypeIntact,
  setAt,
  restFailures,
  valueAt,
  deeplyNested,
  type Exchange,
  type HostileJson,
} from '../support/arbitraries';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * Property tests of the bodies of the three POSTs of /v1: well-formed bodies with hostile
 * values put in anywhere (MongoDB operators where ids, e-mails, codes are expected, prototype
 * keys, edge numbers, invalid UTF-8, deep nesting), bodies around the size limit, and odd
 * media types and encodings. Whatever is sent: never a 5xx, every error a problem+json, an
 * operator never matches or stores anything, and no identity value is ever answered.
 */

const CANDIDATE_COUNT = 100;
const PUBLIC_ID = /^[A-Za-z0-9_-]{22}$/;
const OPERATIONS = ['job-match', 'offer-to-assist', 'register'] as const;
type Operation = (typeof OPERATIONS)[number];

describe('property: bodies of the REST POSTs', () => {
  let service: AppUnderTest;
  let admin: string;
  let existingIds: string[];
  /** identity values of every registration so far: none may ever be answered */
  const canaries: string[] = [];

  beforeAll(async () => {
    service = await startAppUnderTest({
      candidates: CANDIDATE_COUNT,
      seed: 22,
      config: { rateLimitReads: 1_000_000, rateLimitWrites: 1_000_000 },
    });
    admin = await service.key('ADMIN');
    for (const tag of ['pz8n4d', 'kw2y7c']) {
      const canary = identityCanary(tag);
      recordSecret(...canary.values);
      const { status } = await rest(service.url, 'POST', '/v1/candidates/register', { key: admin, body: canary.body });
      if (status !== 201) throw new Error(`the canary registration was answered ${status}`);
      canaries.push(...canary.values);
    }
    existingIds = (
      await service.db
        .collection<CandidateDoc>(COLLECTIONS.candidates)
        .find({}, { projection: { _id: 0, publicId: 1 } })
        .toArray()
    ).map((c) => c.publicId);
  });

  afterAll(async () => {
    await service?.stop();
  });

  const offers = () => service.db.collection<OfferDoc>(COLLECTIONS.offers);
  const post = (operation: Operation, body: Buffer, headers: Record<string, string> = {}) =>
    exchange(service.url, {
      method: 'POST',
      target: `/v1/candidates/${operation}`,
      headers: { 'x-api-key': admin, 'content-type': 'application/json', ...headers },
      body,
    });

  /** The body as the server's JSON parser sees it (lone surrogates, invalid UTF-8, 1e309 and all). */
  const asParsed = (bytes: Buffer): HostileJson => JSON.parse(bytes.toString('utf8')) as HostileJson;

  /** Every value at `candidates[*].publicId` is a public id string (only then may the lookup run). */
  const idsAreWellFormed = (body: HostileJson): boolean => {
    const candidates = valueAt(body, 'candidates');
    return (
      Array.isArray(candidates) &&
      candidates.every(
        (_, i) =>
          typeof valueAt(body, 'candidates', i, 'publicId') === 'string' &&
          PUBLIC_ID.test(valueAt(body, 'candidates', i, 'publicId') as string),
      )
    );
  };

  /** What a 201 of a job match or an offer must mean: a record of exactly the existing candidates sent. */
  async function recordFailures(ex: Exchange, body: HostileJson): Promise<string[]> {
    if (ex.status !== 201) return [];
    const answer = ex.json as { jobMatchId?: string; offerId?: string };
    const offer = await offers().findOne({ publicId: answer.jobMatchId ?? answer.offerId ?? '' });
    const sent = (valueAt(body, 'candidates') as HostileJson[]).map((_, i) =>
      valueAt(body, 'candidates', i, 'publicId'),
    );
    const stored = offer?.candidates.map((c) => c.publicId) ?? [];
    const failures: string[] = [];
    if (offer === null) failures.push('a 201 without a stored record');
    if (stored.some((id) => typeof id !== 'string' || !existingIds.includes(id)))
      failures.push(`a record of something else than existing candidates: ${JSON.stringify(offer?.candidates)}`);
    if (JSON.stringify([...new Set(stored)].sort()) !== JSON.stringify([...new Set(sent as string[])].sort()))
      failures.push(`stored ${JSON.stringify(stored)}, sent ${JSON.stringify(sent)}`);
    return failures.map((f) => `${f}\n  ${describeRequest(ex.request)}`);
  }

  // -------------------------------------------------------------------------------------------
  // Arbitraries

  const canary = () => fc.constantFrom(...canaries);
  const hostile = () => hostileValue({ realIds: existingIds, canaries: canary() });
  const notes = () => fc.oneof(fc.string({ maxLength: 40 }), edgeText, canary());
  const jobMatchBody = () => jobMatchInput(existingIds, notes());
  const offerBody = () => offerToAssistInput(existingIds, notes());
  const registration = registrationInput;

  /** Mostly absent or valid (an invalid key is refused before the body is read). */
  const idempotencyKey = fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constantFrom('fuzz-1', 'fuzz-2', '{"$ne":null}', '__proto__') },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(256), 'k\u00e9y', '\u00ff\u00fe') },
  );

  // -------------------------------------------------------------------------------------------

  test('when a job match body carries hostile values anywhere, then no 5xx, every error is a problem, and only well-formed existing ids are ever recorded', async () => {
    await checkProperty(
      fc.asyncProperty(
        jobMatchBody(),
        fc.array(mutation(hostile()), { maxLength: 3 }),
        idempotencyKey,
        async (skeleton, mutations, key) => {
          const bytes = jsonBytes(mutate(skeleton, mutations));
          const ex = await post('job-match', bytes, key === undefined ? {} : { 'idempotency-key': key });
          const body = asParsed(bytes);

          expectNone([
            ...restFailures(ex, [201, 400, 404, 409, 413, 422]),
            ...identityLeaks(ex, canaries),
            ...prototypeIntact(),
            ...(idsAreWellFormed(body) || [400, 413].includes(ex.status)
              ? []
              : [
                  `a ${ex.status} for ids that are not all public id strings (an operator reached the lookup)\n  ${describeRequest(ex.request)}\n  → ${ex.text.slice(0, 300)}`,
                ]),
            ...(bytes.length > BODY_LIMIT_BYTES
              ? ex.status === 413
                ? []
                : [`a ${ex.status} for a body of ${bytes.length} bytes`]
              : []),
            ...(await recordFailures(ex, body)),
          ]);
        },
      ),
      fuzzParameters(120, 4_000),
    );
  }, 20_000);

  test('when an offer-to-assist body carries hostile values anywhere, then no 5xx, every error is a problem, and only well-formed existing ids are ever recorded', async () => {
    await checkProperty(
      fc.asyncProperty(offerBody(), fc.array(mutation(hostile()), { maxLength: 3 }), async (skeleton, mutations) => {
        const bytes = jsonBytes(mutate(skeleton, mutations));
        const ex = await post('offer-to-assist', bytes);
        const body = asParsed(bytes);

        expectNone([
          ...restFailures(ex, [201, 400, 404, 413]),
          ...identityLeaks(ex, canaries),
          ...prototypeIntact(),
          ...(idsAreWellFormed(body) || [400, 413].includes(ex.status)
            ? []
            : [
                `a ${ex.status} for ids that are not all public id strings\n  ${describeRequest(ex.request)}\n  → ${ex.text.slice(0, 300)}`,
              ]),
          ...(await recordFailures(ex, body)),
        ]);
      }),
      fuzzParameters(120, 4_000),
    );
  }, 20_000);

  test('when a registration carries hostile values anywhere, then no 5xx, the e-mail is never an operator, and neither the answer nor a read of the new candidate holds an identity value', async () => {
    await checkProperty(
      fc.asyncProperty(
        registration(),
        fc.array(mutation(hostile()), { maxLength: 3 }),
        async ({ body: skeleton, values }, mutations) => {
          const bytes = jsonBytes(mutate(skeleton, mutations));
          const ex = await post('register', bytes);
          const body = asParsed(bytes);
          const failures = [
            ...restFailures(ex, [201, 400, 409, 413]),
            ...identityLeaks(ex, [...canaries, ...values]),
            ...prototypeIntact(),
          ];
          const email = valueAt(body, 'registrationData', 'identity', 'email');
          if (typeof email !== 'string' && ![400, 413].includes(ex.status))
            failures.push(`a ${ex.status} for an e-mail that is not a string: ${describeRequest(ex.request)}`);
          if (ex.status === 201) {
            recordSecret(...values);
            canaries.push(...values);
            const read = await exchange(service.url, {
              method: 'GET',
              target: `/v1/candidates/${(ex.json as { publicId: string }).publicId}`,
              headers: { 'x-api-key': admin },
            });
            failures.push(...restFailures(read, [200]), ...identityLeaks(read, canaries));
          }
          expectNone(failures);
        },
      ),
      fuzzParameters(100, 4_000),
    );
  }, 20_000);

  test('when a body nests arrays or objects 1,000 to 60,000 deep at any place, then the answer is a 400 or (over the limit) a 413', async () => {
    const skeleton = fc.oneof(
      jobMatchBody().map((body) => ['job-match', body] as const),
      offerBody().map((body) => ['offer-to-assist', body] as const),
      registration().map(({ body }) => ['register', body] as const),
    );
    const deep = mutation(deeplyNested(1_000, 60_000)).map((m) => ({ ...m, kind: 'replace' as const }));
    await checkProperty(
      fc.asyncProperty(skeleton, deep, idempotencyKey, async ([operation, body], m, key) => {
        const bytes = jsonBytes(mutate(body, [m]));
        const ex = await post(operation, bytes, key === undefined ? {} : { 'idempotency-key': key });

        expectNone([...restFailures(ex, [400, 413]), ...prototypeIntact()]);
        expect(ex.status).toBe(bytes.length > BODY_LIMIT_BYTES ? 413 : 400);
      }),
      fuzzParameters(50, 2_000),
    );
  }, 15_000);

  test('when a body is around the 100 kB limit (long notes, many candidates, many list items, many fields), then the answer is a 400 or 413 by size and rules, never a 5xx', async () => {
    const big = fc.oneof(
      longText(1_000, 120_000).map(
        (text) =>
          ['job-match', { candidates: [{ publicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], additionalNotes: text }] as const,
      ),
      fc.integer({ min: 90, max: 3_500 }).map(
        (n) =>
          [
            'job-match',
            {
              candidates: Array.from({ length: n }, (_, i) => ({
                publicId: `${String(i).padStart(6, '0')}AAAAAAAAAAAAAAAA`,
              })),
            },
          ] as const,
      ),
      fc.integer({ min: 51, max: 4_000 }).map(
        (n) =>
          [
            'register',
            {
              registrationData: {
                identity: { email: 'many@example.org' },
                candidateSkills: Array.from({ length: n }, () => ({ skill: 'x' })),
              },
            },
          ] as const,
      ),
      fc
        .integer({ min: 100, max: 8_000 })
        .map(
          (n) =>
            [
              'offer-to-assist',
              objectOf([
                ['reason', 'OTHER'],
                ['candidates', []],
                ...Array.from({ length: n }, (_, i) => [`f${i}`, i] as const),
              ]),
            ] as const,
        ),
      longText(90_000, 110_000).map(
        (text) =>
          [
            'register',
            { registrationData: { identity: { email: `${text.slice(0, 64)}@example.org`, firstName: text } } },
          ] as const,
      ),
    );
    await checkProperty(
      fc.asyncProperty(big, async ([operation, body]) => {
        const bytes = jsonBytes(body as HostileJson);
        const started = Date.now();
        const ex = await post(operation, bytes);

        expectNone([...restFailures(ex, [400, 404, 413]), ...identityLeaks(ex, canaries)]);
        expect(ex.status === 413).toBe(bytes.length > BODY_LIMIT_BYTES);
        expect(Date.now() - started).toBeLessThan(5_000);
      }),
      fuzzParameters(40, 2_000),
    );
  }, 15_000);

  test('when the media type, charset or content encoding is odd or lies, then the answer is a problem (415, 413 or 400) or the operation itself, never a 5xx', async () => {
    const contentType = fc.option(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'APPLICATION/JSON; CHARSET=UTF-8',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/json; charset="utf-8"',
        'application/json; charset=\u00ff',
        'application/json;;;',
        'application/json; boundary=x; charset',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/problem+json',
        'multipart/form-data; boundary=x',
        '',
        '*/*',
      ),
      { nil: undefined },
    );
    const encoding = fc.option(
      fc.constantFrom(
        'gzip',
        'gzip (not compressed)',
        'deflate (not compressed)',
        'br (not compressed)',
        'identity',
        'x-unknown',
        'gzip, gzip',
      ),
      { nil: undefined },
    );
    const payload = fc.oneof(
      jobMatchBody().map((body) => jsonBytes(body)),
      invalidUtf8Bytes.map((bytes) =>
        Buffer.concat([Buffer.from('{"candidates":[{"publicId":"'), Buffer.from(bytes), Buffer.from('"}]}')]),
      ),
      invalidUtf8Bytes.map((bytes) =>
        Buffer.concat([Buffer.from('{"candidates":'), Buffer.from(bytes), Buffer.from('}')]),
      ),
      fc.constantFrom(
        Buffer.from(''),
        Buffer.from('null'),
        Buffer.from('[]'),
        Buffer.from('"x"'),
        Buffer.from('{"candidates":[],}'),
        Buffer.from('\ufeff{}'),
        Buffer.from('{"a":1}{"b":2}'),
      ),
    );
    await checkProperty(
      fc.asyncProperty(
        fc.constantFrom(...OPERATIONS),
        contentType,
        encoding,
        payload,
        async (operation, type, enc, raw) => {
          const compressed = enc === 'gzip' || enc === 'gzip, gzip';
          const body = compressed ? gzipSync(enc === 'gzip, gzip' ? gzipSync(raw) : raw) : raw;
          const headers: Record<string, string> = {
            'x-api-key': admin,
            ...(type === undefined ? {} : { 'content-type': type }),
            ...(enc === undefined ? {} : { 'content-encoding': enc.split(' (')[0] }),
          };
          const ex = await exchange(service.url, {
            method: 'POST',
            target: `/v1/candidates/${operation}`,
            headers,
            body,
          });

          expectNone([
            ...restFailures(ex, [201, 400, 404, 409, 413, 415]),
            ...identityLeaks(ex, canaries),
            ...prototypeIntact(),
          ]);
        },
      ),
      fuzzParameters(120, 3_000),
    );
  }, 15_000);

  test('when a small gzip body inflates far beyond the limit (a zip bomb), then the answer is a quick 413', async () => {
    await checkProperty(
      fc.asyncProperty(fc.integer({ min: 1, max: 20 }), fc.constantFrom(' ', '0', '['), async (megabytes, filler) => {
        const inflated = Buffer.alloc(megabytes * 1024 * 1024, filler);
        const started = Date.now();
        const ex = await post('job-match', gzipSync(inflated), { 'content-encoding': 'gzip' });

        expectNone(restFailures(ex, [413]));
        expect(Date.now() - started).toBeLessThan(3_000);
      }),
      fuzzParameters(6, 2_000),
    );
  }, 15_000);

  test('when a string holds invalid UTF-8 or unicode edge cases at an id, an e-mail or a code, then it is refused as input, never a 5xx', async () => {
    const odd = fc.oneof(
      invalidUtf8Bytes.map((bytes) => new InvalidUtf8(bytes) as HostileJson),
      edgeText,
      fc.constantFrom(
        '\ud800',
        'ＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡ',
        'AAAAAAAAAAAAAAAAAAAAA\u0301',
        'AAAAAAAAAAAAAAAAAAAAA\u200b',
      ),
    );
    const place = fc.constantFrom(
      ['job-match', ['candidates', 0, 'publicId']] as const,
      ['offer-to-assist', ['candidates', 0, 'couponCode']] as const,
      ['register', ['registrationData', 'identity', 'email']] as const,
      ['register', ['registrationData', 'country', 'isoCode']] as const,
      ['register', ['registrationData', 'candidateOccupations', 0, 'occupation', 'isco08Code']] as const,
      ['register', ['registrationData', 'dob']] as const,
    );
    await checkProperty(
      fc.asyncProperty(
        place,
        odd,
        registration(),
        async ([operation, path], value, { body: registrationBody, values }) => {
          const base: HostileJson =
            operation === 'register'
              ? registrationBody
              : objectOf([
                  ['candidates', [{ publicId: existingIds[0], couponCode: 'C-1' }]],
                  ['reason', 'OTHER'],
                ]);
          const body = setAt(
            operation === 'job-match' ? objectOf([['candidates', [{ publicId: existingIds[0] }]]]) : base,
            path,
            value,
          );
          const ex = await post(operation, jsonBytes(body));

          expectNone([...restFailures(ex, [201, 400, 409]), ...identityLeaks(ex, [...canaries, ...values])]);
          if (ex.status === 201 && operation === 'register') {
            recordSecret(...values);
            canaries.push(...values);
          }
        },
      ),
      fuzzParameters(60, 2_000),
    );
  }, 15_000);
});
