import fs from 'node:fs';
import path from 'node:path';
import { deserialize, serialize, type Document } from 'bson';
import { Catalog } from '../src/engine/catalog';
import type { Change } from '../src/engine/change-log';
import type { Collection } from '../src/engine/collection';
import { parseIndexSpec } from '../src/engine/index-spec';
import { runQuery } from '../src/engine/query-executor';
import { parseSort } from '../src/engine/sort';
import type { StoredRecord } from '../src/engine/stored-record';
import { DataDirectory } from '../src/persistence/data-directory';
import { frameHeader } from '../src/persistence/record-file';
import { SILENT_LOG } from '../src/store-log';
import { makeTempDir } from './helpers';

/**
 * A durable store keeps its documents in its data files, not in memory: a record holds only the
 * place of its bytes in the snapshot or the journal once they are there, and reads them back on
 * use. What must hold: the same documents and query results as before, whichever file a
 * document is read from, and a write's newest version winning over one still being flushed.
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

function records(collection: Collection): StoredRecord[] {
  return [...collection.naturalOrder()];
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

/** Writes a journal as an earlier version of the store did: each change serialised whole. */
function writeJournal(dir: string, changes: readonly Change[]): void {
  const frames = changes.flatMap((change) => {
    const payload = serialize(change);
    return [frameHeader(payload), payload];
  });
  fs.writeFileSync(path.join(dir, 'journal-0.log'), Buffer.concat(frames));
}

describe('documents kept in the data files', () => {
  let temp: ReturnType<typeof makeTempDir>;
  const opened: DataDirectory[] = [];

  async function open(): Promise<{ catalog: Catalog; directory: DataDirectory }> {
    const catalog = new Catalog();
    const directory = await DataDirectory.open(temp.dir, catalog, SILENT_LOG);
    opened.push(directory);
    return { catalog, directory };
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

  it('when documents are written, then once durable their records hold no bytes and read the same documents, before and after a restart', async () => {
    // Arrange
    const first = await open();
    const people = first.catalog.ensureCollection(DB, 'people');
    people.createIndex(parseIndexSpec({ key: { country: 1, joined: -1 }, name: 'country_joined' }));
    for (let id = 0; id < 60; id++) people.insert(person(id));
    const expected = byCountry(people, 'SY');
    expect(records(people).every((record) => record.inMemory)).toBe(true);

    // Act
    await first.directory.journal.waitDurable();

    // Assert: read back from the journal
    expect(records(people).some((record) => record.inMemory)).toBe(false);
    expect(byCountry(people, 'SY')).toEqual(expected);
    expect(records(people).map((record) => record.doc)).toEqual(Array.from({ length: 60 }, (_, id) => person(id)));

    // Assert: replayed from the journal into a snapshot, then loaded from that snapshot
    for (let restart = 0; restart < 2; restart++) {
      await close(opened[0]);
      const { catalog } = await open();
      const reopened = catalog.getCollection(DB, 'people')!;
      expect(records(reopened).some((record) => record.inMemory)).toBe(false);
      expect(byCountry(reopened, 'SY')).toEqual(expected);
      expect(reopened.dataSize).toBe(people.dataSize);
    }
  });

  it('when a document is replaced while its first version is still being flushed, then the record keeps the newest version', async () => {
    // Arrange
    const { catalog, directory } = await open();
    const people = catalog.ensureCollection(DB, 'people');
    const record = people.insert(person(1));
    const flushing = directory.journal.waitDurable();

    // Act: the second version is appended while the first one is being written
    people.replace(record, { ...person(1), visits: 99 });
    await flushing;

    // Assert
    expect(record.doc).toEqual({ ...person(1), visits: 99 });
    await directory.journal.waitDurable();
    expect(record.inMemory).toBe(false);
    expect(record.doc).toEqual({ ...person(1), visits: 99 });
  });

  it('when a journal of an earlier version holds a document whose _id is not first, then it is read back with _id first', async () => {
    // Arrange: drivers append the _id they generate; the old journal kept the decoded order
    writeJournal(temp.dir, [
      { t: 'createCollection', db: DB, c: 'people', options: {} },
      { t: 'put', db: DB, c: 'people', d: { email: 'late@example.org', _id: 7 } },
      { t: 'put', db: DB, c: 'people', d: { _id: 8, email: 'first@example.org' } },
    ]);

    // Act
    const { catalog } = await open();

    // Assert
    const docs = records(catalog.getCollection(DB, 'people')!).map((record) => deserialize(record.bson));
    expect(docs.map((doc) => Object.keys(doc))).toEqual([
      ['_id', 'email'],
      ['_id', 'email'],
    ]);
    expect(docs).toEqual([
      { _id: 7, email: 'late@example.org' },
      { _id: 8, email: 'first@example.org' },
    ]);
  });

  it('when the data directory is closed, then reading a document of it is an error rather than bytes of another file', async () => {
    // Arrange
    const { catalog, directory } = await open();
    const people = catalog.ensureCollection(DB, 'people');
    const record = people.insert(person(2));
    await directory.journal.waitDurable();

    // Act
    await close(directory);

    // Assert
    expect(() => record.bson).toThrow(/is closed/);
  });
});
