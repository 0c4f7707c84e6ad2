import { MongoClient, type Collection, type Document, type IndexDescription } from 'mongodb';
import { parseIndexSpec } from '../src/engine/index-spec';
import { startEmbeddedStore, type EmbeddedStore } from '../src/index';
import { makeTempDir, temporaryCatalog } from './helpers';

/**
 * Documents as the durable store keeps them: `_id` first whatever its place in the insert, and
 * indexes built over documents already stored (createIndexes, then a restart that replays the
 * journal, then one that loads the snapshot) answering exactly as a collection scan does.
 */
describe('embedded store stored documents', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStore | undefined;
  let client: MongoClient | undefined;

  beforeEach(() => {
    temp = makeTempDir('stored-documents');
  });

  afterEach(async () => {
    await client?.close();
    await store?.close();
    client = undefined;
    store = undefined;
    temp.remove();
  });

  /** Documents of these tests choose their own _id (a string or a number). */
  type Thing = Document & { _id: string | number };

  async function open(): Promise<Collection<Thing>> {
    await client?.close();
    await store?.close();
    store = await startEmbeddedStore({ dbPath: temp.dir, port: 0 });
    client = await MongoClient.connect(store.uri);
    return client.db('stored').collection<Thing>('things');
  }

  /** Varied shapes: nested paths, arrays of documents, missing fields, mixed types, long strings. */
  function things(): Thing[] {
    return Array.from({ length: 60 }, (_, i) => ({
      name: `thing ${String(i).padStart(2, '0')}`,
      ...(i % 4 === 0 ? {} : { group: ['a', 'b', 'c'][i % 3] }),
      size: i % 5 === 0 ? `${i}` : i % 7,
      parts: Array.from({ length: i % 3 }, (_, j) => ({ code: `p${(i + j) % 6}`, tags: [`t${j}`, `t${i % 2}`] })),
      meta: { note: 'x'.repeat(i * 10), at: new Date(Date.UTC(2024, 0, 1 + i)) },
      _id: 1000 - i,
    }));
  }

  const INDEXES: IndexDescription[] = [
    { key: { group: 1, size: -1 }, name: 'group_size' },
    { key: { 'parts.code': 1, name: 1 }, name: 'parts_code_name' },
    { key: { 'parts.tags': 1 }, name: 'parts_tags', sparse: true },
    { key: { 'meta.at': -1 }, name: 'meta_at_partial', partialFilterExpression: { size: { $gt: 2 } } },
  ];

  const QUERIES: { filter: Document; hint: string }[] = [
    { filter: { group: 'b' }, hint: 'group_size' },
    { filter: { group: null }, hint: 'group_size' },
    { filter: { 'parts.code': { $in: ['p1', 'p4'] } }, hint: 'parts_code_name' },
    { filter: { 'parts.tags': 't1' }, hint: 'parts_tags' },
    { filter: { 'meta.at': { $gte: new Date(Date.UTC(2024, 1, 1)) }, size: { $gt: 2 } }, hint: 'meta_at_partial' },
  ];

  async function expectIndexesAnswerAsAScan(collection: Collection<Thing>): Promise<void> {
    for (const { filter, hint } of QUERIES) {
      const scanned = await collection
        .find(filter, { hint: { $natural: 1 } })
        .sort({ _id: 1 })
        .toArray();
      const indexed = await collection.find(filter, { hint }).sort({ _id: 1 }).toArray();
      expect(indexed).toEqual(scanned);
      expect(scanned.length).toBeGreaterThan(0);
    }
  }

  it('when a document is inserted with _id last, then it is read back with _id first and its other fields in order', async () => {
    // Arrange
    let collection = await open();
    const doc = { b: 1, a: { y: 2, x: 1 }, list: [3, 1, 2], _id: 'the-id' };

    // Act
    await collection.insertOne(doc);
    const fresh = await collection.findOne({ _id: 'the-id' });
    collection = await open();
    const replayed = await collection.findOne({ _id: 'the-id' });
    collection = await open();
    const fromSnapshot = await collection.findOne({ _id: 'the-id' });

    // Assert
    for (const read of [fresh, replayed, fromSnapshot]) {
      expect(Object.keys(read!)).toEqual(['_id', 'b', 'a', 'list']);
      expect(read).toEqual(doc);
      expect(Object.keys(read!.a as Document)).toEqual(['y', 'x']);
    }
  });

  it('when indexes are created over stored documents, then they answer as a scan, also after restarts', async () => {
    // Arrange
    let collection = await open();
    await collection.insertMany(things());

    // Act
    await collection.createIndexes(INDEXES);

    // Assert
    await expectIndexesAnswerAsAScan(collection);
    collection = await open(); // reopens the engine's files
    await expectIndexesAnswerAsAScan(collection);
    collection = await open(); // and again
    await expectIndexesAnswerAsAScan(collection);
    expect((await collection.listIndexes().toArray()).map((index) => index.name)).toEqual([
      '_id_',
      ...INDEXES.map((index) => index.name),
    ]);
  });
});

describe('collection index builds', () => {
  const catalog = temporaryCatalog();

  it('when one of several indexes cannot be built, then none of them is created', () => {
    // Arrange
    const collection = catalog.ensureCollection('stored', 'people');
    collection.insert({ _id: 1, email: 'same@example.org', name: 'a' });
    collection.insert({ _id: 2, email: 'same@example.org', name: 'b' });

    // Act
    const attempt = (): number =>
      collection.createIndexes([
        parseIndexSpec({ key: { name: 1 }, name: 'name_1' }),
        parseIndexSpec({ key: { email: 1 }, name: 'email_unique', unique: true }),
      ]);

    // Assert
    expect(attempt).toThrow(/duplicate key/);
    expect(collection.indexList().map((index) => index.name)).toEqual(['_id_']);
  });
});
