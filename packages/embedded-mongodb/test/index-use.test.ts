import { MongoClient, type Collection, type Document } from 'mongodb';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test';

const DOCUMENTS = 50_000;
const BATCH = 5_000;
const CODES = 400;

/** Deterministic candidate-like documents: 1-3 occupations each, codes spread over CODES values. */
function candidate(i: number): Document {
  const occupations = Array.from({ length: 1 + (i % 3) }, (_, k) => ({
    occupation: { isco08Code: `C${(i * 7 + k * 131) % CODES}` },
    years: k,
  }));
  return {
    _id: i,
    publicId: `P${i}`,
    candidateOccupations: occupations,
    // The same codes, in a field without an index, to compare plans.
    unindexedOccupations: occupations.map((o) => ({ occupation: { code: o.occupation.isco08Code } })),
  };
}

describe('embedded store index use', () => {
  let store: StoreUnderTest;
  let client: MongoClient;
  let candidates: Collection;
  const wanted = ['C7', 'C42', 'C301'];
  const expectedIds = idsWithAnyCode(wanted);

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = await MongoClient.connect(store.uri);
    candidates = client.db('index_use').collection('candidates');
    await candidates.drop().catch(() => undefined);
    await candidates.createIndex({ 'candidateOccupations.occupation.isco08Code': 1 });
    for (let from = 0; from < DOCUMENTS; from += BATCH) {
      await candidates.insertMany(Array.from({ length: BATCH }, (_, j) => candidate(from + j)));
    }
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await store?.stop();
  });

  it('when $in queries an indexed field inside an array of subdocuments, then only about the matching documents are examined', async () => {
    // Act
    const explained = await candidates
      .find({ 'candidateOccupations.occupation.isco08Code': { $in: wanted } })
      .explain('executionStats');
    const found = await candidates
      .find({ 'candidateOccupations.occupation.isco08Code': { $in: wanted } })
      .sort({ _id: 1 })
      .toArray();

    // Assert
    const stats = explained.executionStats as Document;
    expect(expectedIds.length).toBeGreaterThan(100);
    expect(stats.nReturned).toBe(expectedIds.length);
    expect(stats.totalDocsExamined).toBeLessThanOrEqual(expectedIds.length + 10);
    expect(stats.totalDocsExamined).toBeLessThan(DOCUMENTS / 10);
    expect(stats.totalKeysExamined).toBeGreaterThan(0);
    expect(found.map((doc) => doc._id)).toEqual(expectedIds);
  });

  it('when the same $in queries a field without an index, then every document is examined and the same documents come back', async () => {
    // Act
    const explained = await candidates
      .find({ 'unindexedOccupations.occupation.code': { $in: wanted } })
      .explain('executionStats');
    const found = await candidates
      .find({ 'unindexedOccupations.occupation.code': { $in: wanted } })
      .sort({ _id: 1 })
      .toArray();

    // Assert
    const stats = explained.executionStats as Document;
    expect(stats.totalDocsExamined).toBe(DOCUMENTS);
    expect(stats.nReturned).toBe(expectedIds.length);
    expect(found.map((doc) => doc._id)).toEqual(expectedIds);
  });

  it('when an equality on the indexed field is combined with other conditions in $and, then the index still narrows the scan', async () => {
    // Act
    const filter = { $and: [{ 'candidateOccupations.occupation.isco08Code': 'C42' }, { publicId: { $regex: '^P1' } }] };
    const explained = await candidates.find(filter).explain('executionStats');
    const found = await candidates.find(filter).sort({ _id: 1 }).toArray();

    // Assert
    const withCode = idsWithAnyCode(['C42']);
    const expected = withCode.filter((id) => `P${id}`.startsWith('P1'));
    const stats = explained.executionStats as Document;
    expect(stats.totalDocsExamined).toBeLessThanOrEqual(withCode.length + 10);
    expect(found.map((doc) => doc._id)).toEqual(expected);
  });

  it('when a page is read sorted by an indexed key, then the index order is walked and the scan stops after the page', async () => {
    // Act
    const explained = await candidates.find({}).sort({ _id: -1 }).skip(20).limit(10).explain('executionStats');
    const page = await candidates.find({}).sort({ _id: -1 }).skip(20).limit(10).toArray();

    // Assert
    const stats = explained.executionStats as Document;
    expect(stats.totalDocsExamined).toBeLessThanOrEqual(30);
    expect(page.map((doc) => doc._id)).toEqual(Array.from({ length: 10 }, (_, i) => DOCUMENTS - 21 - i));
  });
});

/** Brute force: the ids of the documents having one of the codes. */
function idsWithAnyCode(codes: readonly string[]): number[] {
  const ids: number[] = [];
  for (let i = 0; i < DOCUMENTS; i++) {
    if (
      (candidate(i).candidateOccupations as Document[]).some((o) => codes.includes(o.occupation.isco08Code as string))
    )
      ids.push(i);
  }
  return ids;
}
