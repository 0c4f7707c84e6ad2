import { MongoClient, type Db } from 'mongodb';
import { appendChangeEvent, ChangeEventRepository } from '../../src/changes/change-events';
import { COLLECTIONS, ensureIndexes } from '../../src/app/indexes';
import { WriteTransactions } from '../../src/store/write-transaction';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { at, testDatabaseName } from '../support/builders';
import { rest } from '../support/rest-client';
import { startStoreUnderTest, type StoreUnderTest } from 'embedded-mongodb/test-support';

describe('the change-event outbox', () => {
  let store: StoreUnderTest;
  let client: MongoClient;
  const databases: Db[] = [];

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = new MongoClient(store.uri);
    await client.connect();
  });

  afterAll(async () => {
    for (const db of databases) await db.dropDatabase();
    await client?.close();
    await store?.stop();
  });

  async function freshDatabase(label: string): Promise<Db> {
    const db = client.db(testDatabaseName(label));
    databases.push(db);
    await ensureIndexes(db);
    return db;
  }

  test('when events are appended in transactions, then they are read back numbered from 1 in commit order, paged by seq', async () => {
    const db = await freshDatabase('outbox');
    const transactions = new WriteTransactions(db);
    const changes = new ChangeEventRepository(db);

    for (let i = 0; i < 5; i++) {
      await transactions.run(
        (session) => appendChangeEvent(db, session, { kind: 'REGISTERED', publicId: `candidate-${i}`, at: at(i) }),
        [],
      );
    }

    const first = await changes.readAfter(0, 2);
    expect(first).toEqual([
      { seq: 1, kind: 'REGISTERED', publicId: 'candidate-0', at: at(0) },
      { seq: 2, kind: 'REGISTERED', publicId: 'candidate-1', at: at(1) },
    ]);
    expect((await changes.readAfter(2, 10)).map((e) => [e.seq, e.publicId])).toEqual([
      [3, 'candidate-2'],
      [4, 'candidate-3'],
      [5, 'candidate-4'],
    ]);
    expect(await changes.readAfter(5, 10)).toEqual([]);
    expect(await changes.lastSeq()).toBe(5);
  });

  test('when events are appended after a reader has read, then they get higher seqs and the reader finds them from its position', async () => {
    const db = await freshDatabase('later');
    const transactions = new WriteTransactions(db);
    const changes = new ChangeEventRepository(db);
    const append = (publicId: string) =>
      transactions.run((session) => appendChangeEvent(db, session, { kind: 'UPDATED', publicId, at: at(1) }), []);
    await append('a');
    const seen = await changes.readAfter(0, 10);

    await append('b');
    await append('c');

    expect(seen.map((e) => e.seq)).toEqual([1]);
    expect((await changes.readAfter(1, 10)).map((e) => [e.seq, e.publicId])).toEqual([
      [2, 'b'],
      [3, 'c'],
    ]);
  });

  test('when a transaction that appended is aborted, then its event is never read and later seqs still increase', async () => {
    const db = await freshDatabase('aborted');
    const transactions = new WriteTransactions(db);
    const changes = new ChangeEventRepository(db);
    await transactions.run(
      (session) => appendChangeEvent(db, session, { kind: 'IMPORTED', publicId: 'a', at: at(1) }).then(() => undefined),
      [],
    );

    await expect(
      transactions.run(async (session) => {
        await appendChangeEvent(db, session, { kind: 'IMPORTED', publicId: 'lost', at: at(2) });
        throw new Error('the write failed');
      }, []),
    ).rejects.toThrow('the write failed');
    await transactions.run(
      (session) => appendChangeEvent(db, session, { kind: 'ERASED', publicId: 'a', at: at(3) }).then(() => undefined),
      [],
    );

    const events = await changes.readAfter(0, 10);
    expect(events.map((e) => [e.kind, e.publicId])).toEqual([
      ['IMPORTED', 'a'],
      ['ERASED', 'a'],
    ]);
    expect(events[1].seq).toBeGreaterThan(events[0].seq);
  });

  test('when many transactions append at once, then none conflicts, and every event has its own seq', async () => {
    const db = await freshDatabase('concurrent');
    const transactions = new WriteTransactions(db);
    const changes = new ChangeEventRepository(db);
    const count = 20;

    const outcomes = await Promise.allSettled(
      Array.from({ length: count }, (_, i) =>
        transactions.run(
          (session) =>
            appendChangeEvent(db, session, { kind: 'UPDATED', publicId: `c-${i}`, at: at(i), keyId: 'key_x' }).then(
              () => undefined,
            ),
          [],
        ),
      ),
    );

    const committed = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(committed).toBe(count);
    const events = await changes.readAfter(0, 100);
    expect(events).toHaveLength(committed);
    expect(new Set(events.map((e) => e.publicId)).size).toBe(committed);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(events.every((e) => e.keyId === 'key_x')).toBe(true);
  });

  test('when kinds are asked for, then only events of those kinds are read', async () => {
    const db = await freshDatabase('kinds');
    const changes = new ChangeEventRepository(db);
    await new WriteTransactions(db).run(
      (session) =>
        changes
          .companion([
            { kind: 'REGISTERED', publicId: 'a', at: at(1) },
            { kind: 'OFFER', publicId: 'a', offerPublicId: 'offer-1', at: at(2) },
            { kind: 'ERASED', publicId: 'a', at: at(3) },
          ])
          .write(session),
      [],
    );

    const events = await changes.readAfter(0, 10, ['REGISTERED', 'ERASED']);

    expect(events.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'REGISTERED'],
      [3, 'ERASED'],
    ]);
    expect(await db.collection(COLLECTIONS.changeEvents).countDocuments({ kind: 'OFFER' })).toBe(1);
  });
});

describe('registrations in the change feed', () => {
  let service: AppUnderTest;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 0 });
  });

  afterAll(async () => {
    await service.stop();
  });

  test('when 40 candidates register at once, then every registration succeeds and appears once in the outbox', async () => {
    const registrar = await service.key('REGISTER_CANDIDATES');

    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        rest(service.url, 'POST', '/v1/candidates/register', {
          key: registrar,
          body: { registrationData: { identity: { email: `burst-${i}@example.org` } } },
        }).then((r) => r.status),
      ),
    );

    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    const events = await new ChangeEventRepository(service.db).readAfter(0, 1000);
    const registered = await service.db.collection(COLLECTIONS.candidates).distinct('publicId');
    expect(events.map((e) => e.publicId).sort()).toEqual([...registered].sort());
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  test('when candidates register, then each registration appends one REGISTERED event naming it and the key, in order', async () => {
    const registrar = await service.key('REGISTER_CANDIDATES');
    const changes = new ChangeEventRepository(service.db);
    const start = await changes.lastSeq();
    const registered: string[] = [];

    for (let i = 0; i < 3; i++) {
      const { status, body } = await rest(service.url, 'POST', '/v1/candidates/register', {
        key: registrar,
        body: { registrationData: { identity: { email: `feed-${i}@example.org` } } },
      });
      expect(status).toBe(201);
      registered.push(body.publicId as string);
    }
    const refused = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      body: { registrationData: { identity: { email: 'feed-0@example.org' } } },
    });

    expect(refused.status).toBe(409);
    const events = await changes.readAfter(start, 10);
    expect(events.map((e) => [e.kind, e.publicId])).toEqual(registered.map((id) => ['REGISTERED', id]));
    const keyIds = new Set(events.map((e) => e.keyId));
    expect(keyIds.size).toBe(1);
    expect([...keyIds][0]).toMatch(/^key_/);
  });
});

describe('job matches and offers in the outbox', () => {
  let service: AppUnderTest;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 5, seed: 2 });
  });

  afterAll(async () => {
    await service.stop();
  });

  test('when a job match names candidates, then one JOB_MATCH event per candidate names the match and the key, and the candidate feed kinds leave them out', async () => {
    const matcher = await service.key('SUBMIT_JOB_MATCHES');
    const ids = (await service.db.collection(COLLECTIONS.candidates).find({}).limit(2).toArray()).map(
      (doc) => doc.publicId as string,
    );

    const { status, body } = await rest(service.url, 'POST', '/v1/candidates/job-match', {
      key: matcher,
      body: { candidates: ids.map((publicId) => ({ publicId })) },
    });

    expect(status).toBe(201);
    const changes = new ChangeEventRepository(service.db);
    const events = await changes.readAfter(0, 10);
    expect(events.map((e) => [e.kind, e.publicId, e.offerPublicId])).toEqual(
      ids.map((id) => ['JOB_MATCH', id, body.jobMatchId]),
    );
    expect(events.every((e) => e.keyId?.startsWith('key_'))).toBe(true);
    expect(await changes.readAfter(0, 10, ['REGISTERED', 'IMPORTED', 'UPDATED', 'ERASED'])).toEqual([]);
  });
});
