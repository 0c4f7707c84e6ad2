import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import {
  BackupError,
  finishBackup,
  prepareBackupTarget,
  restoreBackup,
  startEmbeddedStore,
  verifyBackup,
  type BackedUpCollection,
  type EmbeddedStore,
} from '../src/index';
import { storeSocket, type StoreSocket } from '../src/store-socket';
import { makeTempDir } from './helpers';

/**
 * Online backups of a data directory: the createBackup command copies the store's files as one
 * snapshot while it goes on serving; finishBackup makes that a directory or a .tar.gz with a
 * manifest; restoreBackup verifies it and puts it into an empty data directory. What must hold:
 * every write acknowledged before the backup began is in it, the counts of the manifest are what
 * the restored B-trees hold, and nothing half-written or damaged ever lands under a target name.
 */

const SECURE = { storageEngine: { embedded: { secureDelete: true } } };

interface Person {
  _id: number;
  email: string;
  tags: string[];
}

function person(id: number): Person {
  return { _id: id, email: `person-${id}@example.org`, tags: [`t${id % 3}`, `t${id % 5}`] };
}

describe('backups of a data directory', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let socket: StoreSocket;
  const running: { store: EmbeddedStore; client: MongoClient }[] = [];

  async function start(dbPath: string): Promise<Db> {
    const store = await startEmbeddedStore({ dbPath, socketPath: socket.path });
    const client = await MongoClient.connect(store.uri);
    running.push({ store, client });
    return client.db('app');
  }

  async function stopAll(): Promise<void> {
    for (const { store, client } of running.splice(0)) {
      await client.close();
      await store.close();
    }
  }

  /** Runs createBackup into the staging directory of `target` and makes it the backup. */
  async function backUp(db: Db, target: string) {
    const staging = prepareBackupTarget(target);
    const reply = await db.admin().command({ createBackup: 1, backupDir: staging });
    const manifest = await finishBackup(staging, target, {
      snapshotTime: reply.snapshotTime as Date,
      collections: reply.collections as BackedUpCollection[],
    });
    return { reply, manifest };
  }

  /** A store with people (unique e-mail, multikey tags) and secure-delete keys. */
  async function filled(count: number): Promise<Db> {
    const db = await start(path.join(temp.dir, 'cd.data'));
    await db.createCollection('keys', SECURE);
    await db.collection('people').createIndexes([
      { key: { email: 1 }, unique: true, name: 'email_unique' },
      { key: { tags: 1 }, name: 'tags' },
    ]);
    await db.collection<Person>('people').insertMany(Array.from({ length: count }, (_, i) => person(i)));
    await db.collection<{ _id: number }>('keys').insertMany(Array.from({ length: count }, (_, i) => ({ _id: i })));
    return db;
  }

  beforeEach(() => {
    temp = makeTempDir('backup');
    socket = storeSocket(undefined);
  });

  afterEach(async () => {
    await stopAll();
    socket.release();
    temp.remove();
  });

  it('when a backup is taken while writers insert, then every insert acknowledged before it began is in it, and the restored B-trees hold what its manifest counts', async () => {
    const db = await filled(300);
    const people = db.collection<Person>('people');
    const keys = db.collection<{ _id: number }>('keys');
    const acknowledgedBefore = new Set<number>();
    let backupSent = false;
    const writing = { stop: false };
    const writer = async (first: number) => {
      for (let id = first; !writing.stop; id += 2) {
        const sentAfterBackup = backupSent;
        await people.insertOne(person(id));
        await keys.insertOne({ _id: id });
        if (!sentAfterBackup && !backupSent) acknowledgedBefore.add(id);
      }
    };
    const writers = [writer(10_000), writer(10_001)];
    while (acknowledgedBefore.size < 20) await new Promise((resolve) => setTimeout(resolve, 5));

    backupSent = true;
    const { manifest } = await backUp(db, path.join(temp.dir, 'backup'));
    writing.stop = true;
    await Promise.all(writers);
    const restored = path.join(temp.dir, 'restored');
    await restoreBackup(path.join(temp.dir, 'backup'), restored);

    const copy = await start(restored);
    const ids = new Set(
      (
        await copy
          .collection<Person>('people')
          .find({}, { projection: { _id: 1 } })
          .toArray()
      ).map((p) => p._id),
    );
    const keyIds = new Set((await copy.collection<{ _id: number }>('keys').find().toArray()).map((k) => k._id));
    expect([...acknowledgedBefore].filter((id) => !ids.has(id) || !keyIds.has(id))).toEqual([]);
    const counted = (name: string) => manifest.collections.find((c) => c.db === 'app' && c.name === name);
    expect(counted('people')?.documents).toBe(ids.size);
    expect(counted('keys')?.documents).toBe(keyIds.size);
    expect(
      counted('people')
        ?.indexes.map((index) => index.name)
        .sort(),
    ).toEqual(['_id_', 'email_unique', 'tags']);
    expect(await copy.collection('people').countDocuments({ tags: 't1' })).toBe(
      [...ids].filter((id) => id % 3 === 1 || id % 5 === 1).length,
    );
    await expect(copy.collection<Person>('people').insertOne(person(5))).rejects.toMatchObject({ code: 11000 });
    expect(manifest.files.map((file) => file.name)).toEqual(['data.mdb', 'secure.mdb']);
  });

  it('when a backup is written as a .tar.gz, then tar lists its files, it verifies, and a restore gives back every document', async () => {
    const db = await filled(120);
    const target = path.join(temp.dir, 'nightly.tar.gz');

    const { manifest } = await backUp(db, target);
    const restored = path.join(temp.dir, 'restored.data');
    fs.mkdirSync(restored);
    await restoreBackup(target, restored);

    expect(fs.readdirSync(temp.dir).filter((name) => name.includes('partial'))).toEqual([]);
    expect((await verifyBackup(target)).checksum).toBe(manifest.checksum);
    const listing = spawnSync('tar', ['-tzf', target], { encoding: 'utf8' });
    if (listing.error === undefined)
      expect(listing.stdout.trim().split('\n')).toEqual(['manifest.json', 'data.mdb', 'secure.mdb']);
    const copy = await start(restored);
    expect(await copy.collection('people').find().sort({ _id: 1 }).toArray()).toEqual(
      Array.from({ length: 120 }, (_, i) => person(i)),
    );
    expect(await copy.collection('keys').countDocuments()).toBe(120);
  });

  it('when the target of a backup exists, or a restore target holds a file, then each is refused and nothing is written there', async () => {
    const db = await filled(10);
    const taken = path.join(temp.dir, 'taken');
    fs.mkdirSync(taken);
    await backUp(db, path.join(temp.dir, 'backup'));
    const occupied = path.join(temp.dir, 'occupied');
    fs.mkdirSync(occupied);
    fs.writeFileSync(path.join(occupied, 'notes.txt'), 'mine');

    expect(() => prepareBackupTarget(taken)).toThrow(BackupError);
    await expect(restoreBackup(path.join(temp.dir, 'backup'), occupied)).rejects.toThrow(/is not empty/);
    expect(fs.readdirSync(taken)).toEqual([]);
    expect(fs.readdirSync(occupied)).toEqual(['notes.txt']);
  });

  it('when a byte of a backup changed or an archive was cut short, then the restore refuses it before writing anything, naming what does not match', async () => {
    const db = await filled(50);
    const directory = path.join(temp.dir, 'backup');
    const archive = path.join(temp.dir, 'backup.tgz');
    await backUp(db, directory);
    await backUp(db, archive);
    const dataFile = path.join(directory, 'data.mdb');
    const bytes = fs.readFileSync(dataFile);
    bytes[bytes.length - 100] ^= 0xff;
    fs.writeFileSync(dataFile, bytes);
    const whole = fs.readFileSync(archive);
    fs.writeFileSync(archive, whole.subarray(0, Math.floor(whole.length / 2)));

    await expect(restoreBackup(directory, path.join(temp.dir, 'from-directory'))).rejects.toThrow(
      /data\.mdb of .* does not match its checksum/,
    );
    await expect(restoreBackup(archive, path.join(temp.dir, 'from-archive'))).rejects.toThrow(BackupError);
    expect(fs.readdirSync(temp.dir).sort()).toEqual(['backup', 'backup.tgz', 'cd.data']);
  });

  it('when createBackup is sent to another database than admin, or to a backupDir that holds files, then it is refused', async () => {
    const db = await filled(1);
    const full = path.join(temp.dir, 'full');
    fs.mkdirSync(full);
    fs.writeFileSync(path.join(full, 'x'), '');

    await expect(db.command({ createBackup: 1, backupDir: path.join(temp.dir, 'b') })).rejects.toMatchObject({
      codeName: 'Unauthorized',
    });
    await expect(db.admin().command({ createBackup: 1, backupDir: full })).rejects.toMatchObject({
      codeName: 'BadValue',
    });
    await expect(db.admin().command({ createBackup: 1, backupDir: 'relative' })).rejects.toMatchObject({
      codeName: 'BadValue',
    });
  });
});
