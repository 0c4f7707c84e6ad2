import { Decimal128, MongoClient, type CollationOptions, type Db, type Document } from 'mongodb';
import { embeddedStoreForSuite, startStoreUnderTest, type StoreUnderTest } from './support/store-under-test';
import { serverError } from './support/server-error';

/**
 * What running MongoDB's whole CRUD specification suite against the embedded store found
 * (README, "Conformance"): answers that must be MongoDB's, and options the store refuses with a
 * clear "not supported" error (code 115) rather than answer wrongly.
 */

/** Documents whose _id may be anything (null, a number, a document), as the checks need. */
interface AnyId {
  _id?: number | null | Document;
  [field: string]: unknown;
}

/** `{d: {d: … {leaf: 1}}}`, the document itself being level 1: `levels` levels of nesting in all. */
function nested(levels: number): Document {
  let doc: Document = { leaf: 1 };
  for (let level = 1; level < levels; level++) doc = { d: doc };
  return doc;
}

describe('embedded store: MongoDB answers the CRUD spec suite checks', () => {
  let store: StoreUnderTest;
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = await MongoClient.connect(store.uri);
    db = client.db('crud_spec_findings');
  });

  afterAll(async () => {
    await client?.close();
    await store?.stop();
  });

  beforeEach(async () => {
    await db.dropDatabase();
  });

  it('when a document is inserted with a null _id, then countDocuments({_id: null}) finds it', async () => {
    // Arrange: forceServerObjectId, or the Node driver replaces the null with an ObjectId (NODE-6468)
    const nullIds = db.collection<AnyId>('null_ids');
    await nullIds.insertOne({ _id: null, x: 1 }, { forceServerObjectId: true });
    await nullIds.insertOne({ x: 2 });

    // Act
    const byNull = await nullIds.countDocuments({ _id: null });
    const byType = await nullIds.countDocuments({ _id: { $type: 'null' } });

    // Assert
    expect(byNull).toBe(1);
    expect(byType).toBe(1);
    expect(await nullIds.findOne({ _id: null })).toEqual({ _id: null, x: 1 });
  });

  it('when a collection does not exist, then estimatedDocumentCount is 0 while others hold documents', async () => {
    // Arrange
    await db.collection<AnyId>('present').insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);

    // Act
    const missing = await db.collection<AnyId>('absent').estimatedDocumentCount();
    const present = await db.collection<AnyId>('present').estimatedDocumentCount();

    // Assert
    expect(missing).toBe(0);
    expect(present).toBe(3);
  });

  it('when a command has let variables, then each value is evaluated as an expression first', async () => {
    // Arrange
    const items = db.collection<AnyId>('items');
    await items.insertMany([{ _id: 1 }, { _id: 2 }]);

    // Act
    const projected = await items
      .aggregate([{ $match: { _id: 1 } }, { $project: { _id: 0, x: '$$x', y: '$$y' } }], {
        let: { x: 'foo', y: { $literal: '$bar' } },
      })
      .toArray();
    await items.updateMany({ _id: 2 }, [{ $set: { y: '$$y', sum: '$$sum' } }], {
      let: { y: { $literal: '$bar' }, sum: { $add: [1, 2] } },
    });

    // Assert
    expect(projected).toEqual([{ x: 'foo', y: '$bar' }]);
    expect(await items.findOne({ _id: 2 })).toEqual({ _id: 2, y: '$bar', sum: 3 });
  });

  it('when an update pipeline sets a top-level "$a" or "a.b" field with $setField, then the document stores it', async () => {
    // Arrange
    const items = db.collection<AnyId>('items');
    await items.insertOne({ _id: 1, foo: {} });

    // Act
    const dollar = await items.updateOne({ _id: 1 }, [
      { $replaceWith: { $setField: { field: { $literal: '$a' }, value: 1, input: '$$ROOT' } } },
    ]);
    const dotted = await items.updateOne({ _id: 1 }, [
      { $replaceWith: { $setField: { field: { $literal: 'a.b' }, value: 2, input: '$$ROOT' } } },
    ]);

    // Assert
    expect([dollar.modifiedCount, dotted.modifiedCount]).toEqual([1, 1]);
    expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, foo: {}, $a: 1, 'a.b': 2 });
  });

  it('when an update pipeline holds a stage updates may not use, then the update is refused', async () => {
    // Arrange
    const items = db.collection<AnyId>('items');
    await items.insertOne({ _id: 1 });

    // Act
    const error = await serverError(items.updateOne({ _id: 1 }, [{ $match: { _id: 1 } }]));

    // Assert
    expect(error.code).toBe(72);
  });

  it('when an _id holds a "$"-prefixed field, then the insert is refused and nothing is stored', async () => {
    // Arrange
    const items = db.collection<AnyId>('items');

    // Act
    const error = await serverError(items.insertOne({ _id: { $a: 1 } }));

    // Assert
    expect(error.code).toBe(52);
    expect(await items.countDocuments({})).toBe(0);
  });

  it('when an aggregate with $out asks for a linearizable read, then it is refused and nothing is written; majority runs', async () => {
    // Arrange
    const items = db.collection<AnyId>('items');
    await items.insertMany([{ _id: 1 }, { _id: 2 }]);

    // Act
    const error = await serverError(
      items.aggregate([{ $out: 'copies' }], { readConcern: { level: 'linearizable' } }).toArray(),
    );
    const missing = await db.listCollections({ name: 'copies' }).toArray();
    await items.aggregate([{ $out: 'copies' }], { readConcern: { level: 'majority' } }).toArray();

    // Assert
    expect(error.code).toBe(72);
    expect(missing).toEqual([]);
    expect(await db.collection('copies').countDocuments({})).toBe(2);
  });
});

describe('embedded store: limits and refusals where MongoDB versions differ', () => {
  // These hold the embedded store to the manual (100 levels) and to MongoDB 7.0, the version it
  // reports; a real server of another version answers some of them differently.
  const suite = embeddedStoreForSuite();
  let db: Db;

  beforeAll(() => {
    db = suite.client.db('crud_spec_refusals');
  });

  beforeEach(async () => {
    await db.dropDatabase();
    await db.collection<AnyId>('words').insertMany([
      { _id: 1, x: 'ping' },
      { _id: 2, x: 'pong' },
    ]);
  });

  it('when a document nests 101 levels, then the insert is refused and one of 100 levels is stored', async () => {
    // Arrange
    const deep = db.collection<AnyId>('deep');

    // Act
    const error = await serverError(deep.insertOne({ _id: 1, ...nested(101) }));
    const accepted = await deep.insertOne({ _id: 2, ...nested(100) });

    // Assert
    expect(error.code).toBe(15);
    expect(error.message).toMatch(/100 levels of nesting/);
    expect(accepted.insertedId).toBe(2);
    expect(await deep.find({}, { projection: { _id: 1 } }).toArray()).toEqual([{ _id: 2 }]);
  });

  it('when arrays make the nesting too deep, then the insert is refused too', async () => {
    // Arrange: the document, then 100 arrays: 101 levels
    let value: unknown = 1;
    for (let level = 0; level < 100; level++) value = [value];

    // Act
    const error = await serverError(db.collection<AnyId>('deep').insertOne({ _id: 1, a: value }));

    // Assert
    expect(error.code).toBe(15);
  });

  it('when an update would nest a document past 100 levels, then it is refused and the document unchanged', async () => {
    // Arrange
    const deep = db.collection<AnyId>('deep');
    await deep.insertOne({ _id: 1, ...nested(99) });

    // Act
    const error = await serverError(deep.updateOne({ _id: 1 }, { $set: { extra: nested(100) } }));

    // Assert
    expect(error.code).toBe(15);
    expect(await deep.findOne({ _id: 1 })).toEqual({ _id: 1, ...nested(99) });
  });

  it('when a create names viewOn, then it is refused as not supported and no view exists', async () => {
    // Act
    const error = await serverError(
      db.createCollection('words_view', { viewOn: 'words', pipeline: [{ $match: { _id: { $gt: 1 } } }] }),
    );

    // Assert
    expect(error.code).toBe(115);
    expect(error.message).toMatch(/viewOn/);
    expect(await db.listCollections({ name: 'words_view' }).toArray()).toEqual([]);
    expect(await db.collection<AnyId>('words_view').estimatedDocumentCount()).toBe(0);
  });

  it.each([
    ['find', (c: CollationOptions) => db.collection<AnyId>('words').find({ x: 'PING' }, { collation: c }).toArray()],
    [
      'countDocuments',
      (c: CollationOptions) => db.collection<AnyId>('words').countDocuments({ x: 'PING' }, { collation: c }),
    ],
    ['distinct', (c: CollationOptions) => db.collection<AnyId>('words').distinct('x', {}, { collation: c })],
    [
      'aggregate',
      (c: CollationOptions) =>
        db
          .collection<AnyId>('words')
          .aggregate([{ $match: { x: 'PING' } }], { collation: c })
          .toArray(),
    ],
    [
      'updateOne',
      (c: CollationOptions) =>
        db.collection<AnyId>('words').updateOne({ x: 'PING' }, { $set: { y: 1 } }, { collation: c }),
    ],
    ['deleteMany', (c: CollationOptions) => db.collection<AnyId>('words').deleteMany({ x: 'PING' }, { collation: c })],
    [
      'findOneAndDelete',
      (c: CollationOptions) => db.collection<AnyId>('words').findOneAndDelete({ x: 'PING' }, { collation: c }),
    ],
    [
      'createIndex',
      (c: CollationOptions) => db.collection<AnyId>('words').createIndex({ x: 1 }, { unique: true, collation: c }),
    ],
    ['createCollection', (c: CollationOptions) => db.createCollection('collated', { collation: c })],
  ])(
    'when %s asks for a case-insensitive collation, then it is refused as not supported and nothing changes',
    async (_name, run) => {
      // Act
      const error = await serverError(run({ locale: 'en_US', strength: 2 }));

      // Assert
      expect(error.code).toBe(115);
      expect(error.message).toMatch(/simple collation/);
      expect(await db.collection<AnyId>('words').find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, x: 'ping' },
        { _id: 2, x: 'pong' },
      ]);
    },
  );

  it('when a query names the simple collation, then it runs as without one', async () => {
    // Act
    const found = await db
      .collection<AnyId>('words')
      .find({ x: 'ping' }, { collation: { locale: 'simple' } })
      .toArray();

    // Assert
    expect(found).toEqual([{ _id: 1, x: 'ping' }]);
  });

  it('when a bulk write has a collated statement after a plain one, then the command is refused whole', async () => {
    // Act
    const error = await serverError(
      db
        .collection<AnyId>('words')
        .bulkWrite([
          { deleteOne: { filter: { _id: 1 } } },
          { deleteOne: { filter: { x: 'PONG' }, collation: { locale: 'en_US', strength: 2 } } },
        ]),
    );

    // Assert
    expect(error.code).toBe(115);
    expect(await db.collection<AnyId>('words').countDocuments({})).toBe(2);
  });

  it('when an update statement carries sort (MongoDB 8.0), then the 7.0 store refuses the unknown field', async () => {
    // Act
    const error = await serverError(
      db.command({ update: 'words', updates: [{ q: { _id: { $gt: 0 } }, u: { $set: { y: 1 } }, sort: { _id: -1 } }] }),
    );

    // Assert
    expect(error.code).toBe(40415);
    expect(error.message).toBe("BSON field 'update.updates.sort' is an unknown field.");
    expect(await db.collection<AnyId>('words').countDocuments({ y: 1 })).toBe(0);
  });

  it('when a pipeline uses $listLocalSessions, then it is refused as not supported (not as an unknown stage)', async () => {
    // Act
    const error = await serverError(
      suite.client
        .db('admin')
        .aggregate([{ $listLocalSessions: {} }])
        .toArray(),
    );

    // Assert
    expect(error.code).toBe(115);
  });

  it('when a collection is given a validator, by create or collMod, then it is refused as not supported', async () => {
    // Act
    const onCreate = await serverError(db.createCollection('checked', { validator: { x: { $type: 'string' } } }));
    const onModify = await serverError(db.command({ collMod: 'words', validator: { x: { $type: 'string' } } }));

    // Assert: a validator stored but not enforced would accept what MongoDB refuses
    expect([onCreate.code, onModify.code]).toEqual([115, 115]);
    expect(await db.listCollections({ name: 'checked' }).toArray()).toEqual([]);
  });

  it('when $inc or $mul meets a decimal, then it is refused as not supported and the document is unchanged', async () => {
    // Arrange: decimal arithmetic (mongod's IEEE 754-2008 decimal128) is what the store does not compute
    const amounts = db.collection<AnyId>('amounts');
    await amounts.insertOne({ _id: 1, d: Decimal128.fromString('1.5'), n: 2 });

    // Act
    const incremented = await serverError(amounts.updateOne({ _id: 1 }, { $inc: { d: 1 } } as Document));
    const multiplied = await serverError(
      amounts.updateOne({ _id: 1 }, { $mul: { n: Decimal128.fromString('2') } } as Document),
    );

    // Assert
    expect([incremented.code, multiplied.code]).toEqual([115, 115]);
    expect(await amounts.findOne({ _id: 1 })).toEqual({ _id: 1, d: Decimal128.fromString('1.5'), n: 2 });
  });
});
