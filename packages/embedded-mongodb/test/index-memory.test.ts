import type { Document } from 'bson';
import type { Catalog } from '../src/engine/catalog';
import type { Collection } from '../src/engine/collection';
import { parseIndexSpec } from '../src/engine/index-spec';
import { runQuery } from '../src/engine/query-executor';
import { parseSort } from '../src/engine/sort';
import type { SortedIndex } from '../src/engine/sorted-index';
import { temporaryCatalog } from './helpers';

/**
 * Index keys are built exactly as MongoDB would key the documents: a missing field keys as
 * null, a sparse index leaves out documents without its fields, a partial one those its filter
 * refuses, and a multikey index holds one entry per array element (each combination of them
 * in a compound index). Keys built over existing documents (createIndexes) and keys kept up on
 * every write must be the same entries.
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

/** The indexes the service's seeding creates after the bulk load, and the awkward kinds (multikey, sparse, partial). */
const INDEXES: Document[] = [
  { key: { publicId: 1 }, name: 'publicId_unique', unique: true },
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

/** Inserts 300 candidates, replaces one (new occupations), removes another. */
function writeCandidates(collection: Collection): void {
  for (let id = 0; id < 300; id++) collection.insert(candidate(id));
  const seven = collection.findById(7)!;
  collection.replace(seven, { ...candidate(7), status: 'placed', occupations: [{ code: 'O9' }, { code: 'O1' }] });
  collection.remove(collection.findById(8)!);
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

function candidateIds(collection: Collection, filter: Document, sort: Document): unknown[] {
  const { records } = runQuery(collection, { filter, sort: parseSort(sort), skip: 0, limit: 0 });
  return records.map((record) => record.doc._id);
}

function keysOf(index: SortedIndex, id: number): unknown[][] {
  return [...index.all()].filter((entry) => entry.record.doc._id === id).map((entry) => [...entry.key]);
}

describe('index keys', () => {
  const catalog: Catalog = temporaryCatalog();

  it('when indexes are built over existing documents, then their entries and query results are those of the same indexes kept up on every write', () => {
    // Arrange
    const keptUp = catalog.ensureCollection(DB, 'kept_up');
    keptUp.createIndexes(INDEXES.map(parseIndexSpec));
    writeCandidates(keptUp);
    const builtAfter = catalog.ensureCollection(DB, 'built_after');
    writeCandidates(builtAfter);

    // Act
    builtAfter.createIndexes(INDEXES.map(parseIndexSpec));

    // Assert
    expect(describeIndexes(builtAfter)).toEqual(describeIndexes(keptUp));
    expect(builtAfter.indexList().map((index) => index.name)).toEqual(['_id_', ...INDEXES.map((spec) => spec.name)]);
    expect(builtAfter.getIndex('search_occupation_status')!.multikey).toBe(true);
    expect(builtAfter.getIndex('search_status')!.multikey).toBe(false);
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
      const found = candidateIds(builtAfter, filter, sort);
      expect({ filter, ids: found }).toEqual({ filter, ids: candidateIds(keptUp, filter, sort) });
      expect(found.length).toBeGreaterThan(0);
    }
  });

  it('when documents lack fields or hold arrays, then each index keys them as MongoDB does: null for a missing field, none in a sparse or partial index that leaves them out, one entry per array element', () => {
    // Arrange
    const collection = catalog.ensureCollection(DB, 'keyed');
    collection.createIndexes(INDEXES.map(parseIndexSpec));

    // Act: 0 is active, has a nickname and no country; 1 is placed, in UA, with one occupation;
    // 5 has neither country nor nickname, and two occupations.
    for (const id of [0, 1, 5]) collection.insert(candidate(id));

    // Assert
    const index = (name: string) => collection.getIndex(name)!;
    const date = (id: number) => candidate(id).createdDate as Date;
    expect(keysOf(index('search_country_status'), 0)).toEqual([[null, 'active', date(0), 'c-0000']]);
    expect(keysOf(index('search_country_status'), 1)).toEqual([['UA', 'placed', date(1), 'c-0001']]);
    expect(keysOf(index('nickname_sparse'), 0)).toEqual([['n0']]);
    expect(keysOf(index('nickname_sparse'), 1)).toEqual([]);
    expect(keysOf(index('active_by_country'), 0)).toEqual([[null, date(0)]]);
    expect(keysOf(index('active_by_country'), 1)).toEqual([]);
    expect(keysOf(index('search_occupation_status'), 1)).toEqual([['O1', 'placed', date(1), 'c-0001']]);
    expect(keysOf(index('search_occupation_status'), 5)).toEqual([
      ['O1', 'withdrawn', date(5), 'c-0005'],
      ['O2', 'withdrawn', date(5), 'c-0005'],
    ]);
  });

  it('when a compound index meets arrays, then it keys each combination of values, arrays among them kept whole', () => {
    // Arrange
    const collection = catalog.ensureCollection(DB, 'arrays');
    collection.createIndex(parseIndexSpec({ key: { a: 1, b: -1, c: 1 }, name: 'a_b_c' }));
    const index = collection.getIndex('a_b_c')!;

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
