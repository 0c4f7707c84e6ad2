import fs from 'node:fs';
import path from 'node:path';
import { deserialize, serialize, type Document } from 'bson';
import { Catalog } from '../src/engine/catalog';
import type { Change } from '../src/engine/change-log';
import type { Collection } from '../src/engine/collection';
import { parseIndexSpec } from '../src/engine/index-spec';
import { runQuery } from '../src/engine/query-executor';
import { parseSort } from '../src/engine/sort';
import { DataDirectory } from '../src/persistence/data-directory';
import { frameHeader } from '../src/persistence/record-file';
import { SILENT_LOG } from '../src/store-log';
import { makeTempDir } from './helpers';

/**
 * A durable store keeps its documents in the storage engine's file, not in memory: a record
 * reads its bytes from the engine when it is first used. What must hold: the same documents and
 * query results before and after the data directory is closed and opened again, every write
 * seen by the next read, and no read from a closed directory.
 */

const DB = 'disk';

function person(id: number): Document {
  return {
    _id: id,
    email: `p${id}@example.org`,
    country: ['UA', 'SY', 'AF'][id % 3],
    visits: id % 7,
    joined: new Date(Date.UTC(2025, 0, 1 + (id % 28))),
  };
}

function documents(collection: Collection): Document[] {
  return [...collection.naturalOrder()].map((record) => record.doc);
}

function byCountry(collection: Collection, country: string): unknown[] {
  const { records: found } = runQuery(collection, {
    filter: { country },
    sort: parseSort({ joined: -1, _id: 1 }),
    skip: 0,
    limit: 0,
  });
  return found.map((record) => record.doc);
}

/** Writes a journal as the release before the storage engine did: each change serialised whole. */
function writeEarlierReleaseJournal(dir: string, changes: readonly Change[]): void {
  const frames = changes.flatMap((change) => {
    const payload = serialize(change);
    return [frameHeader(payload), payload];
  });
  fs.writeFileSync(path.join(dir, 'journal-0.log'), Buffer.concat(frames));
}

describe("documents kept in the engine's file", () => {
  let temp: ReturnType<typeof makeTempDir>;
  const opened: DataDirectory[] = [];

  /** Opens the data directory as the store does (src/index.ts): the directory, then a catalog on its engine. */
  async function open(): Promise<{ catalog: Catalog; directory: DataDirectory }> {
    const directory = await DataDirectory.open(temp.dir, SILENT_LOG);
    opened.push(directory);
    return { catalog: new Catalog(directory.engine), directory };
  }

  async function close(directory: DataDirectory): Promise<void> {
    opened.splice(opened.indexOf(directory), 1);
    await directory.close();
  }

  beforeEach(() => {
    temp = makeTempDir('documents-on-disk');
  });

  afterEach(async () => {
    for (const directory of opened.splice(0)) await directory.close();
    temp.remove();
  });

  it('when documents are written, then they read back the same and give the same query results, before and after the directory is closed and opened again', async () => {
    // Arrange
    const first = await open();
    const people = first.catalog.ensureCollection(DB, 'people');
    people.createIndex(parseIndexSpec({ key: { country: 1, joined: -1 }, name: 'country_joined' }));
    for (let id = 0; id < 60; id++) people.insert(person(id));
    const expected = byCountry(people, 'SY');
    const all = Array.from({ length: 60 }, (_, id) => person(id));

    // Act
    const before = { documents: documents(people), bySy: byCountry(people, 'SY'), dataSize: people.dataSize };
    const reopened: (typeof before)[] = [];
    for (let restart = 0; restart < 2; restart++) {
      await close(opened[0]);
      const { catalog } = await open();
      const collection = catalog.getCollection(DB, 'people')!;
      reopened.push({
        documents: documents(collection),
        bySy: byCountry(collection, 'SY'),
        dataSize: collection.dataSize,
      });
    }

    // Assert
    expect(expected).toHaveLength(20);
    expect(before.documents).toEqual(all);
    expect(before.bySy).toEqual(expected);
    expect(reopened).toEqual([before, before]);
  });

  it('when a document is replaced or removed, then the next read sees it, and a record read before keeps the version it read', async () => {
    // Arrange
    const { catalog } = await open();
    const people = catalog.ensureCollection(DB, 'people');
    people.createIndex(parseIndexSpec({ key: { visits: 1 }, name: 'visits' }));
    people.insert(person(1));
    people.insert(person(2));
    const readBefore = people.findById(1)!;

    // Act
    people.replace(readBefore, { ...person(1), visits: 99 });
    people.remove(people.findById(2)!);

    // Assert
    expect(people.findById(1)!.doc).toEqual({ ...person(1), visits: 99 });
    expect(people.findById(2)).toBeUndefined();
    expect(documents(people)).toEqual([{ ...person(1), visits: 99 }]);
    expect(runQuery(people, { filter: { visits: 99 }, skip: 0, limit: 0 }).records.map((r) => r.doc._id)).toEqual([1]);
    expect(readBefore.doc).toEqual(person(1));
  });

  it('when a journal of an earlier release holds a document whose _id is not first, then the converted directory reads it back with _id first', async () => {
    // Arrange: drivers append the _id they generate; that release's journal kept the decoded order
    writeEarlierReleaseJournal(temp.dir, [
      { t: 'createCollection', db: DB, c: 'people', options: {} },
      { t: 'put', db: DB, c: 'people', d: { email: 'late@example.org', _id: 7 } },
      { t: 'put', db: DB, c: 'people', d: { _id: 8, email: 'first@example.org' } },
    ]);

    // Act
    const { catalog } = await open();

    // Assert
    const docs = [...catalog.getCollection(DB, 'people')!.naturalOrder()].map((record) => deserialize(record.bson));
    expect(docs.map((doc) => Object.keys(doc))).toEqual([
      ['_id', 'email'],
      ['_id', 'email'],
    ]);
    expect(docs).toEqual([
      { _id: 7, email: 'late@example.org' },
      { _id: 8, email: 'first@example.org' },
    ]);
    expect(fs.readdirSync(temp.dir).sort()).toEqual(['data.mdb', 'lock.mdb', 'store.lock']);
  });

  it('when the data directory is closed, then reading a document not yet read is an error rather than bytes of another file', async () => {
    // Arrange: a lookup by _id finds the record in the index; its bytes are read on first use.
    const { catalog, directory } = await open();
    const people = catalog.ensureCollection(DB, 'people');
    people.insert(person(2));
    const record = people.findById(2)!;

    // Act
    await close(directory);

    // Assert
    expect(() => record.bson).toThrow(/closed/);
  });
});
