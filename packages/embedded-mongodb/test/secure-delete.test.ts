import fs from 'node:fs';
import path from 'node:path';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { startEmbeddedStore, type EmbeddedStore } from '../src/index';
import { Catalog } from '../src/engine/catalog';
import { DataDirectory } from '../src/persistence/data-directory';
import { storeSocket, type StoreSocket } from '../src/store-socket';
import { SILENT_LOG } from '../src/store-log';
import { makeTempDir } from './helpers';
import { filesContaining } from './support/bytes-on-disk';

/**
 * A collection created with `storageEngine: { embedded: { secureDelete: true } }` keeps its
 * documents where deleted bytes do not survive: once the command that deleted or replaced a
 * document is answered, no file of the data directory holds its old bytes. LMDB keeps a freed
 * page's bytes in its file until it reuses the page, so without this a deleted document stays
 * readable on the disk (and in every copy of the directory).
 */

const SECURE = { storageEngine: { embedded: { secureDelete: true } } };
const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('secure-delete collections', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let socket: StoreSocket;
  let store: EmbeddedStore | undefined;
  let client: MongoClient | undefined;

  async function start(): Promise<Db> {
    store = await startEmbeddedStore({ dbPath: temp.dir, socketPath: socket.path });
    client = await MongoClient.connect(store.uri);
    return client.db('app');
  }

  async function stop(): Promise<void> {
    await client?.close();
    await store?.close();
    client = undefined;
    store = undefined;
  }

  beforeEach(() => {
    // A name with a dot, as operators give (`/srv/cd.data`): the data directory is a directory whatever its name.
    temp = makeTempDir('cd.secure');
    socket = storeSocket(undefined);
  });

  afterEach(async () => {
    await stop();
    socket.release();
    temp.remove();
  });

  it('when documents of a secure-delete collection are deleted and replaced, then after the clean stop no file holds their old bytes, while the live ones are kept and found by their indexes', async () => {
    const db = await start();
    await db.createCollection('keys', SECURE);
    const keys = db.collection<{ _id: string; secret: string; email?: string }>('keys');
    await keys.createIndex({ email: 1 }, { unique: true });
    await keys.insertMany(
      Array.from({ length: 50 }, (_, i) => ({
        _id: `k${i}`,
        secret: `secret-${i}-zq`,
        email: `person-${i}@example.org`,
      })),
    );

    await keys.deleteOne({ _id: 'k7' });
    await keys.deleteMany({ _id: { $in: ['k11', 'k12'] } });
    await keys.updateOne({ _id: 'k20' }, { $set: { secret: 'changed-20-zq' }, $unset: { email: '' } });
    await keys.findOneAndDelete({ email: 'person-30@example.org' });
    await stop();

    const gone = ['secret-7-zq', 'person-7@', 'secret-11-zq', 'person-12@', 'secret-20-zq', 'person-20@', 'person-30@'];
    expect(gone.flatMap((text) => filesContaining(temp.dir, bytes(text)).map((file) => `${text} in ${file}`))).toEqual(
      [],
    );
    expect(filesContaining(temp.dir, bytes('secret-8-zq'))).toEqual(['secure.mdb']);
    expect(filesContaining(temp.dir, bytes('changed-20-zq'))).toEqual(['secure.mdb']);
    const reopened = await start();
    const again = reopened.collection<{ _id: string; email?: string }>('keys');
    expect(await again.countDocuments()).toBe(46);
    expect(await again.findOne({ email: 'person-8@example.org' })).toMatchObject({ _id: 'k8' });
    expect(await again.countDocuments({ email: 'person-12@example.org' })).toBe(0);
    await expect(again.insertOne({ _id: 'dup', email: 'person-9@example.org' })).rejects.toMatchObject({ code: 11000 });
  });

  it('when a transaction writes a secure-delete collection and an ordinary one, then a commit stores both and an abort neither', async () => {
    const db = await start();
    await db.createCollection('keys', SECURE);
    const keys = db.collection<{ _id: string }>('keys');
    const people = db.collection<{ _id: string }>('people');
    const session = client!.startSession();
    try {
      await session.withTransaction(async () => {
        await keys.insertOne({ _id: 'committed' }, { session });
        await people.insertOne({ _id: 'committed' }, { session });
      });
      session.startTransaction();
      await keys.insertOne({ _id: 'aborted' }, { session });
      await people.insertOne({ _id: 'aborted' }, { session });
      expect(await keys.countDocuments({}, { session })).toBe(2);
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }

    expect(await keys.find().toArray()).toEqual([{ _id: 'committed' }]);
    expect(await people.find().toArray()).toEqual([{ _id: 'committed' }]);
  });

  it('when the store stops right after a commit that deleted from a secure-delete collection, before its compaction, then the next open removes the deleted bytes', async () => {
    const directory = await DataDirectory.open(temp.dir, SILENT_LOG);
    const catalog = new Catalog(directory.engine);
    const keys = catalog.createCollection('app', 'keys', SECURE);
    keys.insert({ _id: 1, secret: 'crash-secret-zq' });
    keys.insert({ _id: 2, secret: 'kept-secret-zq' });
    const copy = path.join(temp.dir, 'copy');

    directory.engine.write(() => keys.remove(keys.findById(1)!));
    // The disk as a crash at this moment leaves it: committed, not yet compacted.
    fs.mkdirSync(copy);
    for (const file of ['data.mdb', 'secure.mdb']) fs.copyFileSync(path.join(temp.dir, file), path.join(copy, file));
    await directory.engine.settled();
    await directory.close();

    expect(filesContaining(copy, bytes('crash-secret-zq'))).toEqual(['secure.mdb']);
    const reopened = await DataDirectory.open(copy, SILENT_LOG);
    const after = new Catalog(reopened.engine).getCollection('app', 'keys')!;
    expect(after.count).toBe(1);
    expect(after.findById(2)?.doc).toEqual({ _id: 2, secret: 'kept-secret-zq' });
    await reopened.close();
    expect(filesContaining(copy, bytes('crash-secret-zq'))).toEqual([]);
  });

  it('when compact runs on an ordinary collection, then data.mdb is rewritten without the freed pages that held deleted documents', async () => {
    const db = await start();
    const people = db.collection<{ _id: number; note: string }>('people');
    await people.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: i, note: `note-${i}-zq`.padEnd(300, '.') })));
    await people.deleteMany({ _id: { $lt: 100 } });

    const reply = await db.command({ compact: 'people' });

    await stop();
    expect(reply).toMatchObject({ ok: 1 });
    expect(filesContaining(temp.dir, bytes('note-5-zq'))).toEqual([]);
    expect(filesContaining(temp.dir, bytes('note-150-zq'))).toEqual(['data.mdb']);
    const reopened = await start();
    expect(await reopened.collection('people').countDocuments()).toBe(100);
  });

  it('when a collection names a storage engine this store does not have, or an option its engine does not know, then create is refused as mongod refuses it', async () => {
    const db = await start();

    const refusals = await Promise.all(
      [
        { storageEngine: { wiredTiger: { configString: 'block_compressor=zstd' } } },
        { storageEngine: { embedded: { zeroFill: true } } },
        { storageEngine: { embedded: { secureDelete: 'yes' } } },
      ].map((options, i) =>
        db.createCollection(`refused${i}`, options as object).then(
          () => undefined,
          (error: MongoServerError) => error.codeName,
        ),
      ),
    );

    expect(refusals).toEqual(['InvalidOptions', 'InvalidOptions', 'TypeMismatch']);
    await db.createCollection('keys', SECURE);
    const listed = await db.listCollections({ name: 'keys' }).toArray();
    expect(listed[0]).toMatchObject({ options: SECURE });
    expect(await db.admin().command({ buildInfo: 1 })).toMatchObject({ storageEngines: ['embedded'] });
  });
});
