import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test';

interface User {
  _id: number;
  email: string;
  name?: string;
}

describe('embedded store unique indexes', () => {
  let store: StoreUnderTest;
  let client: MongoClient;
  let users: Collection<User>;

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = await MongoClient.connect(store.uri);
  });

  afterAll(async () => {
    await client?.close();
    await store?.stop();
  });

  beforeEach(async () => {
    users = client.db('unique_index').collection<User>('users');
    await users.drop().catch(() => undefined);
    await users.createIndex({ email: 1 }, { unique: true });
    await users.insertMany([
      { _id: 1, email: 'ada@example.org', name: 'Ada' },
      { _id: 2, email: 'grace@example.org', name: 'Grace' },
    ]);
  });

  const contents = (): Promise<User[]> => users.find({}).sort({ _id: 1 }).toArray();

  async function expectDuplicateKey(write: Promise<unknown>, email: string): Promise<void> {
    const error = await write.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 11000, keyPattern: { email: 1 }, keyValue: { email } });
    expect((error as Error).message).toContain(
      `E11000 duplicate key error collection: unique_index.users index: email_1 dup key: { email: "${email}" }`,
    );
  }

  it('when a document with a taken value is inserted, then it fails with E11000 and nothing changes', async () => {
    // Arrange
    const before = await contents();

    // Act
    const write = users.insertOne({ _id: 3, email: 'ada@example.org' });

    // Assert
    await expectDuplicateKey(write, 'ada@example.org');
    expect(await contents()).toEqual(before);
  });

  it('when an update would give a document a taken value, then it fails with E11000 and the document is unchanged', async () => {
    // Arrange
    const before = await contents();

    // Act
    const write = users.updateOne({ _id: 2 }, { $set: { email: 'ada@example.org', name: 'Changed' } });

    // Assert
    await expectDuplicateKey(write, 'ada@example.org');
    expect(await contents()).toEqual(before);
  });

  it('when an upsert would insert a taken value, then it fails with E11000 and nothing is inserted', async () => {
    // Arrange
    const before = await contents();

    // Act
    const write = users.updateOne({ _id: 9 }, { $set: { email: 'grace@example.org' } }, { upsert: true });

    // Assert
    await expectDuplicateKey(write, 'grace@example.org');
    expect(await contents()).toEqual(before);
  });

  it('when findOneAndUpdate would give a document a taken value, then it fails with E11000 and the document is unchanged', async () => {
    // Arrange
    const before = await contents();

    // Act
    const write = users.findOneAndUpdate(
      { _id: 1 },
      { $set: { email: 'grace@example.org' } },
      { returnDocument: 'after' },
    );

    // Assert
    await expectDuplicateKey(write, 'grace@example.org');
    expect(await contents()).toEqual(before);
  });

  it('when an _id is inserted twice, then the second insert fails with E11000 on the _id index', async () => {
    // Act
    const error = await users.insertOne({ _id: 1, email: 'new@example.org' }).catch((e: unknown) => e);

    // Assert
    expect(error).toMatchObject({ code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 1 } });
    expect(await users.countDocuments()).toBe(2);
  });

  it('when a unique index is created over existing duplicates, then creation fails and no index is added', async () => {
    // Arrange
    await users.insertOne({ _id: 3, email: 'other@example.org', name: 'Ada' });

    // Act
    const error = await users.createIndex({ name: 1 }, { unique: true }).catch((e: unknown) => e);

    // Assert
    expect(error).toMatchObject({ code: 11000 });
    const names = (await users.listIndexes().toArray()).map((index) => index.name);
    expect(names).toEqual(['_id_', 'email_1']);
  });

  it('when one command creates several indexes and a unique one meets duplicates, then none of them is added', async () => {
    // Arrange
    await users.insertOne({ _id: 3, email: 'other@example.org', name: 'Ada' });

    // Act: the first index alone could be built
    const error = await users
      .createIndexes([{ key: { name: 1, _id: 1 } }, { key: { name: 1 }, unique: true }])
      .catch((e: unknown) => e);

    // Assert: as in MongoDB, the indexes of one command are built together
    expect(error).toMatchObject({ code: 11000 });
    const names = (await users.listIndexes().toArray()).map((index) => index.name);
    expect(names).toEqual(['_id_', 'email_1']);
  });
});
