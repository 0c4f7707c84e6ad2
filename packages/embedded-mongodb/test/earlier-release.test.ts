import fs from 'node:fs';
import path from 'node:path';
import { Binary, Decimal128, MongoClient, MongoServerError, ObjectId, type Document } from 'mongodb';
import { startEmbeddedStore, type EmbeddedStore } from '../src/index';
import { makeTempDir } from './helpers';

/**
 * A data directory written by the release before the storage engine (a snapshot and a journal,
 * see fixtures/release-data-directory/README.md) is converted once, at open, with a log line;
 * a conversion that fails leaves the old files as they were.
 */

const FIXTURE = path.join(__dirname, 'fixtures', 'release-data-directory');
const EARLIER_FILES = ['journal-1.log', 'snapshot.bin'];

interface LogLine {
  level: string;
  msg: string;
  fields?: object;
}

describe('converting a data directory of the earlier release', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStore | undefined;
  let client: MongoClient | undefined;
  let logged: LogLine[];

  beforeEach(() => {
    temp = makeTempDir('store-earlier-release');
    fs.cpSync(FIXTURE, temp.dir, { recursive: true, filter: (source) => !source.endsWith('README.md') });
    logged = [];
  });

  afterEach(async () => {
    await client?.close();
    await store?.close();
    client = undefined;
    store = undefined;
    temp.remove();
  });

  async function open(): Promise<MongoClient> {
    await client?.close();
    await store?.close();
    store = await startEmbeddedStore({
      dbPath: temp.dir,
      port: 0,
      log: (level, msg, fields) => logged.push({ level, msg, fields }),
    });
    client = await MongoClient.connect(store.uri);
    return client;
  }

  const conversions = (): LogLine[] => logged.filter((line) => line.msg.startsWith('converted the data directory'));
  const fileBytes = (): Map<string, Buffer> =>
    new Map(EARLIER_FILES.map((name) => [name, fs.readFileSync(path.join(temp.dir, name))]));

  it('when the store opens it, then every document, index and option of the snapshot and the journal is there, converted once', async () => {
    // Act
    const people = (await open()).db('app').collection<Document>('people');

    // Assert: the snapshot's documents with the journal's changes applied.
    expect(await people.countDocuments()).toBe(51);
    expect(await people.findOne({ _id: 1 as never })).toMatchObject({ name: 'renamed', extra: [1, 2, 3] });
    expect(await people.findOne({ _id: 2 as never })).toBeNull();
    expect(await people.findOne({ _id: 3 as never })).toMatchObject({ age: 1003 });
    const four = await people.findOne({ _id: 4 as never });
    expect(four?.price).toEqual(Decimal128.fromString('4.5'));
    expect(four?.oid).toEqual(new ObjectId('000000000000000000000004'));
    expect(four?.bin).toEqual(new Binary(Buffer.from([4])));
    expect(four?.seenAt).toEqual(new Date(Date.UTC(2026, 0, 1, 0, 4)));
    expect((await people.findOne({ _id: 101 as never }))?.email).toBe('txn@example.org');
    expect(await client!.db('other').listCollections().toArray()).toEqual([]);
    const indexes = await people.listIndexes().toArray();
    expect(indexes.map((index) => index.name)).toEqual(['_id_', 'lang_age', 'email_unique', 'ttl']);
    expect(indexes.find((index) => index.name === 'email_unique')).toMatchObject({ unique: true });
    expect(indexes.find((index) => index.name === 'ttl')).toMatchObject({ expireAfterSeconds: 3600 });
    expect((await client!.db('app').collection('empty').listIndexes().toArray()).map((index) => index.name)).toEqual([
      '_id_',
      'a_1',
    ]);
    // The converted indexes answer as a scan of the documents, and the unique one holds.
    const byIndex = await people.find({ 'languages.code': 'fr' }).sort({ age: -1, _id: 1 }).toArray();
    const byScan = await people
      .find({ 'languages.code': 'fr' })
      .hint({ $natural: 1 })
      .sort({ age: -1, _id: 1 })
      .toArray();
    expect(byIndex.length).toBeGreaterThan(10);
    expect(byIndex).toEqual(byScan);
    const plan = await people.find({ 'languages.code': 'fr' }).explain();
    expect(JSON.stringify(plan.queryPlanner.winningPlan)).toContain('lang_age');
    await expect(people.insertOne({ _id: 500, email: 'p7@example.org' } as never)).rejects.toThrow(MongoServerError);
    // Converted once, with a log line; the earlier files gone.
    expect(conversions()).toHaveLength(1);
    expect(conversions()[0].fields).toMatchObject({ collections: 3, documents: 51, journalChanges: 5 });
    expect(fs.readdirSync(temp.dir).filter((name) => EARLIER_FILES.includes(name))).toEqual([]);

    // Act: a second start
    const again = (await open()).db('app').collection<Document>('people');

    // Assert
    expect(await again.countDocuments()).toBe(51);
    expect(conversions()).toHaveLength(1);
  });

  it('when the journal ends in a torn record, then the conversion keeps every record before it and logs the tear', async () => {
    // Arrange: a length prefix promising more bytes than follow, what a write cut short leaves.
    fs.appendFileSync(path.join(temp.dir, 'journal-1.log'), Buffer.from([0x40, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2]));

    // Act
    const people = (await open()).db('app').collection<Document>('people');

    // Assert
    expect(await people.countDocuments()).toBe(51);
    expect(logged.some((line) => line.level === 'warn' && line.msg.includes('torn record'))).toBe(true);
  });

  it('when the conversion fails, then the earlier files are left as they were and no engine file is made', async () => {
    // Arrange: a snapshot cut short (its end marker gone) is refused rather than converted in part.
    const snapshot = path.join(temp.dir, 'snapshot.bin');
    fs.truncateSync(snapshot, fs.statSync(snapshot).size - 20);
    const before = fileBytes();

    // Act
    const opening = open();

    // Assert
    await expect(opening).rejects.toThrow(/incomplete or damaged/);
    expect(fileBytes()).toEqual(before);
    expect(fs.readdirSync(temp.dir).sort()).toEqual(EARLIER_FILES);
  });

  it('when a conversion was cut short after its engine file was in place, then the next start removes the earlier files without converting again', async () => {
    // Arrange: converted, then the earlier files back, as a crash before their removal leaves them.
    await open();
    await client!
      .db('app')
      .collection('people')
      .insertOne({ _id: 'after', email: 'after@example.org' } as never);
    await client!.close();
    await store!.close();
    client = undefined;
    store = undefined;
    for (const name of EARLIER_FILES) fs.copyFileSync(path.join(FIXTURE, name), path.join(temp.dir, name));
    logged = [];

    // Act
    const people = (await open()).db('app').collection<Document>('people');

    // Assert: the engine's data (with the write after the conversion), not a second conversion.
    expect(await people.countDocuments()).toBe(52);
    expect(conversions()).toEqual([]);
    expect(fs.readdirSync(temp.dir).filter((name) => EARLIER_FILES.includes(name))).toEqual([]);
  });
});
