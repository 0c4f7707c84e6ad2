import { MongoClient, type Db } from 'mongodb';
import { startEmbeddedStore, type EmbeddedStore } from '../src/index';
import { makeTempDir } from './support';

/**
 * TTL indexes as mongod applies them (MongoDB manual, "TTL Indexes"), on the store's own clock:
 * a pass every ttlMonitorSleepSecs deletes documents whose indexed date (or earliest date of an
 * array) is older than expireAfterSeconds, within a partial filter; other values never expire.
 */
describe('embedded store TTL indexes', () => {
  const T0 = Date.UTC(2026, 10, 25, 6, 0, 0);
  let now = T0;
  let store: EmbeddedStore;
  let client: MongoClient;
  let db: Db;

  /** Moves the store's clock and waits for the next pass of the monitor (every 50 ms here). */
  async function advance(ms: number): Promise<void> {
    now += ms;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  beforeAll(async () => {
    store = await startEmbeddedStore({ memory: true, port: 0, ttlMonitorSleepSecs: 0.05, now: () => now });
    client = await MongoClient.connect(store.uri);
    db = client.db('ttl');
  });

  afterAll(async () => {
    await client.close();
    await store.close();
  });

  beforeEach(() => {
    now = T0;
  });

  test('when a date is older than expireAfterSeconds, then the document is removed, and not before', async () => {
    const windows = db.collection('windows');
    await windows.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    await windows.insertMany([
      { _id: 'a' as never, expiresAt: new Date(T0 + 60_000) },
      { _id: 'b' as never, expiresAt: new Date(T0 + 120_000) },
    ]);

    await advance(30_000);
    const early = (await windows.find().toArray()).map((d) => d._id);
    await advance(40_000);
    const later = (await windows.find().toArray()).map((d) => d._id);

    expect([early, later]).toEqual([['a', 'b'], ['b']]);
  });

  test('when the field holds an array of dates, then its earliest date decides', async () => {
    const events = db.collection('events');
    await events.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
    await events.insertMany([
      { _id: 'mixed' as never, at: [new Date(T0 + 3_600_000), new Date(T0 - 10_000)] },
      { _id: 'recent' as never, at: [new Date(T0), new Date(T0 + 1_000)] },
    ]);

    await advance(55_000);

    expect((await events.find().toArray()).map((d) => d._id)).toEqual(['recent']);
  });

  test('when the indexed field is not a date (number, string, missing, null), then the document never expires', async () => {
    const mixed = db.collection('mixed');
    await mixed.createIndex({ at: 1 }, { expireAfterSeconds: 1 });
    await mixed.insertMany([
      { _id: 'number' as never, at: 0 },
      { _id: 'string' as never, at: '2000-01-01' },
      { _id: 'missing' as never },
      { _id: 'null' as never, at: null },
      { _id: 'numbers' as never, at: [1, 2] },
      { _id: 'date' as never, at: new Date(0) },
    ]);

    await advance(3_600_000);

    expect((await mixed.find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([
      'missing',
      'null',
      'number',
      'numbers',
      'string',
    ]);
  });

  test('when a TTL index is partial, then only documents of its filter expire', async () => {
    const records = db.collection('records');
    await records.createIndex(
      { createdDate: 1 },
      { expireAfterSeconds: 10, partialFilterExpression: { state: 'done' }, name: 'done_ttl' },
    );
    await records.insertMany([
      { _id: 'done' as never, state: 'done', createdDate: new Date(T0) },
      { _id: 'pending' as never, state: 'pending', createdDate: new Date(T0) },
    ]);

    await advance(60_000);

    expect((await records.find().toArray()).map((d) => d._id)).toEqual(['pending']);
  });

  test('when an index is compound, on _id, or has no numeric expireAfterSeconds, then it expires nothing', async () => {
    const other = db.collection('other');
    await other.createIndex({ at: 1, n: 1 }, { expireAfterSeconds: 1 });
    await other.createIndex({ at2: 1 });
    await other.insertMany([
      { _id: 'compound' as never, at: new Date(0), n: 1 },
      { _id: 'plain' as never, at2: new Date(0) },
    ]);

    await advance(3_600_000);

    expect(await other.countDocuments()).toBe(2);
  });

  test('when the monitor sleeps for its interval, then nothing expires between passes', async () => {
    const slow = await startEmbeddedStore({ memory: true, port: 0, ttlMonitorSleepSecs: 3600, now: () => now });
    const slowClient = await MongoClient.connect(slow.uri);
    try {
      const items = slowClient.db('ttl').collection('items');
      await items.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
      await items.insertOne({ at: new Date(T0 - 1) });

      await advance(60_000);

      expect(await items.countDocuments()).toBe(1);
    } finally {
      await slowClient.close();
      await slow.close();
    }
  });

  test('when a pass deletes documents of a durable store, then the deletion survives a restart', async () => {
    const temp = makeTempDir('ttl-durable');
    const dir = temp.dir;
    const first = await startEmbeddedStore({ dbPath: dir, port: 0, ttlMonitorSleepSecs: 0.05, now: () => now });
    const firstClient = await MongoClient.connect(first.uri);
    await firstClient.db('ttl').collection('d').createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    await firstClient
      .db('ttl')
      .collection('d')
      .insertMany([{ at: new Date(T0 - 1) }, { at: new Date(T0 + 3_600_000) }]);
    await advance(1_000);
    await firstClient.close();
    await first.close();

    const second = await startEmbeddedStore({ dbPath: dir, port: 0, ttlMonitorSleepSecs: 3600 });
    const secondClient = await MongoClient.connect(second.uri);
    try {
      expect(await secondClient.db('ttl').collection('d').countDocuments()).toBe(1);
    } finally {
      await secondClient.close();
      await second.close();
      temp.remove();
    }
  });
});
