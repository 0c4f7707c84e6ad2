import { createHash } from 'node:crypto';
import { hashApiKey } from '../../src/auth/api-key-format';
import type { CandidateDoc, OfferDoc } from 'candidate-documents';
import { createLogger } from '../../src/logger';
import { createApp } from '../../src/app/main';
import { fingerprintOf, Idempotency } from '../../src/rest/idempotency';
import { IDEMPOTENCY_COLLECTION } from '../../src/idempotency/idempotency-indexes';
import { IdempotencyRepository, type IdempotencyRecord } from '../../src/idempotency/idempotency-repository';
import { COLLECTIONS } from '../../src/app/indexes';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';
import { TestClock } from '../support/test-clock';

/** The tests name three candidates. */
const CANDIDATE_COUNT = 5;
const PROBLEMS = 'https://candidate-directory.example/problems/';
const HOUR_MS = 60 * 60 * 1000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Idempotency-Key on the POSTs of /v1', () => {
  let service: AppUnderTest;
  let actor: string;
  let ids: string[];
  let sequence = 0;
  /** The app's clock: records expire and leases pass when a test moves it (a future date: a real MongoDB's TTL monitor leaves them alone). */
  const clock = new TestClock('2030-05-06T12:00:00.000Z');

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: CANDIDATE_COUNT, seed: 14, clock });
    actor = await service.key('SUBMIT_JOB_MATCHES', 'OFFER_CANDIDATE_SERVICES', 'REGISTER_CANDIDATES');
    ids = (await service.db.collection<CandidateDoc>(COLLECTIONS.candidates).find({}, { limit: 3 }).toArray()).map(
      (c) => c.publicId,
    );
  });

  afterAll(async () => {
    await service.stop();
  });

  const offers = () => service.db.collection<OfferDoc>(COLLECTIONS.offers);
  const records = () => service.db.collection<IdempotencyRecord>(IDEMPOTENCY_COLLECTION);
  const newKey = () => `retry-${++sequence}-${Date.now()}`;
  const jobMatch = (idempotencyKey: string | undefined, body: unknown, key = actor, url = service.url) =>
    rest(url, 'POST', '/v1/candidates/job-match', {
      key,
      body,
      headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey },
    });

  test('when a request is repeated with the same key and body, then the first response is replayed and recorded once', async () => {
    const key = newKey();
    const body = { candidates: [{ publicId: ids[0] }], additionalNotes: 'first' };
    const before = await offers().countDocuments();

    const first = await jobMatch(key, body);
    const again = await jobMatch(key, body);

    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await offers().countDocuments()).toBe(before + 1);
  });

  test('when the repeat has the same fields in another order, then it is the same request', async () => {
    const key = newKey();
    const headers = { 'Idempotency-Key': key, 'Content-Type': 'application/json' };

    const first = await rest(service.url, 'POST', '/v1/candidates/offer-to-assist', {
      key: actor,
      headers,
      rawBody: `{"reason":"OTHER","candidates":[{"publicId":"${ids[0]}","couponCode":"C1"}]}`,
    });
    const again = await rest(service.url, 'POST', '/v1/candidates/offer-to-assist', {
      key: actor,
      headers,
      rawBody: `{ "candidates": [ { "couponCode": "C1", "publicId": "${ids[0]}" } ], "reason": "OTHER" }`,
    });

    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  test('when the key is reused with another body, then the answer is 422 and nothing more is recorded', async () => {
    const key = newKey();
    await jobMatch(key, { candidates: [{ publicId: ids[0] }] });
    const before = await offers().countDocuments();

    const { status, body } = await jobMatch(key, { candidates: [{ publicId: ids[1] }] });

    expect(status).toBe(422);
    expect(body).toMatchObject({ type: `${PROBLEMS}idempotency-key-reused`, status: 422 });
    expect(await offers().countDocuments()).toBe(before);
  });

  test('when the key is reused on another operation, then the answer is 422', async () => {
    const key = newKey();
    await jobMatch(key, { candidates: [{ publicId: ids[0] }] });

    const { status } = await rest(service.url, 'POST', '/v1/candidates/offer-to-assist', {
      key: actor,
      body: { candidates: [{ publicId: ids[0] }], reason: 'JOB_OPPORTUNITY' },
      headers: { 'Idempotency-Key': key },
    });

    expect(status).toBe(422);
  });

  test('when another API key sends the same Idempotency-Key, then its request runs on its own', async () => {
    const other = await service.key('SUBMIT_JOB_MATCHES');
    const key = newKey();
    const body = { candidates: [{ publicId: ids[2] }] };

    const mine = await jobMatch(key, body);
    const theirs = await jobMatch(key, body, other);

    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.jobMatchId).not.toBe(mine.body.jobMatchId);
  });

  test('when requests with one key arrive concurrently, then one runs and the others are replays or 409 in progress', async () => {
    const key = newKey();
    const body = { candidates: [{ publicId: ids[1] }], additionalNotes: 'concurrent' };
    const before = await offers().countDocuments();

    const answers = await Promise.all(Array.from({ length: 6 }, () => jobMatch(key, body)));

    const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    const others = answers.filter((a) => !ran.includes(a));
    expect(ran).toHaveLength(1);
    for (const other of others) {
      if (other.status === 201) expect(other.body).toEqual(ran[0].body);
      else expect(other.body).toMatchObject({ status: 409, type: `${PROBLEMS}idempotency-key-in-progress` });
    }
    expect(await offers().countDocuments()).toBe(before + 1);
  });

  test('when the first request was answered 404, then the repeat replays the 404', async () => {
    const key = newKey();
    const body = { candidates: [{ publicId: 'ZZZZZZZZZZZZZZZZZZZZZZ' }] };

    const first = await jobMatch(key, body);
    const again = await jobMatch(key, body);

    expect(first.status).toBe(404);
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  test('when a registration is repeated with its key, then the same publicId comes back and a new key gives 409', async () => {
    const key = newKey();
    const body = { registrarId: 'org-1', registrationData: { identity: { email: 'idempotent@example.org' } } };
    recordSecret(body.registrationData.identity.email);
    const register = (idempotencyKey: string) =>
      rest(service.url, 'POST', '/v1/candidates/register', {
        key: actor,
        body,
        headers: { 'Idempotency-Key': idempotencyKey },
      });

    const first = await register(key);
    const again = await register(key);
    const fresh = await register(newKey());

    expect(first.status).toBe(201);
    expect(again.body.publicId).toBe(first.body.publicId);
    expect(fresh.status).toBe(409);
  });

  test('when a registration sent with an Idempotency-Key is replayed after its candidate was erased, then the answer is 410 Gone problem+json that names no candidate, and the record no longer links to it', async () => {
    const key = newKey();
    const body = { registrarId: 'org-1', registrationData: { identity: { email: 'erased-later@example.org' } } };
    recordSecret(body.registrationData.identity.email);
    const admin = await service.key('ADMIN');
    const register = () =>
      rest(service.url, 'POST', '/v1/candidates/register', { key: actor, body, headers: { 'Idempotency-Key': key } });
    const first = await register();
    const publicId = first.body.publicId as string;

    const erased = await graphql(
      service.url,
      'mutation($id: PublicId!) { eraseCandidate(publicId: $id) { publicId } }',
      { id: publicId },
      admin,
    );
    const replay = await register();
    const record = await records().findOne({ keyHash: sha256(key) });

    expect(first.status).toBe(201);
    expect(erased.body.errors).toBeUndefined();
    expect(replay.status).toBe(410);
    expect(replay.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(expect.objectContaining({ type: `${PROBLEMS}candidate-erased`, status: 410 }));
    expect(JSON.stringify(replay.body)).not.toContain(publicId);
    expect(record).not.toBeNull();
    expect(JSON.stringify(record)).not.toContain(publicId);
  });

  test('when the body was invalid, then nothing was kept and the key serves a corrected request', async () => {
    const key = newKey();

    const invalid = await jobMatch(key, { candidates: [] });
    const corrected = await jobMatch(key, { candidates: [{ publicId: ids[0] }] });

    expect(invalid.status).toBe(400);
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  test.each([
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'clé-1'],
    ['a tab', 'key\tkey'],
    ['an empty value', ''],
  ])('when the Idempotency-Key has %s, then the answer is 400 naming the header', async (_case, idempotencyKey) => {
    // Header values travel as bytes: the UTF-8 bytes of the key, each as one latin-1 character.
    const { status, body } = await rest(service.url, 'POST', '/v1/candidates/job-match', {
      key: actor,
      body: { candidates: [{ publicId: ids[0] }] },
      headers: { 'Idempotency-Key': Buffer.from(idempotencyKey, 'utf8').toString('latin1') },
    });

    expect(status).toBe(400);
    expect(body.type).toBe(`${PROBLEMS}invalid-parameter`);
    expect(body.detail).toContain('Idempotency-Key');
  });

  test('when a key of 255 printable characters is sent, then it is accepted', async () => {
    const { status } = await jobMatch(`${newKey()}-${'x'.repeat(255)}`.slice(-255), {
      candidates: [{ publicId: ids[0] }],
    });

    expect(status).toBe(201);
  });

  test('when a record is a day old, then the key is free again (another body is refused until then)', async () => {
    const key = newKey();
    await jobMatch(key, { candidates: [{ publicId: ids[0] }] });

    clock.advance(24 * HOUR_MS - 1);
    const lastMoment = await jobMatch(key, { candidates: [{ publicId: ids[1] }] });
    clock.advance(1);
    const dayOld = await jobMatch(key, { candidates: [{ publicId: ids[1] }] });

    expect(lastMoment.status).toBe(422);
    expect(dayOld.status).toBe(201);
    expect(dayOld.headers.get('idempotent-replayed')).toBeNull();
  });

  test('when an earlier attempt holds the key, then a repeat is 409 while its lease runs and runs once the lease has passed', async () => {
    const key = newKey();
    const body = { candidates: [{ publicId: ids[2] }] };
    const apiKeyId = (await service.db.collection(COLLECTIONS.apiKeys).findOne({ keyHash: hashApiKey(actor) }))!
      .id as string;
    const held: IdempotencyRecord = {
      apiKeyId,
      keyHash: sha256(key),
      fingerprint: fingerprintOf('POST', '/v1/candidates/job-match', body),
      state: 'IN_PROGRESS',
      attempt: 'crashed-attempt',
      createdDate: clock.now(),
      leaseUntil: new Date(clock.now().getTime() + HOUR_MS),
    };
    await records().insertOne({ ...held });

    clock.advance(HOUR_MS - 1);
    const during = await jobMatch(key, body);
    clock.advance(1);
    const after = await jobMatch(key, body);

    expect(during.status).toBe(409);
    expect(during.body.type).toBe(`${PROBLEMS}idempotency-key-in-progress`);
    expect(after.status).toBe(201);
    expect(await records().findOne({ keyHash: held.keyHash })).toMatchObject({ state: 'COMPLETED' });
  });

  test('when an attempt answers 5xx or throws, then nothing is kept and a retry runs', async () => {
    const idempotency = new Idempotency(
      new IdempotencyRepository(service.db),
      createLogger({ logLevel: 'silent' }),
      60_000,
    );
    const request = { apiKeyId: 'key_unit', key: newKey(), fingerprint: 'f' };
    let runs = 0;

    const unavailable = await idempotency.run(request, async () => ({ status: (++runs, 503), body: {} }));
    const thrown = await idempotency
      .run(request, async () => {
        runs++;
        throw new Error('boom');
      })
      .catch((error: Error) => error.message);
    const retried = await idempotency.run(request, async () => ({ status: (++runs, 201), body: { ok: true } }));

    expect(unavailable).toEqual({ response: { status: 503, body: {} }, replayed: false });
    expect(thrown).toBe('boom');
    expect(retried).toEqual({ response: { status: 201, body: { ok: true } }, replayed: false });
    expect(runs).toBe(3);
  });

  test('when a repeat reaches another instance over the same database, then it replays the first answer', async () => {
    const second = await createApp(service.app.config, createLogger({ logLevel: 'silent' }), clock);
    const secondUrl = await second.start();
    try {
      const key = newKey();
      const body = { candidates: [{ publicId: ids[0] }, { publicId: ids[1] }] };

      const first = await jobMatch(key, body);
      const elsewhere = await jobMatch(key, body, actor, secondUrl);

      expect(elsewhere.status).toBe(201);
      expect(elsewhere.headers.get('idempotent-replayed')).toBe('true');
      expect(elsewhere.body).toEqual(first.body);
    } finally {
      await second.stop();
    }
  });
});
