import path from 'node:path';
import { deserialize, serialize, type Document } from 'bson';
import { Catalog } from '../src/engine/catalog';
import type { Change } from '../src/engine/change-log';
import type { Collection } from '../src/engine/collection';
import { parseIndexSpec } from '../src/engine/index-spec';
import { runQuery } from '../src/engine/query-executor';
import { parseSort } from '../src/engine/sort';
import { SortedIndex } from '../src/engine/sorted-index';
import { DataDirectory } from '../src/persistence/data-directory';
import { Journal } from '../src/persistence/journal';
import { SILENT_LOG, type StoreLog } from '../src/store-log';
import { makeTempDir } from './helpers';

/**
 * What keeps index memory down: keys are built exactly as MongoDB would key the documents, and
 * a journal's run of createIndex changes (what `npm run seed` leaves) is built in one pass whose
 * entries share each document's decoded values.
 */

const DB = 'memory';
const STATUSES = ['active', 'placed', 'withdrawn'];
const COUNTRIES = ['UA', 'SY', 'AF'];

function candidate(id: number): Document {
  const doc: Document = {
    _id: id,
    publicId: `c-${String(id).padStart(4, '0')}`,
    status: STATUSES[id % 3],
    createdDate: new Date(Date.UTC(2024, 0, 1) + (id % 17) * 86_400_000),
    occupations: Array.from({ length: id % 3 }, (_, i) => ({ code: `O${(id + i) % 4}` })),
  };
  // Missing fields key as null; sparse and partial indexes leave documents out.
  if (id % 5 !== 0) doc.countryIsoCode = COUNTRIES[Math.floor(id / 2) % 3];
  if (id % 4 === 0) doc.nickname = `n${id}`;
  return doc;
}

const put = (doc: Document): Change => ({ t: 'put', db: DB, c: 'candidates', d: doc });
const createIndex = (spec: Document, c = 'candidates'): Change => ({ t: 'createIndex', db: DB, c, spec });

/** The indexes seeding creates after the bulk load, and the awkward kinds (multikey, sparse, partial). */
const INDEX_RUN: Document[] = [
  { key: { status: 1, createdDate: 1, publicId: 1 }, name: 'search_status' },
  { key: { countryIsoCode: 1, status: 1, createdDate: 1, publicId: 1 }, name: 'search_country_status' },
  { key: { 'occupations.code': 1, status: 1, createdDate: 1, publicId: 1 }, name: 'search_occupation_status' },
  { key: { createdDate: -1, publicId: -1 }, name: 'createdDate_publicId' },
  { key: { nickname: 1 }, name: 'nickname_sparse', sparse: true },
  {
    key: { countryIsoCode: 1, createdDate: 1 },
    name: 'active_by_country',
    partialFilterExpression: { status: 'active' },
  },
];

/** A journal like the one seeding writes: a unique index first, documents, then a run of indexes. */
function seedingChanges(): Change[] {
  const changes: Change[] = [
    { t: 'createCollection', db: DB, c: 'candidates', options: {} },
    createIndex({ key: { publicId: 1 }, name: 'publicId_unique', unique: true }),
  ];
  for (let id = 0; id < 300; id++) changes.push(put(candidate(id)));
  changes.push(put({ ...candidate(7), status: 'placed', occupations: [{ code: 'O9' }, { code: 'O1' }] }));
  changes.push({ t: 'del', db: DB, c: 'candidates', id: 8 });
  changes.push({ t: 'createCollection', db: DB, c: 'countries', options: {} });
  changes.push(...INDEX_RUN.map((spec) => createIndex(spec)));
  // Another collection's index ends the run; documents written afterwards go through every index.
  changes.push(createIndex({ key: { isoCode: 1 }, name: 'isoCode_unique', unique: true }, 'countries'));
  for (let id = 300; id < 320; id++) changes.push(put(candidate(id)));
  return changes;
}

/** Data directories opened by a test; their records read documents from its files until closed. */
const opened: DataDirectory[] = [];

async function replay(dir: string, changes: readonly Change[], log: StoreLog = SILENT_LOG): Promise<Catalog> {
  const journal = await Journal.open(path.join(dir, 'journal-0.log'));
  for (const change of changes) journal.append(change);
  await journal.close();
  const catalog = new Catalog();
  opened.push(await DataDirectory.open(dir, catalog, log));
  return catalog;
}

/** What replay did before runs were batched: every change on its own, as decoded from the journal. */
function applyOneByOne(changes: readonly Change[]): Catalog {
  const catalog = new Catalog();
  for (const change of changes) catalog.applyChange(deserialize(serialize(change)) as Change);
  return catalog;
}

function describeIndexes(collection: Collection): Document[] {
  return collection.indexList().map((index) => ({
    name: index.name,
    spec: index.spec,
    multikey: index.multikey,
    multikeyFields: [...index.multikeyFields].sort(),
    entries: [...index.all()].map((entry) => ({ key: entry.key, seq: entry.record.seq })),
  }));
}

function candidateIds(catalog: Catalog, filter: Document, sort: Document): unknown[] {
  const { records } = runQuery(catalog.getCollection(DB, 'candidates')!, {
    filter,
    sort: parseSort(sort),
    skip: 0,
    limit: 0,
  });
  return records.map((record) => record.doc._id);
}

function entriesOf(index: SortedIndex, id: number): Array<readonly unknown[]> {
  return [...index.all()].filter((entry) => entry.record.doc._id === id).map((entry) => entry.key);
}

describe('index memory', () => {
  let temp: ReturnType<typeof makeTempDir>;

  beforeEach(() => {
    temp = makeTempDir('index-memory');
  });

  afterEach(async () => {
    for (const directory of opened.splice(0)) await directory.close();
    temp.remove();
  });

  it('when a journal with a run of createIndex changes is replayed, then the indexes, their entries and query results are those of applying the changes one by one', async () => {
    // Arrange
    const changes = seedingChanges();
    const expected = applyOneByOne(changes);

    // Act
    const replayed = await replay(temp.dir, changes);

    // Assert
    for (const name of ['candidates', 'countries']) {
      expect(describeIndexes(replayed.getCollection(DB, name)!)).toEqual(
        describeIndexes(expected.getCollection(DB, name)!),
      );
    }
    const candidates = replayed.getCollection(DB, 'candidates')!;
    const names = candidates.indexList().map((index) => index.name);
    expect(names).toEqual(['_id_', 'publicId_unique', ...INDEX_RUN.map((spec) => spec.name)]);
    expect(candidates.getIndex('search_occupation_status')!.multikey).toBe(true);
    const queries = [
      { filter: { status: 'active', countryIsoCode: 'SY' }, sort: { createdDate: -1, publicId: -1 } },
      {
        filter: { 'occupations.code': { $in: ['O1', 'O9'] }, status: 'placed' },
        sort: { createdDate: 1, publicId: 1 },
      },
      { filter: { nickname: { $exists: true } }, sort: { nickname: 1 } },
      { filter: { status: 'active', countryIsoCode: null }, sort: { createdDate: 1, _id: 1 } },
    ];
    for (const { filter, sort } of queries) {
      const found = candidateIds(replayed, filter, sort);
      expect({ filter, ids: found }).toEqual({ filter, ids: candidateIds(expected, filter, sort) });
      expect(found.length).toBeGreaterThan(0);
    }
  });

  it('when one createIndex of a run cannot be built, then it alone is skipped and logged and the others are built', async () => {
    // Arrange: a unique index over duplicate values, and a key type the store does not support.
    const log = jest.fn<void, Parameters<StoreLog>>();
    const changes: Change[] = [{ t: 'createCollection', db: DB, c: 'candidates', options: {} }];
    for (let id = 0; id < 30; id++) changes.push(put(candidate(id)));
    changes.push(
      createIndex({ key: { status: 1 }, name: 'status' }),
      createIndex({ key: { status: 1, publicId: 1 }, name: 'status_unique', unique: true }),
      createIndex({ key: { countryIsoCode: 1 }, name: 'country_unique', unique: true }),
      createIndex({ key: { nickname: 'text' }, name: 'nickname_text' }),
      createIndex({ key: { createdDate: 1 }, name: 'createdDate' }),
    );

    // Act
    const replayed = await replay(temp.dir, changes, log);

    // Assert
    const candidates = replayed.getCollection(DB, 'candidates')!;
    expect(candidates.indexList().map((index) => [index.name, index.size])).toEqual([
      ['_id_', 30],
      ['status', 30],
      ['status_unique', 30],
      ['createdDate', 30],
    ]);
    const skipped = log.mock.calls.filter(([level]) => level === 'error');
    const skippedIndex = (error: string): Parameters<StoreLog> => [
      'error',
      'journal record could not be applied; skipped',
      { change: 'createIndex', error: expect.stringContaining(error) as unknown },
    ];
    expect(skipped).toEqual([skippedIndex('index: country_unique dup key'), skippedIndex("index type 'text'")]);
  });

  it('when a run of createIndex changes is replayed, then the entries of one document in those indexes share its decoded values', async () => {
    // Act
    const replayed = await replay(temp.dir, seedingChanges());

    // Assert
    const candidates = replayed.getCollection(DB, 'candidates')!;
    const [byStatus] = entriesOf(candidates.getIndex('search_status')!, 41);
    const [byCountry] = entriesOf(candidates.getIndex('search_country_status')!, 41);
    const [byDate] = entriesOf(candidates.getIndex('createdDate_publicId')!, 41);
    expect(byStatus[1]).toBeInstanceOf(Date);
    expect(byCountry[2]).toBe(byStatus[1]);
    expect(byDate[0]).toBe(byStatus[1]);
  });

  it('when a document is inserted, then its entries in every index share its values', () => {
    // Arrange
    const collection = new Catalog().ensureCollection(DB, 'candidates');
    collection.createIndexes(INDEX_RUN.slice(0, 4).map(parseIndexSpec));

    // Act
    collection.insert(candidate(41));

    // Assert
    const [byStatus] = entriesOf(collection.getIndex('search_status')!, 41);
    const [byDate] = entriesOf(collection.getIndex('createdDate_publicId')!, 41);
    expect(byDate[0]).toBe(byStatus[1]);
  });

  it('when a compound index meets arrays, then it keys each combination of values, arrays among them kept whole', () => {
    // Arrange
    const index = new SortedIndex(parseIndexSpec({ key: { a: 1, b: -1, c: 1 } }));

    // Act
    const keys = index.keysOf({ a: [2, 1, 2], b: 'x', c: [[5, 6], 3] });

    // Assert
    expect(keys).toEqual([
      [1, 'x', 3],
      [1, 'x', [5, 6]],
      [2, 'x', 3],
      [2, 'x', [5, 6]],
    ]);
    expect([...index.multikeyFields].sort()).toEqual([0, 2]);
    expect(index.keysOf({ b: 'y' })).toEqual([[null, 'y', null]]);
  });
});
