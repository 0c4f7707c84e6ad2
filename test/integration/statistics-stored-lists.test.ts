/**
 * Bounded contribution of the multi-valued statistics dimensions: the capped, de-duplicated code
 * lists stored with every candidate (candidate-documents), what the store counts from them
 * (exact counts of the repository, before any noise), and their backfill for data written before
 * they existed.
 */
import { MongoClient, type Db } from 'mongodb';
import { toStoredCandidate, type CandidateDoc } from 'candidate-documents';
import { CandidateRepository } from '../../src/candidates/candidate-repository';
import { COLLECTIONS, ensureIndexes } from '../../src/app/indexes';
import { storedKeyOf, type Dimension } from '../../src/statistics/dimensions';
import { STATISTICS_LISTS_INDEX } from '../../src/statistics/statistics-indexes';
import { StatisticsRepository } from '../../src/statistics/statistics-repository';
import { aCandidate, testDatabaseName } from '../support/builders';
import { startStoreUnderTest, type StoreUnderTest } from 'embedded-mongodb/test-support';

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

function newDatabase(label: string): Db {
  const db = client.db(testDatabaseName(label));
  databases.push(db);
  return db;
}

async function freshDatabase(label: string): Promise<Db> {
  const db = newDatabase(label);
  await ensureIndexes(db);
  return db;
}

const occupations = (...codes: string[]): CandidateDoc['candidateOccupations'] =>
  codes.map((isco08Code) => ({ occupation: { isco08Code }, yearsExperience: 1 }));
const languages = (...codes: string[]): CandidateDoc['candidateLanguages'] =>
  codes.map((languageIsoCode) => ({ languageIsoCode, writtenLevel: 3, spokenLevel: 3 }));

/** Exact counts per combination, as "code|code" → count (null as UNKNOWN). */
async function exactCounts(db: Db, location: string, groupBy: Dimension[]): Promise<Record<string, number>> {
  const groups = await new StatisticsRepository(db).groupCounts(
    { locations: [location], includeEmployed: true },
    groupBy.map(storedKeyOf),
  );
  return Object.fromEntries(
    groups.map((group) => [
      group.values.map((value) => (value === null ? 'UNKNOWN' : String(value as string | number))).join('|'),
      group.count,
    ]),
  );
}

describe('statistics lists stored with candidates', () => {
  test('when a candidate has more than 3 occupations and languages, some repeated, then it counts in exactly 3 cells of each: its first 3 distinct codes, in its order', async () => {
    // Arrange: the candidate alone in TR, and one without occupations or languages in IQ.
    const db = await freshDatabase('stats_lists_bounded');
    const many = aCandidate({
      countryIsoCode: 'TR',
      candidateOccupations: occupations('2221', '2221', '7126', '2211', '5120'),
      candidateLanguages: languages('ar', 'ar', 'en', 'fr', 'de'),
    });
    const none = aCandidate({ countryIsoCode: 'IQ', candidateOccupations: [], candidateLanguages: undefined });
    await new CandidateRepository(db).insertMany([many, none, aCandidate({ countryIsoCode: 'LB' })]);

    // Act
    const byOccupation = await exactCounts(db, 'TR', ['OCCUPATION']);
    const byLanguage = await exactCounts(db, 'TR', ['LANGUAGE']);
    const byBoth = await exactCounts(db, 'TR', ['OCCUPATION', 'LANGUAGE']);
    const withGender = await exactCounts(db, 'TR', ['GENDER', 'LANGUAGE']);
    const unknown = await exactCounts(db, 'IQ', ['OCCUPATION', 'LANGUAGE']);

    // Assert
    expect(byOccupation).toEqual({ '2221': 1, '7126': 1, '2211': 1 });
    expect(byLanguage).toEqual({ ar: 1, en: 1, fr: 1 });
    expect(Object.values(byBoth)).toEqual(Array(9).fill(1));
    expect(Object.keys(byBoth).sort()).toEqual(
      ['2221', '7126', '2211'].flatMap((o) => ['ar', 'en', 'fr'].map((l) => `${o}|${l}`)).sort(),
    );
    expect(withGender).toEqual({ 'FEMALE|ar': 1, 'FEMALE|en': 1, 'FEMALE|fr': 1 });
    expect(unknown).toEqual({ 'UNKNOWN|UNKNOWN': 1 });
  });

  test('when candidates are written and read through the repository, then each is stored with its statistics lists and read back without them', async () => {
    // Arrange
    const db = await freshDatabase('stats_lists_written');
    const repo = new CandidateRepository(db);
    const first = aCandidate({
      candidateOccupations: occupations('2221', '7126'),
      candidateLanguages: languages('fr'),
    });
    const second = aCandidate({ candidateOccupations: undefined, candidateLanguages: languages('en', 'en') });

    // Act
    await repo.insert(first);
    await repo.insertMany([second]);

    // Assert
    const stored = await db
      .collection(COLLECTIONS.candidates)
      .find({}, { projection: { _id: 0, publicId: 1, statisticsOccupations: 1, statisticsLanguages: 1 } })
      .toArray();
    expect(stored.sort((a, b) => (a.publicId === first.publicId ? -1 : b.publicId === first.publicId ? 1 : 0))).toEqual(
      [
        {
          publicId: first.publicId,
          statisticsOccupations: [{ isco08Code: '2221' }, { isco08Code: '7126' }],
          statisticsLanguages: [{ languageIsoCode: 'fr' }],
        },
        { publicId: second.publicId, statisticsOccupations: [], statisticsLanguages: [{ languageIsoCode: 'en' }] },
      ],
    );
    const read = [
      ...(await repo.findByPublicIds([first.publicId, second.publicId])),
      (await repo.findByPublicId(first.publicId))!,
      ...(await repo.search({ includeEmployed: true }, { skip: 0, limit: 10 })).items,
    ];
    expect(read).toHaveLength(5);
    for (const candidate of read) {
      expect(Object.keys(candidate)).not.toContain('statisticsOccupations');
      expect(Object.keys(candidate)).not.toContain('statisticsLanguages');
    }
  });

  test('when a database written before the statistics lists existed is prepared as at start, then every candidate gets the lists a write gives it (in batches), a second run changes nothing, and once the indexes exist none runs', async () => {
    // Arrange: 210 candidates as an earlier release stored them (three batches of the backfill,
    // run with batches of 100), without this release's indexes.
    const db = newDatabase('stats_lists_backfill');
    const batchSize = 100;
    const old = Array.from({ length: 210 }, (_v, i) =>
      aCandidate({
        countryIsoCode: 'TR',
        candidateOccupations: i % 3 === 0 ? [] : occupations('2221', '2221', '7126', '2211', String(5000 + (i % 7))),
        candidateLanguages: i % 5 === 0 ? undefined : languages('ar', 'en', 'ar', 'fr', 'de'),
      }),
    );
    const raw = (candidate: CandidateDoc) => ({ ...candidate, listed: candidate.status !== 'EMPLOYED' });
    await db.collection(COLLECTIONS.candidates).insertMany(old.map(raw));
    // One inserted by hand, with an id that is not an ObjectId (and sorts after them: a Date).
    const byHand = aCandidate({ countryIsoCode: 'IQ', candidateLanguages: languages('ar', 'en', 'fr', 'de') });
    await db
      .collection<{ _id: Date }>(COLLECTIONS.candidates)
      .insertOne({ ...raw(byHand), _id: new Date(Date.UTC(2020, 0, 1)) });
    const repo = new CandidateRepository(db);
    const before = await exactCounts(db, 'TR', ['OCCUPATION']);

    // Act: what main.ts does at start (the backfill, then the indexes), and the backfill again
    const changed = await repo.backfillStatisticsLists(STATISTICS_LISTS_INDEX, batchSize);
    const changedAgain = await repo.backfillStatisticsLists(undefined, batchSize);
    await ensureIndexes(db);
    const late = aCandidate({ countryIsoCode: 'SY' });
    await db.collection(COLLECTIONS.candidates).insertOne(raw(late));
    const changedOnceIndexed = await repo.backfillStatisticsLists(STATISTICS_LISTS_INDEX, batchSize);

    // Assert
    expect([changed, changedAgain, changedOnceIndexed]).toEqual([211, 0, 0]);
    expect(await exactCounts(db, 'IQ', ['LANGUAGE'])).toEqual({ ar: 1, en: 1, fr: 1 });
    const stored = await db
      .collection(COLLECTIONS.candidates)
      .find(
        { countryIsoCode: 'TR' },
        { projection: { _id: 0, publicId: 1, statisticsOccupations: 1, statisticsLanguages: 1 } },
      )
      .toArray();
    const expected = new Map(old.map((candidate) => [candidate.publicId, toStoredCandidate(candidate)]));
    expect(stored).toHaveLength(210);
    for (const doc of stored) {
      const { statisticsOccupations, statisticsLanguages } = expected.get(doc.publicId as string)!;
      expect(doc).toEqual({ publicId: doc.publicId, statisticsOccupations, statisticsLanguages });
    }
    expect(before).toEqual({ UNKNOWN: 210 });
    expect(await exactCounts(db, 'TR', ['OCCUPATION'])).toEqual({
      UNKNOWN: 70,
      '2221': 140,
      '7126': 140,
      '2211': 140,
    });
  });

  test('when a database has no candidates collection yet, then the backfill finds nothing to do', async () => {
    // Act
    const changed = await new CandidateRepository(newDatabase('stats_lists_empty')).backfillStatisticsLists(
      STATISTICS_LISTS_INDEX,
    );

    // Assert
    expect(changed).toBe(0);
  });
});
