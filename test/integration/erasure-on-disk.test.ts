import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { toStoredCandidate } from 'candidate-documents';
import { encodingsOf, filesContaining, makeTempDir } from 'embedded-mongodb/test-support';
import { COLLECTIONS, SECURE_DELETE_COLLECTIONS } from '../../src/app/indexes';
import type { IdentityKeyDoc } from '../../src/candidates/identity-document';
import { IdentityVault } from '../../src/candidates/identity-vault';
import { emailIdentityKey } from '../../src/candidates/text-input';
import { ERASURE_LOG_FILE, ErasureLog } from '../../src/changes/erasure-log';
import { ErasureRepository } from '../../src/changes/erasure-repository';
import { runBackupCli } from '../../src/cli/backup';
import { runRestoreCli } from '../../src/cli/restore';
import { RegistrationRepository } from '../../src/candidates/registration-repository';
import { ConflictError } from '../../src/errors';
import { startInProcessStore } from '../../src/store/open-store';
import { ensureSecureDeleteCollections } from '../../src/store/secure-delete';
import { graphql } from '../support/app-under-test';
import { aCandidate, anIdentity } from '../support/builders';
import { startDurableApp, type DurableApp } from '../support/durable-app';
import { openedIdentity } from '../support/identities';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * An erasure reaches the disk: once it is answered, no file of the data directory holds a byte of
 * the person's identity, in any encoding (names, e-mail, phone, document numbers, the e-mail's
 * key, the key that sealed the identity), after a clean stop as a copy of the directory would
 * find it; and a backup taken before the erasure, restored after it, does not bring the person
 * back. The others' identities stay sealed and readable with their keys, and duplicate
 * registrations are still refused.
 */

const ERASE = `mutation Erase($publicId: PublicId!) { eraseCandidate(publicId: $publicId) { publicId } }`;

/** Identity values no other data holds, per person. */
function identityOf(tag: string) {
  const digits = [...tag].map((c) => c.charCodeAt(0) % 10).join('');
  return {
    firstName: `Zuleikha${tag}`,
    lastName: `Qarawi-${tag}`,
    email: `zuleikha.${tag.toLowerCase()}@example.org`,
    dob: `1987-0${(tag.length % 9) + 1}-2${digits.slice(0, 1)}`,
    phone: `+962 79 555 ${digits}`,
    professionalNetworkLink: `https://www.linkedin.com/in/zq-${tag.toLowerCase()}`,
    refugeeAgencyNumber: `RA-${digits}-3301`,
    reliefAgencyNumber: `RL-55-${digits}`,
    messagingAppNumber: `+962 77 444 ${digits}`,
  };
}

function registration(identity: ReturnType<typeof identityOf>) {
  const { firstName, lastName, email, ...rest } = identity;
  return {
    registrarId: 'partner-org-42',
    registrationData: {
      identity: { firstName, lastName, email },
      ...rest,
      country: { isoCode: 'JO' },
      nationality: { isoCode: 'SY' },
      gender: 'FEMALE',
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 6 }],
      candidateLanguages: [{ language: { isoCode: 'ar' }, writtenLevel: { level: 6 }, spokenLevel: { level: 5 } }],
    },
  };
}

/** Every file under `dir` holding any form of any of `texts` or any of `bytes`, named. */
function foundOnDisk(
  dir: string,
  texts: readonly string[],
  bytes: readonly { name: string; bytes: Buffer }[],
): string[] {
  const needles = [...texts.flatMap((text) => encodingsOf(text)), ...bytes];
  return needles.flatMap(({ name, bytes: needle }) => filesContaining(dir, needle).map((file) => `${name} in ${file}`));
}

describe('erasure on the disk', () => {
  let temp: ReturnType<typeof makeTempDir>;
  const running: DurableApp[] = [];

  async function start(dataDir: string): Promise<DurableApp> {
    const app = await startDurableApp(dataDir);
    running.push(app);
    return app;
  }

  async function stop(app: DurableApp): Promise<void> {
    running.splice(running.indexOf(app), 1);
    await app.stop();
  }

  beforeAll(() => {
    temp = makeTempDir('erasure-on-disk');
  });

  afterAll(async () => {
    for (const app of running.splice(0)) await app.stop();
    temp.remove();
  });

  // The service of the first test, started before it (a start on a new data directory loads the
  // reference data, seconds on a busy machine).
  const dataDir = () => path.join(temp.dir, 'srv', 'cd.data');
  let service: DurableApp;
  beforeAll(async () => {
    service = await start(dataDir());
  });

  test('when a registered candidate is erased and the service stops cleanly, then no file of the data directory or of a backup taken before the erasure and restored after it holds any of their identity, while the others stay registered, sealed and readable', async () => {
    const registrar = await service.key('REGISTER_CANDIDATES', 'READ_CANDIDATE_DATA');
    const admin = await service.key('ADMIN');
    const kept = identityOf('Amal7');
    const erased = identityOf('Bushra4');
    recordSecret(...Object.values(kept), ...Object.values(erased));
    const ids: Record<string, string> = {};
    for (const [name, identity] of [
      ['kept', kept],
      ['erased', erased],
    ] as const) {
      const { status, body } = await rest(service.url, 'POST', '/v1/candidates/register', {
        key: registrar,
        body: registration(identity),
      });
      expect(status).toBe(201);
      ids[name] = body.publicId as string;
    }
    const keys = service.db.collection<IdentityKeyDoc>(COLLECTIONS.candidateIdentityKeys);
    const keyOf = async (publicId: string) => Buffer.from((await keys.findOne({ _id: publicId }))!.key.buffer);
    const erasedKey = await keyOf(ids.erased);
    const keptKey = await keyOf(ids.kept);
    const erasedEmailKey = await new IdentityVault(service.db).emailKeyOf(emailIdentityKey(erased.email));
    const backup = path.join(temp.dir, 'backups', 'before-erasure.tar.gz');
    fs.mkdirSync(path.dirname(backup));
    const out: string[] = [];
    const output = { out: (line: string) => out.push(line), err: (line: string) => out.push(line) };
    expect(await runBackupCli([backup], output, service.env)).toBe(0);

    const { body } = await graphql<{ eraseCandidate: { publicId: string } }>(
      service.url,
      ERASE,
      { publicId: ids.erased },
      admin,
    );
    expect(body.errors).toBeUndefined();
    const again = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      body: registration({ ...kept, email: kept.email.toUpperCase() }),
    });
    expect(await openedIdentity(service.db, ids.kept)).toMatchObject({ email: kept.email, phone: kept.phone });
    await stop(service);

    expect(again.status).toBe(409);
    const erasedBytes = [
      { name: 'the key of the erased identity', bytes: erasedKey },
      { name: 'the hex of that key', bytes: Buffer.from(erasedKey.toString('hex')) },
    ];
    const erasedTexts = [...Object.values(erased), emailIdentityKey(erased.email), erasedEmailKey];
    expect(foundOnDisk(dataDir(), erasedTexts, erasedBytes)).toEqual([]);
    // Nobody's identity is on the disk in clear; the kept one's key is (the scan finds what is there).
    expect(foundOnDisk(dataDir(), Object.values(kept), [])).toEqual([]);
    expect(filesContaining(dataDir(), keptKey)).toEqual(['secure.mdb']);

    const restoredDir = path.join(temp.dir, 'srv', 'cd.restored');
    expect(await runRestoreCli([backup, '--data-dir', restoredDir], output, { DATA_DIR: dataDir() })).toBe(0);
    expect(out.join('\n')).toContain('1 candidate(s) erased since the backup were erased again');
    expect(foundOnDisk(restoredDir, erasedTexts, erasedBytes)).toEqual([]);
    expect(filesContaining(restoredDir, keptKey)).toEqual(['secure.mdb']);
    const restored = await startInProcessStore(restoredDir);
    const client = await MongoClient.connect(restored.uri);
    try {
      const db = client.db('candidate_directory');
      const candidates = db.collection(COLLECTIONS.candidates);
      expect(await candidates.countDocuments({ publicId: { $in: [ids.erased, ids.kept] } })).toBe(1);
      expect(await candidates.findOne({ publicId: ids.kept }, { projection: { _id: 0, status: 1 } })).toEqual({
        status: 'PENDING',
      });
      expect(await openedIdentity(db, ids.kept)).toMatchObject({ email: kept.email });
      expect(await openedIdentity(db, ids.erased)).toBeNull();
      const duplicate = aCandidate();
      await expect(
        new RegistrationRepository(db, { leaseMs: 60_000 }).insert(
          anIdentity({
            candidatePublicId: duplicate.publicId,
            email: kept.email,
            emailKey: emailIdentityKey(kept.email),
          }),
          duplicate,
        ),
      ).rejects.toBeInstanceOf(ConflictError);
    } finally {
      await client.close();
      await restored.close();
    }
  });

  test('when a data directory holds identities an earlier release stored in clear, then the start seals them, and after a clean stop no file holds them in clear', async () => {
    const dataDir = path.join(temp.dir, 'cd.data');
    const earlier = [
      anIdentity({
        email: 'yusra.haddad@example.org',
        firstName: 'Yusra',
        lastName: 'Haddad-Earlier',
        phone: '+961 3 123 456',
      }),
      anIdentity({
        email: 'karim.nasser@example.org',
        firstName: 'Karim',
        lastName: 'Nasser-Earlier',
        phone: '+961 3 654 321',
      }),
    ];
    recordSecret(...earlier.flatMap((identity) => [identity.email, identity.lastName!, identity.phone!]));
    const store = await startInProcessStore(dataDir);
    const client = await MongoClient.connect(store.uri);
    const db = client.db('candidate_directory');
    // As the earlier release wrote them: every field in clear, unique on the folded e-mail.
    await db
      .collection(COLLECTIONS.candidateIdentities)
      .createIndex({ emailKey: 1 }, { name: 'candidateIdentities_emailKey_unique', unique: true });
    await db.collection(COLLECTIONS.candidateIdentities).insertMany(earlier.map((identity) => ({ ...identity })));
    await db
      .collection(COLLECTIONS.candidates)
      .insertMany(earlier.map((identity) => toStoredCandidate(aCandidate({ publicId: identity.candidatePublicId }))));
    await client.close();
    await store.close();
    expect(filesContaining(dataDir, Buffer.from('Haddad-Earlier'))).toEqual(['data.mdb']);

    const service = await start(dataDir);
    const opened = await Promise.all(earlier.map((identity) => openedIdentity(service.db, identity.candidatePublicId)));
    await stop(service);

    expect(opened.map((identity) => identity?.email)).toEqual(earlier.map((identity) => identity.email));
    const texts = earlier.flatMap((identity) => [
      identity.email,
      identity.lastName!,
      identity.phone!,
      identity.emailKey,
    ]);
    expect(foundOnDisk(dataDir, texts, [])).toEqual([]);
  });
  test('when the service starts on a data directory holding a candidate its erasure log names (files copied back by hand), then the candidate is erased before the service serves, at the logged time', async () => {
    const dataDir = path.join(temp.dir, 'copied-back.data');
    const identity = anIdentity({ email: 'rana.qassem@example.org', lastName: 'Qassem-Logged' });
    recordSecret(identity.email, identity.lastName!);
    const candidate = aCandidate({ publicId: identity.candidatePublicId });
    const store = await startInProcessStore(dataDir);
    const client = await MongoClient.connect(store.uri);
    const db = client.db('candidate_directory');
    await ensureSecureDeleteCollections(db, SECURE_DELETE_COLLECTIONS);
    const sealed = await new IdentityVault(db).seal(identity);
    await db.collection<IdentityKeyDoc>(COLLECTIONS.candidateIdentityKeys).insertOne(sealed.key);
    await db.collection(COLLECTIONS.candidateIdentities).insertOne({ ...sealed.identity });
    await db.collection(COLLECTIONS.candidates).insertOne(toStoredCandidate(candidate));
    await client.close();
    await store.close();
    const erasedAt = new Date('2026-02-03T04:05:06Z');
    await new ErasureLog(path.join(dataDir, ERASURE_LOG_FILE)).append(candidate.publicId, erasedAt);

    const service = await start(dataDir);
    const reader = await service.key('READ_CANDIDATE_DATA');
    const read = await rest(service.url, 'GET', `/v1/candidates/${candidate.publicId}`, { key: reader });
    const erasedEvent = await service.db
      .collection(COLLECTIONS.changeEvents)
      .findOne({ publicId: candidate.publicId, kind: 'ERASED' });
    const left = await new ErasureRepository(service.db).stillStored([candidate.publicId]);
    await stop(service);

    expect(read.status).toBe(404);
    expect(erasedEvent?.at).toEqual(erasedAt);
    expect([...left]).toEqual([]);
    expect(foundOnDisk(dataDir, [], [{ name: 'the key', bytes: Buffer.from(sealed.key.key.buffer) }])).toEqual([]);
  });
});
