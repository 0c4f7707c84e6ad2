import fs from 'node:fs';
import { MongoServerError, type Collection } from 'mongodb';
import { crashableStoreChild, journalFiles } from './helpers';

/**
 * Acknowledged writes survive kill -9: the store is a child process on a temporary data
 * directory, killed without warning and started again on the same files.
 */
interface Person {
  _id: number;
  email: string;
  visits?: number;
  tags?: string[];
  note?: string;
  replaced?: boolean;
}

describe('embedded store durability', () => {
  const child = crashableStoreChild('store-durability');

  async function start(): Promise<Collection<Person>> {
    return (await child.start()).db('durability').collection<Person>('people');
  }

  async function crash(): Promise<void> {
    // The client goes first: the driver's close() after its server was killed can hang (see
    // crashableStoreChild). The store's crash is the same either way.
    await child.closeClient();
    await child.kill();
  }

  /** Writes a mix of acknowledged changes and returns the documents the collection must hold. */
  async function writeAcknowledgedChanges(people: Collection<Person>, from: number): Promise<Map<number, Person>> {
    const expected = new Map<number, Person>();
    const person = (id: number): Person => ({
      _id: id,
      email: `person${id}@example.org`,
      visits: 0,
      tags: [`t${id % 5}`],
    });
    // Concurrent single inserts (they share journal fsyncs) and batched inserts.
    await Promise.all(Array.from({ length: 150 }, (_, i) => people.insertOne(person(from + i))));
    await people.insertMany(Array.from({ length: 150 }, (_, i) => person(from + 150 + i)));
    for (let i = 0; i < 300; i++) expected.set(from + i, person(from + i));

    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        people.updateOne({ _id: from + i }, { $inc: { visits: 1 }, $set: { note: `updated ${i}` } }),
      ),
    );
    for (let i = 0; i < 100; i++) Object.assign(expected.get(from + i)!, { visits: 1, note: `updated ${i}` });

    await people.updateMany({ _id: { $gte: from + 100, $lt: from + 150 } }, { $push: { tags: 'bulk' } });
    for (let i = 100; i < 150; i++) (expected.get(from + i)!.tags as string[]).push('bulk');

    await people.replaceOne({ _id: from + 299 }, { email: `replaced${from}@example.org`, replaced: true });
    expected.set(from + 299, { _id: from + 299, email: `replaced${from}@example.org`, replaced: true });

    await Promise.all(Array.from({ length: 40 }, (_, i) => people.deleteOne({ _id: from + 200 + i })));
    for (let i = 0; i < 40; i++) expected.delete(from + 200 + i);
    await people.deleteMany({ _id: { $gte: from + 240, $lt: from + 250 } });
    for (let i = 240; i < 250; i++) expected.delete(from + i);
    return expected;
  }

  async function expectExactly(people: Collection<Person>, expected: Map<number, Person>): Promise<void> {
    const stored = await people.find({}).sort({ _id: 1 }).toArray();
    const wanted = [...expected.values()].sort((a, b) => a._id - b._id);
    expect(stored).toEqual(wanted);
  }

  it('when the store is killed after acknowledged writes, then a restart returns every one of them and the unique index still holds', async () => {
    // Arrange
    let people = await start();
    await people.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    const expected = await writeAcknowledgedChanges(people, 0);

    // Act
    await crash();
    people = await start();

    // Assert
    await expectExactly(people, expected);
    const indexes = await people.listIndexes().toArray();
    expect(indexes.map((index) => index.name)).toContain('email_unique');
    const duplicate = people.insertOne({ _id: 10_000, email: 'person1@example.org' });
    await expect(duplicate).rejects.toBeInstanceOf(MongoServerError);
    await expect(duplicate).rejects.toMatchObject({ code: 11000, keyValue: { email: 'person1@example.org' } });
  });

  it('when the journal ends in a torn record, then the store restarts without it and keeps everything acknowledged', async () => {
    // Arrange: two crash cycles, so the second journal sits on top of a compacted snapshot.
    let people = await start();
    await people.createIndex({ email: 1 }, { unique: true });
    const first = await writeAcknowledgedChanges(people, 0);
    await crash();
    people = await start();
    const second = await writeAcknowledgedChanges(people, 1000);
    await crash();
    const [journal] = journalFiles(child.dir);
    const sizeBefore = fs.statSync(journal).size;
    // A length prefix promising more bytes than follow, then noise: what a write cut short leaves.
    fs.appendFileSync(journal, Buffer.from([0x40, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03]));

    // Act
    people = await start();

    // Assert
    expect(sizeBefore).toBeGreaterThan(0);
    await expectExactly(people, new Map([...first, ...second]));
    await expect(people.insertOne({ _id: 20_000, email: 'person1001@example.org' })).rejects.toMatchObject({
      code: 11000,
    });
  });
});
