import { Long, MongoClient, type CommandStartedEvent, type Collection, type Document } from 'mongodb';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test';

describe('embedded store cursors', () => {
  let store: StoreUnderTest;
  let client: MongoClient;
  let items: Collection<Document & { _id: number }>;
  const started: CommandStartedEvent[] = [];

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = await MongoClient.connect(store.uri, { monitorCommands: true });
    client.on('commandStarted', (event) => started.push(event));
    items = client.db('cursors').collection<Document & { _id: number }>('items');
    await items.drop().catch(() => undefined);
    await items.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: i, label: `item ${i}` })));
  });

  afterAll(async () => {
    await client?.close();
    await store?.stop();
  });

  beforeEach(() => {
    started.length = 0;
  });

  it('when a find has a batchSize smaller than the result, then getMore fetches the rest and every document arrives once', async () => {
    // Act
    const all = await items.find({}).sort({ _id: 1 }).batchSize(64).toArray();

    // Assert
    expect(all.map((doc) => doc._id)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    const getMores = started.filter((event) => event.commandName === 'getMore');
    expect(getMores).toHaveLength(Math.ceil(1000 / 64) - 1);
  });

  it('when no batchSize is given, then the first batch holds 101 documents', async () => {
    // Act
    const reply = await client.db('cursors').command({ find: 'items', filter: {} });

    // Assert
    expect(reply.cursor.firstBatch).toHaveLength(101);
    expect(Long.isLong(reply.cursor.id) || typeof reply.cursor.id === 'number').toBe(true);
    expect(Number(reply.cursor.id)).not.toBe(0);
    await client.db('cursors').command({ killCursors: 'items', cursors: [reply.cursor.id] });
  });

  it('when a cursor is killed, then it is reported killed and a later getMore answers CursorNotFound', async () => {
    // Arrange
    const opened = await client.db('cursors').command({ find: 'items', filter: {}, batchSize: 10 });
    const id = opened.cursor.id as Long;

    // Act
    const killed = await client.db('cursors').command({ killCursors: 'items', cursors: [id] });
    const error = await client
      .db('cursors')
      .command({ getMore: id, collection: 'items' })
      .catch((e: unknown) => e);

    // Assert
    expect(killed.cursorsKilled.map(Number)).toEqual([Number(id)]);
    expect(error).toMatchObject({ code: 43, codeName: 'CursorNotFound' });
  });

  it('when the last batch is read, then the cursor id is 0 and the cursor is gone', async () => {
    // Arrange
    const opened = await client.db('cursors').command({ find: 'items', filter: { _id: { $lt: 15 } }, batchSize: 10 });
    const id = opened.cursor.id as Long;

    // Act
    const rest = await client.db('cursors').command({ getMore: id, collection: 'items', batchSize: 10 });
    const error = await client
      .db('cursors')
      .command({ getMore: id, collection: 'items' })
      .catch((e: unknown) => e);

    // Assert
    expect(rest.cursor.nextBatch).toHaveLength(5);
    expect(Number(rest.cursor.id)).toBe(0);
    expect(error).toMatchObject({ code: 43 });
  });

  it('when the driver closes a cursor early, then it sends killCursors and the store accepts it', async () => {
    // Arrange
    const cursor = items.find({}).batchSize(5);
    await cursor.next();

    // Act
    await cursor.close();

    // Assert
    const kill = started.find((event) => event.commandName === 'killCursors');
    expect(kill).toBeDefined();
  });
});
