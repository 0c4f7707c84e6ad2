import { Long, MongoClient, MongoServerError, type Db } from 'mongodb';
import { startEmbeddedStore } from '../src/index';
import { embeddedStoreForSuite } from './support/store-under-test';
import { copyOfDataFile, crashableStoreChild, makeTempDir, powerCutSince } from './helpers';

/**
 * Multi-document transactions of the embedded store, run through the official driver the way
 * the service runs them (ClientSession.withTransaction / startTransaction), with MongoDB's
 * behaviour as the reference: all or nothing, own writes visible inside, nothing visible
 * outside before commit, conflicts and errors abort.
 */
interface Person {
  _id: number;
  email: string;
  visits?: number;
}

describe('embedded store transactions', () => {
  const suite = embeddedStoreForSuite();
  let client: MongoClient;
  let db: Db;

  beforeAll(() => {
    ({ client } = suite);
  });

  let dbCounter = 0;
  beforeEach(async () => {
    db = client.db(`transactions_${++dbCounter}`);
    await db.collection<Person>('people').createIndex({ email: 1 }, { unique: true });
    await db.collection<Person>('people').insertOne({ _id: 1, email: 'existing@example.org', visits: 0 });
  });

  it('when a transaction writes to two collections and commits, then both writes are there', async () => {
    // Arrange
    const session = client.startSession();

    // Act
    await session.withTransaction(async () => {
      await db.collection<Person>('people').insertOne({ _id: 2, email: 'new@example.org' }, { session });
      await db.collection<Person>('people').updateOne({ _id: 1 }, { $inc: { visits: 1 } }, { session });
      await db.collection('profiles').insertOne({ _id: 2, person: 2 } as never, { session });
    });
    await session.endSession();

    // Assert
    expect(await db.collection<Person>('people').find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, email: 'existing@example.org', visits: 1 },
      { _id: 2, email: 'new@example.org' },
    ]);
    expect(await db.collection('profiles').find().toArray()).toEqual([{ _id: 2, person: 2 }]);
  });

  it('when a transaction is aborted, then none of its writes remain, not even a collection it created', async () => {
    // Arrange
    const session = client.startSession();
    session.startTransaction();
    await db.collection<Person>('people').insertOne({ _id: 2, email: 'new@example.org' }, { session });
    await db.collection<Person>('people').deleteOne({ _id: 1 }, { session });
    await db.collection('profiles').insertOne({ _id: 2 } as never, { session });

    // Act
    await session.abortTransaction();
    await session.endSession();

    // Assert
    expect(await db.collection<Person>('people').find().toArray()).toEqual([
      { _id: 1, email: 'existing@example.org', visits: 0 },
    ]);
    expect(await db.listCollections({ name: 'profiles' }).toArray()).toEqual([]);
  });

  it('when a transaction has written, then its own reads see the writes and other readers do not until it commits', async () => {
    // Arrange
    const session = client.startSession();
    const people = db.collection<Person>('people');
    session.startTransaction();

    // Act
    await people.insertOne({ _id: 2, email: 'new@example.org' }, { session });
    await people.updateOne({ _id: 1 }, { $set: { visits: 5 } }, { session });
    await people.deleteOne({ _id: 1, visits: 99 }, { session });
    const inside = await people.find({}, { session }).sort({ _id: 1 }).toArray();
    const insideCount = await people.countDocuments({}, { session });
    const outside = await people.find().sort({ _id: 1 }).toArray();
    const outsideByEmail = await people.findOne({ email: 'new@example.org' });
    await session.commitTransaction();
    const after = await people.find().sort({ _id: 1 }).toArray();
    await session.endSession();

    // Assert
    expect(inside).toEqual([
      { _id: 1, email: 'existing@example.org', visits: 5 },
      { _id: 2, email: 'new@example.org' },
    ]);
    expect(insideCount).toBe(2);
    expect(outside).toEqual([{ _id: 1, email: 'existing@example.org', visits: 0 }]);
    expect(outsideByEmail).toBeNull();
    expect(after).toEqual(inside);
  });

  it('when a write in a transaction breaks a unique index, then it fails with E11000 and the transaction leaves nothing', async () => {
    // Arrange
    const session = client.startSession();
    const people = db.collection<Person>('people');

    // Act
    const run = session.withTransaction(async () => {
      await people.insertOne({ _id: 2, email: 'second@example.org' }, { session });
      await people.insertOne({ _id: 3, email: 'existing@example.org' }, { session });
    });

    // Assert
    await expect(run).rejects.toBeInstanceOf(MongoServerError);
    await expect(run).rejects.toMatchObject({ code: 11000 });
    await session.endSession();
    expect(await people.find().toArray()).toEqual([{ _id: 1, email: 'existing@example.org', visits: 0 }]);
  });

  it('when a transaction inserts a key it inserted itself earlier, then the second insert fails with E11000 and the transaction leaves nothing', async () => {
    // Arrange
    const session = client.startSession();
    const people = db.collection<Person>('people');

    // Act
    const run = session.withTransaction(async () => {
      await people.insertOne({ _id: 30, email: 'twice@example.org' }, { session });
      await people.insertOne({ _id: 31, email: 'twice@example.org' }, { session });
    });

    // Assert
    await expect(run).rejects.toMatchObject({ code: 11000 });
    await session.endSession();
    expect(await people.countDocuments({ email: 'twice@example.org' })).toBe(0);
  });

  it('when two transactions take the same unique key, then the second commit fails as a transient write conflict and a rerun sees E11000', async () => {
    // Arrange
    const people = db.collection<Person>('people');
    const first = client.startSession();
    const second = client.startSession();
    first.startTransaction();
    second.startTransaction();
    await people.insertOne({ _id: 10, email: 'race@example.org' }, { session: first });
    await people.insertOne({ _id: 11, email: 'race@example.org' }, { session: second });

    // Act
    await first.commitTransaction();
    const secondCommit = second.commitTransaction();

    // Assert
    await expect(secondCommit).rejects.toMatchObject({ code: 112, codeName: 'WriteConflict' });
    await secondCommit.catch((error: MongoServerError) =>
      expect(error.hasErrorLabel('TransientTransactionError')).toBe(true),
    );
    const rerun = second.withTransaction(async () => {
      await people.insertOne({ _id: 11, email: 'race@example.org' }, { session: second });
    });
    await expect(rerun).rejects.toMatchObject({ code: 11000 });
    await first.endSession();
    await second.endSession();
    expect(await people.find({ email: 'race@example.org' }).toArray()).toEqual([
      { _id: 10, email: 'race@example.org' },
    ]);
  });

  it('when another writer changes a document a transaction changed, then the transaction aborts and the other write stands', async () => {
    // Arrange
    const people = db.collection<Person>('people');
    const session = client.startSession();
    session.startTransaction();
    await people.updateOne({ _id: 1 }, { $set: { visits: 1 } }, { session });

    // Act
    await people.updateOne({ _id: 1 }, { $set: { visits: 7 } });
    const commit = session.commitTransaction();

    // Assert
    await expect(commit).rejects.toMatchObject({ code: 112 });
    await session.endSession();
    expect(await people.findOne({ _id: 1 })).toEqual({ _id: 1, email: 'existing@example.org', visits: 7 });
  });

  it('when another writer takes a key a transaction holds in one collection while it writes another, then the commit fails as a transient write conflict and nothing of it is there', async () => {
    // Arrange: the transaction's write to "people" is not re-applied for its write to "visits"
    // (a command re-applies only the changes to its own collection): the commit finds the conflict.
    const people = db.collection<Person>('people');
    const visits = db.collection<{ _id: number }>('visits');
    const session = client.startSession();
    session.startTransaction();
    await people.insertOne({ _id: 20, email: 'taken@example.org' }, { session });

    // Act
    await people.insertOne({ _id: 21, email: 'taken@example.org' });
    await visits.insertOne({ _id: 20 }, { session });
    const commit = session.commitTransaction();

    // Assert
    await expect(commit).rejects.toMatchObject({ code: 112, codeName: 'WriteConflict' });
    await session.endSession();
    expect(await people.find({ email: 'taken@example.org' }).toArray()).toEqual([
      { _id: 21, email: 'taken@example.org' },
    ]);
    expect(await visits.countDocuments()).toBe(0);
  });

  it('when a command outside the transaction list runs in a transaction, then it is refused and the transaction is aborted', async () => {
    // Arrange
    const session = client.startSession();
    session.startTransaction();
    await db.collection<Person>('people').insertOne({ _id: 2, email: 'new@example.org' }, { session });

    // Act
    const refused = db.collection('people').createIndex({ visits: 1 }, { session });

    // Assert
    await expect(refused).rejects.toMatchObject({ codeName: 'OperationNotSupportedInTransaction' });
    await expect(session.commitTransaction()).rejects.toMatchObject({ codeName: 'NoSuchTransaction' });
    await session.endSession();
    expect(await db.collection('people').countDocuments()).toBe(1);
  });

  it('when the store runs as a standalone, then hello names no replica set and a transaction is refused as on a standalone mongod', async () => {
    // Arrange
    const standalone = await startEmbeddedStore({ memory: true, port: 0, standalone: true });
    const standaloneClient = await MongoClient.connect(standalone.uri);
    try {
      const session = standaloneClient.startSession();

      // Act
      const hello = await standaloneClient.db('admin').command({ hello: 1 });
      const run = session.withTransaction(async () => {
        await standaloneClient.db('x').collection('y').insertOne({ a: 1 }, { session });
      });

      // Assert
      expect(hello.setName).toBeUndefined();
      // The driver rewrites the server's IllegalOperation ("Transaction numbers are only allowed on a replica set member or mongos").
      await expect(run).rejects.toThrow(/does not support retryable writes/);
      await session.endSession();
      expect(await standaloneClient.db('x').collection('y').countDocuments()).toBe(0);
    } finally {
      await standaloneClient.close();
      await standalone.close();
    }
  });

  it('when a write is retried with the session and txnNumber of one already applied, then it gets the first reply and is not applied twice', async () => {
    // Arrange: what the driver sends again after a network error cost it the reply (retryable writes).
    const session = client.startSession();
    const command = {
      update: 'people',
      updates: [{ q: { _id: 1 }, u: { $inc: { visits: 1 } } }],
      txnNumber: Long.fromNumber(7),
    };

    // Act
    const first = await db.command(command, { session });
    const retried = await db.command(command, { session });
    await session.endSession();

    // Assert
    expect(retried).toMatchObject({ n: 1, nModified: 1, ok: 1 });
    expect(retried.n).toBe(first.n);
    expect(await db.collection<Person>('people').findOne({ _id: 1 })).toMatchObject({ visits: 1 });
  });

  it('when the store runs transactions, then hello reports a replica-set primary', async () => {
    // Act
    const hello = await client.db('admin').command({ hello: 1 });

    // Assert
    expect(hello).toMatchObject({
      isWritablePrimary: true,
      setName: 'embedded',
      secondary: false,
      logicalSessionTimeoutMinutes: 30,
    });
    expect(hello.hosts).toEqual([`127.0.0.1:${suite.store.port}`]);
  });

  it('when the store listens on a Unix socket, then hello and serverStatus name the socket path, as MongoDB writes a socket address', async () => {
    // Arrange
    const temp = makeTempDir('store-socket-address');
    const socketPath = `${temp.dir}/store.sock`;
    const onSocket = await startEmbeddedStore({ memory: true, socketPath });
    const socketClient = await MongoClient.connect(onSocket.uri);
    try {
      // Act
      const admin = socketClient.db('admin');
      const hello = await admin.command({ hello: 1 });
      const status = await admin.command({ serverStatus: 1 });

      // Assert
      expect({ me: hello.me, hosts: hello.hosts, primary: hello.primary, host: status.host }).toEqual({
        me: socketPath,
        hosts: [socketPath],
        primary: socketPath,
        host: socketPath,
      });
    } finally {
      await socketClient.close();
      await onSocket.close();
      temp.remove();
    }
  });
});

describe('embedded store transactions across a crash', () => {
  const child = crashableStoreChild('store-transactions');

  async function start(): Promise<Db> {
    return (await child.start()).db('crash');
  }

  /** The store dies with the client's session and transaction still open (the next start closes that client). */
  async function crash(): Promise<void> {
    await child.kill();
  }

  it('when the store is killed before a commit, then after a restart none of the transaction is there', async () => {
    // Arrange
    let db = await start();
    await db.collection('a').insertOne({ _id: 'kept' } as never);
    const session = child.client.startSession();
    session.startTransaction();
    await db.collection('a').insertOne({ _id: 'in-transaction' } as never, { session });
    await db.collection('b').insertOne({ _id: 'in-transaction' } as never, { session });

    // Act
    await crash();
    db = await start();

    // Assert
    expect(await db.collection('a').find().toArray()).toEqual([{ _id: 'kept' }]);
    expect(await db.collection('b').find().toArray()).toEqual([]);
  });

  it('when the store is killed after a commit, then after a restart all of the transaction is there', async () => {
    // Arrange
    let db = await start();
    const session = child.client.startSession();
    await session.withTransaction(async () => {
      await db.collection('a').insertOne({ _id: 1, n: 1 } as never, { session });
      await db.collection('b').insertOne({ _id: 1, n: 2 } as never, { session });
    });

    // Act
    await crash();
    db = await start();

    // Assert
    expect(await db.collection('a').find().toArray()).toEqual([{ _id: 1, n: 1 }]);
    expect(await db.collection('b').find().toArray()).toEqual([{ _id: 1, n: 2 }]);
  });

  it('when the power fails while a commit is being written, then after a restart none of the transaction is there and what came before stands', async () => {
    // Arrange: the commit is one engine transaction; the copy is the disk before it.
    let db = await start();
    const a = db.collection<{ _id: string; n?: number }>('a');
    await a.insertOne({ _id: 'before' });
    await a.createIndex({ n: 1 });
    const session = child.client.startSession();
    session.startTransaction();
    await a.insertOne({ _id: 'in-transaction', n: 1 }, { session });
    await a.updateOne({ _id: 'before' }, { $set: { n: 2 } }, { session });
    await db.collection('b').insertOne({ _id: 'in-transaction' } as never, { session });
    const copy = copyOfDataFile(child.dir);
    await session.commitTransaction();
    await crash();
    const cut = powerCutSince(child.dir, copy);

    // Act
    db = await start();

    // Assert
    expect(cut.commitsLost).toBe(1);
    expect(await db.collection('a').find().toArray()).toEqual([{ _id: 'before' }]);
    expect(
      await db
        .collection('a')
        .find({ n: { $exists: true } })
        .hint({ n: 1 })
        .toArray(),
    ).toEqual([]);
    expect(await db.listCollections({ name: 'b' }).toArray()).toEqual([]);
  });
});
