import { MongoClient, type Collection, type Db, type Document } from 'mongodb';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test';

/**
 * Query, update and aggregation semantics the store delegates to mingo, and the guarantee that
 * none of them alters stored documents behind the store's back.
 */
/** Documents keyed by number, so the driver's types accept numeric _id filters. */
type Keyed = Document & { _id: number };

describe('embedded store query semantics', () => {
  let store: StoreUnderTest;
  let client: MongoClient;
  let db: Db;
  let people: Collection<Keyed>;

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = await MongoClient.connect(store.uri);
    db = client.db('semantics');
  });

  afterAll(async () => {
    await client?.close();
    await store?.stop();
  });

  beforeEach(async () => {
    await db.dropDatabase();
    people = db.collection<Keyed>('people');
    await people.insertMany([
      {
        _id: 1,
        name: 'Ada',
        address: { city: 'London', zip: 'N1' },
        skills: [
          { code: 'MATH', level: 5 },
          { code: 'CODE', level: 4 },
        ],
        teamId: 10,
      },
      {
        _id: 2,
        name: 'Grace',
        address: { city: 'New York', zip: '10001' },
        skills: [{ code: 'CODE', level: 5 }],
        teamId: 20,
      },
    ]);
    await db.collection<Keyed>('teams').insertMany([
      { _id: 10, title: 'Engines' },
      { _id: 20, title: 'Compilers' },
    ]);
  });

  it('when a projection excludes nested fields, then the stored document keeps them', async () => {
    // Act
    const projected = await people.findOne({ _id: 1 }, { projection: { 'address.zip': 0, 'skills.level': 0 } });
    const stored = await people.findOne({ _id: 1 });

    // Assert
    expect(projected).toEqual({
      _id: 1,
      name: 'Ada',
      address: { city: 'London' },
      skills: [{ code: 'MATH' }, { code: 'CODE' }],
      teamId: 10,
    });
    expect(stored?.address).toEqual({ city: 'London', zip: 'N1' });
    expect(stored?.skills).toEqual([
      { code: 'MATH', level: 5 },
      { code: 'CODE', level: 4 },
    ]);
  });

  it('when a pipeline rewrites nested fields and unwinds arrays, then the stored documents are untouched', async () => {
    // Act
    const rows = await people
      .aggregate([
        { $addFields: { 'address.city': 'Nowhere' } },
        { $unwind: { path: '$skills', includeArrayIndex: 'position' } },
        { $sort: { _id: 1, position: 1 } },
      ])
      .toArray();
    const stored = await people.find({}).sort({ _id: 1 }).toArray();

    // Assert
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ address: { city: 'Nowhere' }, skills: { code: 'MATH' }, position: 0 });
    expect(stored.map((doc) => doc.address.city)).toEqual(['London', 'New York']);
    expect(stored[0].skills).toHaveLength(2);
  });

  it('when $lookup joins another collection of the database, then each document carries its matches', async () => {
    // Act
    const rows = await people
      .aggregate([
        { $lookup: { from: 'teams', localField: 'teamId', foreignField: '_id', as: 'team' } },
        { $project: { name: 1, team: '$team.title' } },
        { $sort: { _id: 1 } },
      ])
      .toArray();

    // Assert
    expect(rows).toEqual([
      { _id: 1, name: 'Ada', team: ['Engines'] },
      { _id: 2, name: 'Grace', team: ['Compilers'] },
    ]);
  });

  it('when $facet counts and pages in one pass, then both facets come back', async () => {
    // Act
    const [result] = await people
      .aggregate([
        { $match: { 'skills.code': 'CODE' } },
        {
          $facet: {
            total: [{ $count: 'n' }],
            page: [{ $sort: { name: -1 } }, { $limit: 1 }, { $project: { name: 1 } }],
          },
        },
      ])
      .toArray();

    // Assert
    expect(result).toEqual({ total: [{ n: 2 }], page: [{ _id: 2, name: 'Grace' }] });
  });

  it('when an update uses arrayFilters, then only the matching array elements change', async () => {
    // Act
    await people.updateOne({ _id: 1 }, { $inc: { 'skills.$[s].level': 1 } }, { arrayFilters: [{ 's.code': 'CODE' }] });

    // Assert
    expect((await people.findOne({ _id: 1 }))?.skills).toEqual([
      { code: 'MATH', level: 5 },
      { code: 'CODE', level: 5 },
    ]);
  });

  it('when an update is a pipeline, then it computes the new values from the document', async () => {
    // Act
    const result = await people.updateMany({}, [
      { $set: { label: { $concat: ['$name', ' (', '$address.city', ')'] } } },
    ]);

    // Assert
    expect(result.modifiedCount).toBe(2);
    expect((await people.find({}).sort({ _id: 1 }).toArray()).map((doc) => doc.label)).toEqual([
      'Ada (London)',
      'Grace (New York)',
    ]);
  });

  it('when an upsert inserts, then $setOnInsert and the filter equalities shape the new document', async () => {
    // Act
    await people.updateOne(
      { name: 'Linus', 'address.city': 'Helsinki' },
      { $set: { teamId: 30 }, $setOnInsert: { createdBy: 'upsert' } },
      { upsert: true },
    );
    await people.updateOne(
      { name: 'Linus' },
      { $set: { teamId: 31 }, $setOnInsert: { createdBy: 'second' } },
      { upsert: true },
    );

    // Assert
    const linus = await people.findOne({ name: 'Linus' }, { projection: { _id: 0 } });
    expect(linus).toEqual({ name: 'Linus', address: { city: 'Helsinki' }, teamId: 31, createdBy: 'upsert' });
  });

  it('when an update tries to change _id, then it fails with ImmutableField and nothing changes', async () => {
    // Act
    const error = await people.updateOne({ _id: 1 }, { $set: { _id: 99 } }).catch((e: unknown) => e);

    // Assert
    expect(error).toMatchObject({ code: 66 });
    expect(await people.countDocuments({ _id: 1 })).toBe(1);
  });

  it('when findOneAndUpdate sorts and projects, then it updates the first in order and returns the projected new version', async () => {
    // Act
    const updated = await people.findOneAndUpdate(
      {},
      { $set: { flagged: true } },
      { sort: { name: -1 }, projection: { name: 1, flagged: 1 }, returnDocument: 'after' },
    );

    // Assert
    expect(updated).toEqual({ _id: 2, name: 'Grace', flagged: true });
  });

  it('when distinct reads a path through an array, then each element value is listed once', async () => {
    // Act
    const codes = await people.distinct('skills.code');

    // Assert
    expect(codes.sort()).toEqual(['CODE', 'MATH']);
  });
});
