import { isDeepStrictEqual } from 'node:util';
import { MongoServerError, type Collection, type Filter } from 'mongodb';
import { copyOfDataFile, crashableStoreChild, powerCutSince } from './helpers';

/**
 * Acknowledged writes survive kill -9 and a power cut: the store is a child process on a
 * temporary data directory, killed without warning and started again on the same files; for a
 * power cut, the commit the store was making is then undone as the disk would have it
 * (helpers.ts, powerCutSince).
 */
interface Person {
  _id: number;
  email: string;
  visits?: number;
  tags?: string[];
  note?: string;
  replaced?: boolean;
  group?: string;
}

const person = (id: number): Person => ({
  _id: id,
  email: `person${id}@example.org`,
  visits: 0,
  tags: [`t${id % 5}`],
});

const byId = (docs: Person[]): Person[] => [...docs].sort((a, b) => a._id - b._id);

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
    // Concurrent single inserts and batched inserts.
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
    expect(stored).toEqual(byId([...expected.values()]));
  }

  /** The indexes the tests keep: a unique one, a multikey one and a plain one. */
  async function createIndexes(people: Collection<Person>): Promise<void> {
    await people.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    await people.createIndex({ tags: 1 }, { name: 'tags' });
    await people.createIndex({ visits: 1, _id: 1 }, { name: 'visits' });
  }

  /**
   * Fails unless every index finds what a collection scan finds, for every document (each of
   * these indexes holds them all) and for each of `probes`.
   */
  async function expectIndexesAgreeWithScan(people: Collection<Person>, probes: Filter<Person>[]): Promise<void> {
    const names = (await people.listIndexes().toArray()).map((index) => index.name as string);
    expect(names).toEqual(['_id_', 'email_unique', 'tags', 'visits']);
    for (const filter of [{}, ...probes]) {
      const scanned = byId(await people.find(filter).hint({ $natural: 1 }).toArray());
      for (const name of names) {
        const throughIndex = byId(await people.find(filter).hint(name).toArray());
        expect({ index: name, filter, found: throughIndex }).toEqual({ index: name, filter, found: scanned });
      }
    }
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

  it('when the power fails while a write is being committed, then after a restart everything acknowledged before it is there, nothing of it, and every index answers as a collection scan', async () => {
    // Arrange
    let people = await start();
    await createIndexes(people);
    const expected = await writeAcknowledgedChanges(people, 0);
    const copy = copyOfDataFile(child.dir);
    // The lost commit: one command rewriting documents and the entries of two indexes.
    await people.updateMany({}, { $inc: { visits: 10 }, $push: { tags: 'lost' } });
    await crash();
    const cut = powerCutSince(child.dir, copy);

    // Act
    people = await start();

    // Assert
    expect(cut.commitsLost).toBe(1);
    expect(cut.tornPages).toBeGreaterThan(0);
    await expectExactly(people, expected);
    const probes: Filter<Person>[] = [{ tags: 'lost' }, { tags: 'bulk' }, { visits: 1 }, { visits: { $gte: 10 } }];
    await expectIndexesAgreeWithScan(people, probes);
  });

  it('when the power failed during a commit, then the restarted store takes new writes, keeps them across another kill and still refuses a duplicate key', async () => {
    // Arrange
    let people = await start();
    await createIndexes(people);
    const expected = await writeAcknowledgedChanges(people, 0);
    const copy = copyOfDataFile(child.dir);
    await people.insertMany(Array.from({ length: 300 }, (_, i) => person(1000 + i)));
    await crash();
    powerCutSince(child.dir, copy);
    people = await start();

    // Act: the pages of the lost commit are free again, and garbage until written over.
    await people.insertMany(Array.from({ length: 300 }, (_, i) => person(2000 + i)));
    await people.updateMany({ _id: { $lt: 50 } }, { $inc: { visits: 1 }, $push: { tags: 'after' } });
    await people.deleteMany({ _id: { $gte: 2200 } });
    await crash();
    people = await start();

    // Assert
    for (let i = 0; i < 200; i++) expected.set(2000 + i, person(2000 + i));
    for (let i = 0; i < 50; i++) {
      const doc = expected.get(i)!;
      expected.set(i, { ...doc, visits: doc.visits! + 1, tags: [...doc.tags!, 'after'] });
    }
    await expectExactly(people, expected);
    await expectIndexesAgreeWithScan(people, [{ tags: 'after' }, { visits: 2 }, { email: 'person2100@example.org' }]);
    await expect(people.insertOne({ _id: 3000, email: 'person2001@example.org' })).rejects.toMatchObject({
      code: 11000,
    });
  });

  it('when the store is killed with kill -9 in the middle of concurrent mixed writes (inserts, updates, deletes in flight), then after a restart every acknowledged write is there, and every index answers as a collection scan', async () => {
    // Arrange: documents 0-49 are updated one by one, 50-99 by updateMany (group g), 100-199
    // deleted; new ones inserted one by one and in batches. Each document has one writer, so
    // it can hold only its last acknowledged state, or the one its write in flight would leave.
    let people = await start();
    await createIndexes(people);
    const seeded = Array.from({ length: 200 }, (_, id) => ({
      ...person(id),
      ...(id >= 50 && id < 100 && { group: 'g' }),
    }));
    await people.insertMany(seeded);
    const acknowledged = new Map<number, Person | undefined>(seeded.map((doc) => [doc._id, doc]));
    const inFlight = new Map<number, Person | undefined>();
    const batches: { ids: number[]; acknowledged: boolean }[] = [];
    let acknowledgements = 0;
    const killAt = 150 + Math.floor(Math.random() * 250);
    let reachKill!: () => void;
    const killMoment = new Promise<void>((resolve) => (reachKill = resolve));
    let stopped = false;

    /** Sends one write that leaves `after` (undefined: deleted) for each of `ids`. */
    async function write(changes: Map<number, Person | undefined>, send: () => Promise<unknown>): Promise<void> {
      for (const [id, after] of changes) inFlight.set(id, after);
      await send();
      for (const [id, after] of changes) {
        acknowledged.set(id, after);
        inFlight.delete(id);
      }
      if (++acknowledgements === killAt) reachKill();
    }
    const current = (id: number): Person => acknowledged.get(id)!;
    const writers = [
      ...range(4, (w) =>
        loop(
          () => stopped,
          (i) => {
            const doc = person(10_000 * (w + 1) + i);
            return write(new Map([[doc._id, doc]]), () => people.insertOne(doc));
          },
        ),
      ),
      ...range(2, (w) =>
        loop(
          () => stopped,
          (i) => {
            const docs = range(10, (j) => person(100_000 * (w + 1) + i * 10 + j));
            const batch = { ids: docs.map((doc) => doc._id), acknowledged: false };
            batches.push(batch);
            return write(new Map(docs.map((doc) => [doc._id, doc])), () => people.insertMany(docs)).then(() => {
              batch.acknowledged = true;
            });
          },
        ),
      ),
      ...range(5, (w) =>
        loop(
          () => stopped,
          (i) => {
            const id = w * 10 + (i % 10);
            const token = `w${w}-${i}`;
            const doc = current(id);
            const after = { ...doc, visits: doc.visits! + 1, tags: [...doc.tags!, token] };
            return write(new Map([[id, after]]), () =>
              people.updateOne({ _id: id }, { $inc: { visits: 1 }, $push: { tags: token } }),
            );
          },
        ),
      ),
      loop(
        () => stopped,
        () => {
          const group = range(50, (i) => 50 + i);
          const after = new Map(group.map((id) => [id, { ...current(id), visits: current(id).visits! + 1 }]));
          return write(after, () => people.updateMany({ group: 'g' }, { $inc: { visits: 1 } }));
        },
      ),
      ...range(2, (w) => {
        let next = 100 + w * 50;
        return loop(
          () => stopped || next === 150 + w * 50,
          () => {
            const id = next++;
            return write(new Map([[id, undefined]]), () => people.deleteOne({ _id: id }));
          },
        );
      }),
    ];

    // Act: writers stop sending once the kill comes; those sent are in flight.
    await killMoment;
    stopped = true;
    await child.kill();
    await Promise.all(writers);
    people = await start();

    // Assert
    const stored = new Map((await people.find({}).toArray()).map((doc) => [doc._id, doc]));
    const wrong: unknown[] = [];
    for (const id of new Set([...acknowledged.keys(), ...inFlight.keys(), ...stored.keys()])) {
      const allowed = [acknowledged.get(id), ...(inFlight.has(id) ? [inFlight.get(id)] : [])];
      if (!allowed.some((state) => isDeepStrictEqual(state, stored.get(id))))
        wrong.push({ id, stored: stored.get(id), allowed });
    }
    expect(wrong).toEqual([]);
    expect(inFlight.size).toBeGreaterThan(0);
    // One command is one engine transaction: a batch or an updateMany is there whole or not at all.
    const groupVisits = new Set(range(50, (i) => stored.get(50 + i)?.visits));
    expect(groupVisits.size).toBe(1);
    const partBatches = batches.filter(
      ({ ids }) => ![0, ids.length].includes(ids.filter((id) => stored.has(id)).length),
    );
    expect(partBatches).toEqual([]);
    await expectIndexesAgreeWithScan(people, [{ group: 'g' }, { tags: 'w1-3' }, { visits: { $gte: 2 } }]);
    await people.insertOne(person(900_000));
    expect(await people.findOne({ email: 'person900000@example.org' })).toEqual(person(900_000));
    // A store process started, written to from many writers, killed and started again on disk:
    // seconds of work on a quiet machine (it ran out of the default 30 s on a shared one).
  }, 120_000);
});

function range<T>(count: number, make: (index: number) => T): T[] {
  return Array.from({ length: count }, (_, index) => make(index));
}

/**
 * Runs `write` (iteration 0, 1, ...) until `done`. A write that fails once the writers are
 * stopped (the store was killed) is not acknowledged; one that fails before is the test's failure.
 */
async function loop(done: () => boolean, write: (iteration: number) => Promise<void>): Promise<void> {
  for (let i = 0; !done(); i++) {
    try {
      await write(i);
    } catch (error) {
      if (!done()) throw error;
      return;
    }
    // Lets the other writers and the kill run when a write returns at once.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
