import { serialize } from 'bson';
import { MongoClient, type Db } from 'mongodb';
import { CANDIDATE_STATUSES, toStoredCandidate, type CandidateDoc } from 'candidate-documents';
import { CandidateRepository, type CandidateSearchFilter } from '../../src/candidates/candidate-repository';
import { JobOpportunityRepository } from '../../src/candidates/job-opportunity-repository';
import { OfferRepository } from '../../src/candidates/offer-repository';
import { RegistrationRepository } from '../../src/candidates/registration-repository';
import { sealEarlierIdentities } from '../../src/candidates/identity-migration';
import { IdentityVault } from '../../src/candidates/identity-vault';
import type { IdentityKeyDoc } from '../../src/candidates/identity-document';
import { openedIdentity, registrationsOfEmail } from '../support/identities';
import { SavedListRepository } from '../../src/candidates/saved-list-repository';
import { seedWithOptions, SeedRefusedError } from '../../src/cli/seed';
import { seedDemoData } from '../../src/app/seed-demo-data';
import { ConflictError } from '../../src/errors';
import { loadReferenceData } from '../../src/reference/load-reference-data';
import { languages, REFERENCE_COLLECTIONS } from '../../src/reference/reference-data';
import { REFERENCE_COLLECTION_NAMES, ReferenceRepository } from '../../src/reference/reference-repository';
import { COLLECTIONS, dropSupersededIndexes, ensureIndexes, INDEXES, SUPERSEDED_INDEXES } from '../../src/app/indexes';
import {
  aCandidate,
  aJobOpportunity,
  aSavedList,
  anIdentity,
  anOffer,
  at,
  findIdentityData,
  testDatabaseName,
} from '../support/builders';
import { startStoreUnderTest, type StoreUnderTest } from 'embedded-mongodb/test-support';
import { emailIdentityKey } from '../../src/candidates/text-input';

let store: StoreUnderTest;
let client: MongoClient;
/**
 * The databases the running test made, dropped after it so a real MongoDB is left as it was. After
 * each test, not at the end: the embedded store's commands slow down as the databases of earlier
 * tests pile up (the file's last tests took 3-7 s each for a few writes, 71 s in all, alone).
 */
const databases: Db[] = [];

beforeAll(async () => {
  store = await startStoreUnderTest();
  client = new MongoClient(store.uri);
  await client.connect();
});

afterEach(async () => {
  for (const db of databases.splice(0)) await db.dropDatabase();
});

afterAll(async () => {
  await client?.close();
  await store?.stop();
});

/** A database of its own for one test. */
function newDatabase(label: string): Db {
  const db = client.db(testDatabaseName(label));
  databases.push(db);
  return db;
}

/** A database of its own for one test, with every index in place. */
async function freshDatabase(label: string): Promise<Db> {
  const db = newDatabase(label);
  await ensureIndexes(db);
  return db;
}

const publicIds = (docs: readonly CandidateDoc[]): string[] => docs.map((d) => d.publicId);

async function storedCandidates(db: Db): Promise<CandidateDoc[]> {
  return db
    .collection<CandidateDoc>(COLLECTIONS.candidates)
    .find({}, { projection: { _id: 0 }, sort: { publicId: 1 } })
    .toArray();
}

describe('indexes', () => {
  it('when ensureIndexes has run, then every index the repositories rely on exists with its key and uniqueness', async () => {
    const db = newDatabase('indexes');

    await ensureIndexes(db);

    for (const spec of INDEXES) {
      const indexes = await db.collection(spec.collection).listIndexes().toArray();
      const index = indexes.find((i) => i.name === spec.options.name);
      expect(index).toBeDefined();
      const textFields = Object.keys(spec.key).filter((field) => spec.key[field] === 'text');
      if (textFields.length === 0) {
        expect(index?.key).toEqual(spec.key);
      } else {
        // mongod lists a text index by its internal key (the text fields as `_fts` and `_ftsx`,
        // between the other fields) and its fields as weights (1 when not given).
        const fields = Object.entries(spec.key);
        const first = fields.findIndex(([, direction]) => direction === 'text');
        expect(index?.key).toEqual({
          ...Object.fromEntries(fields.slice(0, first)),
          _fts: 'text',
          _ftsx: 1,
          ...Object.fromEntries(fields.slice(first).filter(([, direction]) => direction !== 'text')),
        });
        const weights = spec.options as { weights?: Record<string, number> };
        expect(index?.weights).toEqual(
          Object.fromEntries(textFields.map((field) => [field, weights.weights?.[field] ?? 1])),
        );
      }
      expect(Boolean(index?.unique)).toBe(Boolean(spec.options.unique));
    }
  });

  it('when ensureIndexes runs again, then it succeeds and leaves the same indexes', async () => {
    const db = newDatabase('indexes_twice');
    await ensureIndexes(db);
    const before = await db.collection(COLLECTIONS.candidates).listIndexes().toArray();

    await ensureIndexes(db);

    const after = await db.collection(COLLECTIONS.candidates).listIndexes().toArray();
    expect(after.map((i) => i.name).sort()).toEqual(before.map((i) => i.name).sort());
  });

  it('when a database written before `listed` existed is prepared as at start, then the superseded indexes are gone, every candidate is listed by its status, and searches find them all', async () => {
    // Arrange: candidates as the earlier release stored them, with its status-led indexes.
    const db = newDatabase('listed_backfill');
    const old = [
      aCandidate({ status: 'ACTIVE' }),
      aCandidate({ status: 'EMPLOYED' }),
      aCandidate({ status: 'PENDING' }),
    ];
    await db.collection(COLLECTIONS.candidates).insertMany(old.map((candidate) => ({ ...candidate })));
    for (const { collection, name } of SUPERSEDED_INDEXES) {
      await db.collection(collection).createIndex({ status: 1, [name]: 1 }, { name });
    }
    const repo = new CandidateRepository(db);

    // Act: what main.ts does at start, twice (the second finds nothing to do)
    await dropSupersededIndexes(db);
    await ensureIndexes(db);
    const changed = await repo.backfillListed();
    await dropSupersededIndexes(db);
    const changedAgain = await repo.backfillListed();

    // Assert
    const names = (await db.collection(COLLECTIONS.candidates).listIndexes().toArray()).map(
      (index) => index.name as string,
    );
    const left = [];
    for (const { collection, name } of SUPERSEDED_INDEXES) {
      const indexes = await db.collection(collection).listIndexes().toArray();
      if (indexes.some((index) => index.name === name)) left.push(name);
    }
    expect(left).toEqual([]);
    expect(names.sort()).toEqual(
      ['_id_', ...INDEXES.filter((i) => i.collection === COLLECTIONS.candidates).map((i) => i.options.name)].sort(),
    );
    expect([changed, changedAgain]).toEqual([3, 0]);
    const stored = await db
      .collection(COLLECTIONS.candidates)
      .find({}, { projection: { _id: 0, status: 1, listed: 1 } })
      .toArray();
    expect(stored.map((c) => [c.status, c.listed]).sort()).toEqual([
      ['ACTIVE', true],
      ['EMPLOYED', false],
      ['PENDING', true],
    ]);
    const listed = await repo.search({ includeEmployed: false }, { skip: 0, limit: 10 });
    const everyone = await repo.search({ includeEmployed: true }, { skip: 0, limit: 10 });
    expect(listed.total).toBe(2);
    expect(everyone.total).toBe(3);
    expect([...listed.items, ...everyone.items].some((candidate) => 'listed' in candidate)).toBe(false);
  });

  it('when candidates are written by the repositories, then each is stored with `listed` from its status and read back without it', async () => {
    // Arrange
    const db = await freshDatabase('listed_written');
    const candidates = CANDIDATE_STATUSES.map((status) => aCandidate({ status }));
    const repo = new CandidateRepository(db);

    // Act
    await repo.insertMany(candidates.slice(1));
    await repo.insert(candidates[0]);

    // Assert
    const stored = await db
      .collection(COLLECTIONS.candidates)
      .find({}, { projection: { _id: 0, status: 1, listed: 1 } })
      .toArray();
    expect(stored).toHaveLength(CANDIDATE_STATUSES.length);
    for (const candidate of stored) expect(candidate.listed).toBe(candidate.status !== 'EMPLOYED');
    const read = await repo.findByPublicIds(candidates.map((c) => c.publicId));
    expect(read.some((candidate) => 'listed' in candidate)).toBe(false);
  });

  it('when the index list is read, then it covers every collection of the operator contract', () => {
    const indexed = new Set(INDEXES.map((i) => i.collection));

    expect([...indexed].sort()).toEqual(Object.values(COLLECTIONS).sort());
  });
});

describe('reference data', () => {
  it('when loadReferenceData has run, then every reference collection is complete', async () => {
    const db = await freshDatabase('reference');

    await loadReferenceData(db);

    expect(await db.collection(COLLECTIONS.countries).countDocuments()).toBe(249);
    expect(await db.collection(COLLECTIONS.occupations).countDocuments()).toBe(436);
    expect(await db.collection(COLLECTIONS.languages).countDocuments()).toBe(languages().length);
    for (const name of REFERENCE_COLLECTION_NAMES) {
      expect(await db.collection(COLLECTIONS[name]).countDocuments()).toBe(REFERENCE_COLLECTIONS[name].load().length);
    }
  });

  it('when loadReferenceData runs twice, then nothing is duplicated', async () => {
    const db = await freshDatabase('reference_twice');
    await loadReferenceData(db);

    await loadReferenceData(db);

    expect(await db.collection(COLLECTIONS.countries).countDocuments()).toBe(249);
    expect(await db.collection(COLLECTIONS.occupations).countDocuments()).toBe(436);
  });

  it('when the stored reference data is current, then loading it again writes nothing; an entry changed since is put back as shipped', async () => {
    const db = await freshDatabase('reference_current');
    await loadReferenceData(db);
    const watcher = new MongoClient(store.uri, { monitorCommands: true });
    const writes: string[] = [];
    watcher.on('commandStarted', (event) => {
      if (['insert', 'update', 'delete'].includes(event.commandName)) writes.push(event.commandName);
    });
    await watcher.connect();
    try {
      const watched = watcher.db(db.databaseName);

      await loadReferenceData(watched);
      const quiet = [...writes];
      await watched.collection(COLLECTIONS.countries).updateOne({ isoCode: 'SY' }, { $set: { name: 'Renamed' } });
      writes.length = 0;
      await loadReferenceData(watched);

      expect(quiet).toEqual([]);
      expect(writes).toEqual(['update']);
      expect((await db.collection(COLLECTIONS.countries).findOne({ isoCode: 'SY' }))?.name).toBe(
        'Syrian Arab Republic',
      );
    } finally {
      await watcher.close();
    }
  });

  it('when reference documents are looked up by key or searched, then the matching ones come back without _id', async () => {
    const db = await freshDatabase('reference_lookup');
    await loadReferenceData(db);
    const reference = new ReferenceRepository(db);

    const found = await reference.findByKeys('countries', ['SY', 'JO', 'XX']);
    const nurses = await reference.list('occupations', { search: 'nursing' });
    const byCode = await reference.list('occupations', { search: '2211' });
    const levels = await reference.list('languageLevels', { limit: 3 });

    expect(found.map((c) => c.isoCode).sort()).toEqual(['JO', 'SY']);
    expect(found[0]).not.toHaveProperty('_id');
    expect(nurses.map((o) => o.isco08Code)).toEqual(expect.arrayContaining(['2221', '3221']));
    expect(byCode.map((o) => o.isco08Code)).toEqual(['2211']);
    expect(levels.map((l) => l.level)).toEqual([0, 1, 2]);
  });
});

describe('demo data seeding', () => {
  it('when the same seed is written into two databases, then they hold identical documents', async () => {
    const first = await freshDatabase('seed_a');
    const second = await freshDatabase('seed_b');

    await seedDemoData(first, { candidates: 300, seed: 11, batchSize: 64 });
    await seedDemoData(second, { candidates: 300, seed: 11, batchSize: 100 });

    const a = await storedCandidates(first);
    const b = await storedCandidates(second);
    expect(a).toHaveLength(300);
    expect(b.map((d) => Buffer.from(serialize(d)).toString('hex'))).toEqual(
      a.map((d) => Buffer.from(serialize(d)).toString('hex')),
    );
  });

  it('when another seed is written, then the documents differ', async () => {
    const first = await freshDatabase('seed_c');
    const second = await freshDatabase('seed_d');

    await seedDemoData(first, { candidates: 100, seed: 11 });
    await seedDemoData(second, { candidates: 100, seed: 12 });

    const a = new Set(publicIds(await storedCandidates(first)));
    expect(publicIds(await storedCandidates(second)).some((id) => a.has(id))).toBe(false);
  });

  it('when 500 candidates are seeded, then every status of the enum is stored and the counts are returned', async () => {
    const db = await freshDatabase('seed_statuses');

    const counts = await seedDemoData(db, { candidates: 500, seed: 3 });

    const statuses = (await storedCandidates(db)).map((c) => c.status);
    expect(new Set(statuses)).toEqual(new Set(CANDIDATE_STATUSES));
    expect(counts.candidates).toBe(500);
    expect(await db.collection(COLLECTIONS.jobOpportunities).countDocuments()).toBe(counts.jobOpportunities);
    expect(await db.collection(COLLECTIONS.savedLists).countDocuments()).toBe(counts.savedLists);
  });

  it('when candidates are seeded, then no stored candidate holds identity data', async () => {
    const db = await freshDatabase('seed_identity');

    await seedDemoData(db, { candidates: 500, seed: 5 });

    const found = (await db.collection(COLLECTIONS.candidates).find({}).toArray()).flatMap((c) => findIdentityData(c));
    expect(found).toEqual([]);
    expect(await db.collection(COLLECTIONS.candidateIdentities).countDocuments()).toBe(0);
  });

  it('when the database already holds candidates, then seeding is refused unless told to drop or append', async () => {
    const db = await freshDatabase('seed_cli');
    await seedWithOptions(db, { candidates: 50, seed: 1, mode: 'refuse' });

    await expect(seedWithOptions(db, { candidates: 50, seed: 2, mode: 'refuse' })).rejects.toThrow(SeedRefusedError);
    await expect(seedWithOptions(db, { candidates: 50, seed: 1, mode: 'append' })).rejects.toThrow(SeedRefusedError);
    await seedWithOptions(db, { candidates: 30, seed: 2, mode: 'append' });
    expect(await new CandidateRepository(db).countAll()).toBe(80);

    await seedWithOptions(db, { candidates: 20, seed: 3, mode: 'drop' });
    expect(await new CandidateRepository(db).countAll()).toBe(20);
  });

  it('when a database without indexes is seeded, then every index exists afterwards', async () => {
    const db = newDatabase('seed_indexes');

    await seedWithOptions(db, { candidates: 40, seed: 6, mode: 'refuse' });

    for (const index of INDEXES) {
      const names = (await db.collection(index.collection).listIndexes().toArray()).map(
        (existing) => existing.name as string,
      );
      expect(names).toContain(index.options.name);
    }
  });

  it('when the same seed is written twice without the CLI checks, then the duplicates are a ConflictError', async () => {
    const db = await freshDatabase('seed_conflict');
    await seedDemoData(db, { candidates: 20, seed: 4 });

    await expect(seedDemoData(db, { candidates: 20, seed: 4 })).rejects.toThrow(ConflictError);
  });
});

describe('candidate repository', () => {
  const everyone: CandidateSearchFilter = { includeEmployed: true };

  it('when searching by several codes of one field, then candidates matching any of them are returned', async () => {
    const db = await freshDatabase('search_or');
    const repo = new CandidateRepository(db);
    const inJordan = aCandidate({ countryIsoCode: 'JO' });
    const inLebanon = aCandidate({ countryIsoCode: 'LB' });
    const inTurkey = aCandidate({ countryIsoCode: 'TR' });
    for (const c of [inJordan, inLebanon, inTurkey]) await repo.insert(c);

    const result = await repo.search({ locations: ['JO', 'LB'], includeEmployed: false }, { skip: 0, limit: 10 });

    expect(publicIds(result.items)).toEqual(publicIds([inJordan, inLebanon]));
    expect(result.total).toBe(2);
  });

  it('when searching by several fields, then only candidates matching all of them are returned', async () => {
    const db = await freshDatabase('search_and');
    const repo = new CandidateRepository(db);
    const match = aCandidate({
      countryIsoCode: 'JO',
      nationalityIsoCode: 'SY',
      candidateOccupations: [{ occupation: { isco08Code: '7212' } }, { occupation: { isco08Code: '2512' } }],
    });
    const wrongNationality = aCandidate({
      countryIsoCode: 'JO',
      nationalityIsoCode: 'IQ',
      candidateOccupations: [{ occupation: { isco08Code: '2512' } }],
    });
    const wrongOccupation = aCandidate({
      countryIsoCode: 'JO',
      nationalityIsoCode: 'SY',
      candidateOccupations: [{ occupation: { isco08Code: '5120' } }],
    });
    for (const c of [match, wrongNationality, wrongOccupation]) await repo.insert(c);

    const result = await repo.search(
      { locations: ['JO'], nationalities: ['SY'], occupations: ['2512', '2211'], includeEmployed: false },
      { skip: 0, limit: 10 },
    );

    expect(publicIds(result.items)).toEqual([match.publicId]);
    expect(result.total).toBe(1);
  });

  it('when employed candidates are not included, then they are left out of items and total', async () => {
    const db = await freshDatabase('search_employed');
    const repo = new CandidateRepository(db);
    const active = aCandidate({ status: 'ACTIVE' });
    const employed = aCandidate({ status: 'EMPLOYED' });
    const pending = aCandidate({ status: 'PENDING' });
    for (const c of [active, employed, pending]) await repo.insert(c);

    const without = await repo.search({ includeEmployed: false }, { skip: 0, limit: 10 });
    const withEmployed = await repo.search({ includeEmployed: true }, { skip: 0, limit: 10 });

    expect(publicIds(without.items)).toEqual(publicIds([active, pending]));
    expect(without.total).toBe(2);
    expect(publicIds(withEmployed.items)).toEqual(publicIds([active, employed, pending]));
    expect(withEmployed.total).toBe(3);
  });

  it('when candidates share a creation time, then the order is by publicId and pages neither repeat nor skip', async () => {
    // No indexes: the order must come from the query's sort, not from an index walk.
    const db = newDatabase('search_order');
    const repo = new CandidateRepository(db);
    const candidates = Array.from({ length: 25 }, (_, i) => aCandidate({ createdDate: at(i % 5) }));
    await repo.insertMany([...candidates].reverse());
    const expected = [...candidates]
      .sort((a, b) => a.createdDate.getTime() - b.createdDate.getTime() || (a.publicId < b.publicId ? -1 : 1))
      .map((c) => c.publicId);

    const pages = [];
    for (let skip = 0; skip < 25; skip += 10) pages.push(await repo.search(everyone, { skip, limit: 10 }));

    expect(pages.flatMap((p) => publicIds(p.items))).toEqual(expected);
    expect(pages.map((p) => p.total)).toEqual([25, 25, 25]);
    expect(pages[0]?.items[0]).not.toHaveProperty('_id');
  });

  it('when paging with a keyset while a candidate is added before the cursor, then no candidate is repeated', async () => {
    const db = await freshDatabase('search_after');
    const repo = new CandidateRepository(db);
    // Pairs share a creation time, so the first page ends inside a tie.
    const candidates = Array.from({ length: 6 }, (_, i) => aCandidate({ createdDate: at(10 + Math.floor(i / 2)) }));
    await repo.insertMany(candidates);
    const expected = [...candidates]
      .sort((a, b) => a.createdDate.getTime() - b.createdDate.getTime() || (a.publicId < b.publicId ? -1 : 1))
      .map((c) => c.publicId);

    const first = await repo.searchAfter(everyone, null, 3);
    const last = first[first.length - 1];
    await repo.insert(aCandidate({ createdDate: at(0) }));
    const second = await repo.searchAfter(everyone, { createdDate: last.createdDate, publicId: last.publicId }, 3);

    expect([...publicIds(first), ...publicIds(second)]).toEqual(expected);
  });

  it('when looking up by publicIds, then the existing candidates are found and unknown ids ignored', async () => {
    const db = await freshDatabase('find_ids');
    const repo = new CandidateRepository(db);
    const a = aCandidate();
    const b = aCandidate();
    await repo.insertMany([a, b]);
    const unknown = aCandidate().publicId;

    const docs = await repo.findByPublicIds([b.publicId, unknown, a.publicId]);
    const existing = await repo.findExistingPublicIds([a.publicId, unknown]);

    expect(publicIds(docs).sort()).toEqual([a.publicId, b.publicId].sort());
    expect(docs.find((d) => d.publicId === a.publicId)).toEqual(a);
    expect(existing).toEqual(new Set([a.publicId]));
  });

  it('when a candidate is inserted, then the given object is not changed and a duplicate publicId is a ConflictError', async () => {
    const db = await freshDatabase('insert');
    const repo = new CandidateRepository(db);
    const candidate = aCandidate();

    await repo.insert(candidate);

    expect(candidate).not.toHaveProperty('_id');
    await expect(repo.insert(aCandidate({ publicId: candidate.publicId }))).rejects.toThrow(ConflictError);
  });

  it('when a candidate is deleted by publicId, then it is gone and deleting again reports nothing deleted', async () => {
    const db = await freshDatabase('delete');
    const repo = new CandidateRepository(db);
    const candidate = aCandidate();
    await repo.insert(candidate);

    expect(await repo.deleteByPublicId(candidate.publicId)).toBe(true);

    expect(await repo.findByPublicId(candidate.publicId)).toBeNull();
    expect(await repo.deleteByPublicId(candidate.publicId)).toBe(false);
  });
});

describe('registration repository', () => {
  const LEASE_MS = 60_000;

  /** A registration whose identity and candidate belong together. */
  function aRegistration(email?: string) {
    const identity = anIdentity(email === undefined ? {} : { email, emailKey: emailIdentityKey(email) });
    return { identity, candidate: aCandidate({ publicId: identity.candidatePublicId }) };
  }

  it('when identities an earlier release stored in clear are prepared as at start, then each is sealed under a key of its own, lookalike e-mails keep the oldest, nothing is deleted, and a second run changes nothing', async () => {
    const db = await freshDatabase('identity_sealing');
    // Both earlier forms: keyed by the lower-cased e-mail, and by the folded one.
    const earlier = (email: string, minute: number, form: 'normalised' | 'folded') => {
      const { emailKey, ...identity } = anIdentity({
        email,
        phone: `+44 7700 9000${minute}`,
        createdDate: new Date(Date.UTC(2026, 0, 1, 0, minute)),
      });
      return form === 'folded' ? { ...identity, emailKey } : { ...identity, emailNormalised: email.toLowerCase() };
    };
    const identities = db.collection(COLLECTIONS.candidateIdentities);
    const registered = [
      earlier('amal@example.org', 1, 'normalised'),
      earlier('am\u0430l@example.org', 2, 'folded'), // a Cyrillic a: the same address to a reader
      earlier('omar@example.org', 3, 'folded'),
    ];
    await identities.insertMany(registered.map((identity) => ({ ...identity })));
    await db
      .collection(COLLECTIONS.candidates)
      .insertMany(
        registered.map((identity) => toStoredCandidate(aCandidate({ publicId: identity.candidatePublicId }))),
      );

    await dropSupersededIndexes(db);
    await ensureIndexes(db);
    const first = await sealEarlierIdentities(db);
    const second = await sealEarlierIdentities(db);

    expect([first, second]).toEqual([
      { sealed: 3, unkeyed: 1 },
      { sealed: 0, unkeyed: 0 },
    ]);
    const stored = await identities.find({}, { sort: { createdDate: 1 }, projection: { _id: 0 } }).toArray();
    expect(stored.map((doc) => Object.keys(doc).sort())).toEqual(
      registered.map(() => ['candidatePublicId', 'createdDate', 'sealed']),
    );
    expect(findIdentityData(stored)).toEqual([]);
    expect(JSON.stringify(stored)).not.toMatch(/amal|omar|7700/i);
    for (const identity of registered) {
      expect(await openedIdentity(db, identity.candidatePublicId)).toEqual({
        firstName: identity.firstName,
        lastName: identity.lastName,
        email: identity.email,
        phone: identity.phone,
      });
    }
    expect([
      await registrationsOfEmail(db, 'AMAL@example.org'),
      await registrationsOfEmail(db, 'omar@example.org'),
    ]).toEqual([1, 1]);
    const repo = new RegistrationRepository(db, { leaseMs: LEASE_MS });
    const again = aRegistration('AMAL@example.org');
    await expect(repo.insert(again.identity, again.candidate)).rejects.toBeInstanceOf(ConflictError);
  });

  it('when a candidate is registered, then it is stored with `listed` from its status and its statistics lists, so that searches and statistics find it', async () => {
    const db = await freshDatabase('registration_listed');
    const registration = aRegistration();

    await new RegistrationRepository(db, { leaseMs: LEASE_MS }).insert(registration.identity, registration.candidate);

    const stored = await db.collection(COLLECTIONS.candidates).findOne({ publicId: registration.candidate.publicId });
    expect(stored?.listed).toBe(true);
    const { statisticsOccupations, statisticsLanguages } = toStoredCandidate(registration.candidate);
    expect(statisticsOccupations.length + statisticsLanguages.length).toBeGreaterThan(0);
    expect(stored).toMatchObject({ statisticsOccupations, statisticsLanguages });
    expect((await new CandidateRepository(db).search({ includeEmployed: false }, { skip: 0, limit: 1 })).total).toBe(1);
  });

  it('when a registration repeats an already registered e-mail, then a ConflictError without the e-mail is thrown and nothing more is stored', async () => {
    const db = await freshDatabase('identity_conflict');
    const repo = new RegistrationRepository(db, { leaseMs: LEASE_MS });
    const first = aRegistration('Someone@Example.org');
    await repo.insert(first.identity, first.candidate);
    const again = aRegistration('someone@example.org');

    const error = await repo.insert(again.identity, again.candidate).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).status).toBe(409);
    expect(JSON.stringify({ message: (error as Error).message, cause: String((error as Error).cause) })).not.toMatch(
      /someone/i,
    );
    expect(await db.collection(COLLECTIONS.candidates).countDocuments()).toBe(1);
    expect(await db.collection(COLLECTIONS.candidateIdentities).countDocuments()).toBe(1);
  });

  it('when an identity lost its candidate in a crash, then its e-mail is refused while the lease runs and registers once it has passed', async () => {
    const db = await freshDatabase('identity_abandoned');
    const crashedAt = new Date('2030-01-01T00:00:00Z');
    let now = new Date(crashedAt.getTime() + LEASE_MS - 1);
    const repo = new RegistrationRepository(db, { leaseMs: LEASE_MS, clock: { now: () => now } });
    // What a crash between the writes leaves on a standalone MongoDB: a key and its identity, no candidate.
    const orphan = anIdentity({ createdDate: crashedAt });
    const sealed = await new IdentityVault(db).seal(orphan);
    await db.collection<IdentityKeyDoc>(COLLECTIONS.candidateIdentityKeys).insertOne({ ...sealed.key });
    await db.collection(COLLECTIONS.candidateIdentities).insertOne({ ...sealed.identity });
    const retry = aRegistration(orphan.email);

    const during = await repo.insert(retry.identity, retry.candidate).catch((e: unknown) => e);
    now = new Date(crashedAt.getTime() + LEASE_MS);
    await repo.insert(retry.identity, retry.candidate);

    expect(during).toBeInstanceOf(ConflictError);
    const identities = await db
      .collection(COLLECTIONS.candidateIdentities)
      .find({}, { projection: { _id: 0, candidatePublicId: 1 } })
      .toArray();
    expect(identities).toEqual([{ candidatePublicId: retry.identity.candidatePublicId }]);
    expect(
      await db
        .collection<IdentityKeyDoc>(COLLECTIONS.candidateIdentityKeys)
        .countDocuments({ _id: orphan.candidatePublicId }),
    ).toBe(0);
    expect(await db.collection(COLLECTIONS.candidates).countDocuments({ publicId: retry.candidate.publicId })).toBe(1);
  });

  it('when an old identity has its candidate, then its e-mail stays registered whatever the lease', async () => {
    const db = await freshDatabase('identity_complete');
    const repo = new RegistrationRepository(db, { leaseMs: 1, clock: { now: () => new Date('2100-01-01T00:00:00Z') } });
    const first = aRegistration();
    await repo.insert(first.identity, first.candidate);
    const again = aRegistration(first.identity.email);

    await expect(repo.insert(again.identity, again.candidate)).rejects.toBeInstanceOf(ConflictError);

    expect(
      await db
        .collection(COLLECTIONS.candidateIdentities)
        .countDocuments({ candidatePublicId: first.identity.candidatePublicId }),
    ).toBe(1);
  });
});

describe('saved lists, job opportunities and offers', () => {
  it('when a saved list is stored and read, then its candidates keep their order', async () => {
    const db = await freshDatabase('saved_list');
    const repo = new SavedListRepository(db);
    const ids = Array.from({ length: 150 }, () => aCandidate().publicId);
    const list = aSavedList({ candidatePublicIds: ids });

    await repo.insert(list);

    const stored = await repo.findByPublicId(list.publicId);
    expect(stored?.candidatePublicIds).toEqual(ids);
    expect(stored).toEqual(list);
    expect(await repo.findByPublicId(aSavedList().publicId)).toBeNull();
  });

  it('when job opportunities are inserted, then they are found by publicId without _id', async () => {
    const db = await freshDatabase('jobs');
    const repo = new JobOpportunityRepository(db);
    const jobs = [aJobOpportunity(), aJobOpportunity({ countryIsoCode: 'AU' })];

    await repo.insertMany(jobs);

    const found = await repo.findByPublicIds([jobs[1].publicId]);
    expect(found).toEqual([jobs[1]]);
  });

  it('when an offer is recorded twice with one publicId, then the second is a ConflictError', async () => {
    const db = await freshDatabase('offers');
    const repo = new OfferRepository(db);
    const offer = anOffer();

    await repo.insert(offer);

    expect(await repo.findByPublicId(offer.publicId)).toEqual(offer);
    await expect(repo.insert(anOffer({ publicId: offer.publicId }))).rejects.toThrow(ConflictError);
  });
});
