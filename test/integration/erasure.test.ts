import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CandidateDoc, SavedListDoc } from 'candidate-documents';
import { ErasureLog } from '../../src/changes/erasure-log';
import { reapplyLoggedErasures } from '../../src/changes/erasure-replay';
import { ErasureRepository } from '../../src/changes/erasure-repository';
import { ChangeEventRepository } from '../../src/changes/change-events';
import { runEraseCli } from '../../src/cli/erase';
import { COLLECTIONS } from '../../src/app/indexes';
import { StatisticsRepository } from '../../src/statistics/statistics-repository';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { rest } from '../support/rest-client';

const ERASE = `mutation Erase($publicId: PublicId!) {
  eraseCandidate(publicId: $publicId) { publicId erasedAt recipients { keyId name } }
}`;

interface Erased {
  eraseCandidate: { publicId: string; erasedAt: string; recipients: { keyId: string; name: string | null }[] };
}

describe('eraseCandidate', () => {
  let service: AppUnderTest;
  let admin: string;
  let reader: string;
  let bystander: string;
  let target: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 40, seed: 5 });
    admin = await service.key('ADMIN');
    reader = await service.key('READ_CANDIDATE_DATA');
    bystander = await service.key('READ_CANDIDATE_DATA');
    // A candidate of a saved list, so that its membership is erased too.
    const list = await service.db
      .collection<SavedListDoc>(COLLECTIONS.savedLists)
      .findOne({ 'candidatePublicIds.0': { $exists: true } });
    target = list!.candidatePublicIds[0]!;
  });

  afterAll(async () => {
    await service.stop();
  });

  /** The keys of the audit events naming `publicId`, once the buffered trail has stored `count` events in all. */
  async function auditedKeyIds(publicId: string, count: number): Promise<string[]> {
    const events = service.db.collection(COLLECTIONS.auditEvents);
    for (let i = 0; i < 200 && (await events.countDocuments({})) < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await events.countDocuments({})).toBeGreaterThanOrEqual(count);
    return ((await events.distinct('apiKeyId', { candidatePublicIds: publicId })) as string[]).sort();
  }

  test('when an ADMIN erases a candidate, then no collection holds it, reads miss it, statistics do not count it, and the recipients are the keys of the audit trail', async () => {
    const statistics = new StatisticsRepository(service.db);
    const countedBefore = await statistics.count({ includeEmployed: true });
    expect((await rest(service.url, 'GET', `/v1/candidates/${target}`, { key: reader })).status).toBe(200);
    await rest(service.url, 'GET', '/v1/candidates?limit=1', { key: bystander });
    const expectedRecipients = await auditedKeyIds(target, 2);
    expect(expectedRecipients.length).toBeGreaterThanOrEqual(1);

    const { body } = await graphql<Erased>(service.url, ERASE, { publicId: target }, admin);

    expect(body.errors).toBeUndefined();
    const erased = body.data!.eraseCandidate;
    expect(erased.publicId).toBe(target);
    expect(erased.recipients.map((r) => r.keyId)).toEqual(expectedRecipients);
    expect(erased.recipients.every((r) => typeof r.name === 'string')).toBe(true);
    // Collection by collection, as the store lists them: only pseudonymous mentions remain.
    const kept = new Set<string>([COLLECTIONS.auditEvents, COLLECTIONS.changeEvents, COLLECTIONS.offers]);
    for (const { name } of await service.db.listCollections({}, { nameOnly: true }).toArray()) {
      if (kept.has(name)) continue;
      const holding = await service.db.collection(name).find({}).toArray();
      const mentions = holding.filter((doc) => JSON.stringify(doc).includes(target));
      expect([name, mentions.length]).toEqual([name, 0]);
    }
    expect(
      await service.db.collection(COLLECTIONS.candidateIdentities).countDocuments({ candidatePublicId: target }),
    ).toBe(0);
    expect((await rest(service.url, 'GET', `/v1/candidates/${target}`, { key: reader })).status).toBe(404);
    const read = await graphql<{ candidate: unknown }>(
      service.url,
      'query($id: PublicId!) { candidate(publicId: $id) { publicId } }',
      { id: target },
      reader,
    );
    expect(read.body.data).toEqual({ candidate: null });
    const search = await rest(service.url, 'GET', '/v1/candidates?limit=100&includeEmployed=true', { key: reader });
    expect(search.body.content.map((c: CandidateDoc) => c.publicId)).not.toContain(target);
    expect(await statistics.count({ includeEmployed: true })).toBe(countedBefore - 1);
    const events = await new ChangeEventRepository(service.db).readAfter(0, 1000, ['ERASED']);
    expect(events.map((e) => e.publicId)).toEqual([target]);
  });

  test("when an erasure was cut short before its registration's Idempotency-Key answer was forgotten, then the erasure log's replay forgets it", async () => {
    // What a store without transactions keeps when an erasure stops after the candidate went.
    const publicId = 'AAAAAAAAQACAAAAAAAAAcQ';
    const records = service.db.collection(COLLECTIONS.idempotencyKeys);
    await records.insertOne({
      apiKeyId: 'cut-short',
      keyHash: 'cut-short',
      state: 'COMPLETED',
      createdDate: new Date(),
      response: { status: 201, body: JSON.stringify({ publicId }) },
      candidatePublicId: publicId,
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd.erasure-replay-'));
    const log = new ErasureLog(path.join(dir, 'erasures.log'));
    await log.append(publicId, new Date('2026-03-01T00:00:00Z'));

    const replay = await reapplyLoggedErasures(log, new ErasureRepository(service.db));
    const record = await records.findOne(
      { apiKeyId: 'cut-short' },
      { projection: { _id: 0, apiKeyId: 0, keyHash: 0 } },
    );
    fs.rmSync(dir, { recursive: true, force: true });

    expect(replay.reapplied).toEqual([publicId]);
    expect(record).toEqual({ state: 'COMPLETED', createdDate: expect.any(Date), candidateErased: true });
  });

  test('when the erasure is repeated, then it answers the same and appends no second ERASED event', async () => {
    const first = await graphql<Erased>(service.url, ERASE, { publicId: target }, admin);

    const again = await graphql<Erased>(service.url, ERASE, { publicId: target }, admin);

    expect(again.body.data).toEqual(first.body.data);
    const events = await new ChangeEventRepository(service.db).readAfter(0, 1000, ['ERASED']);
    expect(events).toHaveLength(1);
  });

  test('when an unknown publicId is erased, then NOT_FOUND', async () => {
    const { body } = await graphql(service.url, ERASE, { publicId: 'ZZZZZZZZZZZZZZZZZZZZZZ' }, admin);

    expect(body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  test('when a key without ADMIN erases, then FORBIDDEN and the candidate stays', async () => {
    const other = (await service.db.collection<CandidateDoc>(COLLECTIONS.candidates).findOne({}))!.publicId;

    const { body } = await graphql(service.url, ERASE, { publicId: other }, reader);

    expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await service.db.collection(COLLECTIONS.candidates).countDocuments({ publicId: other })).toBe(1);
  });
});

describe('npm run erase', () => {
  let service: AppUnderTest;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 3, seed: 9 });
  });

  afterAll(async () => {
    await service.stop();
  });

  test('when the CLI erases a candidate, then it is gone, the erasure is in the erasure log and printed; an unknown id exits 1, no id exits 2', async () => {
    const target = (await service.db.collection<CandidateDoc>(COLLECTIONS.candidates).findOne({}))!.publicId;
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'erasure-cli-'));
    const log = path.join(logDir, 'erasures.log');
    const env = { MONGODB_URI: service.app.config.mongodbUri, MONGODB_DB: service.db.databaseName, ERASURE_LOG: log };
    const out: string[] = [];
    const err: string[] = [];
    const output = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };

    const code = await runEraseCli([target], output, env);

    expect(code).toBe(0);
    expect(out[0]).toMatch(new RegExp(`^Erased ${target} at \\d{4}-`));
    expect(await service.db.collection(COLLECTIONS.candidates).countDocuments({ publicId: target })).toBe(0);
    expect((await new ErasureLog(log).read()).map((entry) => entry.publicId)).toEqual([target]);
    expect(await runEraseCli(['ZZZZZZZZZZZZZZZZZZZZZZ'], output, env)).toBe(1);
    expect(await runEraseCli([], output, env)).toBe(2);
    fs.rmSync(logDir, { recursive: true, force: true });
  });
});
