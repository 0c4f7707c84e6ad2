import { deserialize, serialize, type Document } from 'bson';
import { runAggregation, splitPipeline } from '../src/engine/aggregation';
import { coveredGroupCount } from '../src/engine/covered-group';
import { parseIndexSpec } from '../src/engine/index-spec';
import { temporaryCatalog } from './helpers';

/** A small deterministic PRNG, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const next = random(11);
const int = (n: number): number => Math.floor(next() * n);

/**
 * Candidate-like documents with the awkward cases the covered form must match mingo on: missing
 * and null fields, empty and missing arrays, repeated values in one array, elements lacking the
 * grouped field.
 */
function makeDocument(id: number): Document {
  const doc: Document = { _id: id, created: new Date(Date.UTC(2018 + (id % 5), id % 12, 1)) };
  const shape = int(10);
  if (shape < 7) doc.country = ['LB', 'JO', 'TR'][int(3)];
  else if (shape === 7) doc.country = null;
  doc.status = ['ACTIVE', 'PENDING', 'EMPLOYED'][int(3)];
  if (int(4) > 0) doc.born = 1960 + int(40);
  const jobs = int(5);
  if (jobs === 4) {
    // no array at all
  } else {
    doc.jobs = Array.from({ length: jobs }, () => (int(6) === 0 ? { years: 2 } : { job: { code: `C${int(4)}` } }));
    if (jobs > 0 && int(3) === 0) doc.jobs.push({ job: { code: doc.jobs[0].job?.code ?? 'C9' } });
  }
  const languages = int(4);
  if (languages < 3) doc.langs = Array.from({ length: languages }, () => ({ code: ['ar', 'en', 'fr'][int(3)] }));
  return doc;
}

const ifNull = (path: string) => ({ $ifNull: [`$${path}`, null] });

const PIPELINES: Array<{ name: string; stages: Document[] }> = [
  {
    name: 'one scalar key',
    stages: [
      { $match: { status: { $in: ['ACTIVE', 'PENDING'] } } },
      { $group: { _id: { k0: ifNull('country') }, n: { $sum: 1 } } },
    ],
  },
  {
    name: 'two scalar keys, a filter on the array',
    stages: [
      { $match: { 'jobs.job.code': { $in: ['C1', 'C2'] }, status: 'ACTIVE' } },
      { $group: { _id: { k0: ifNull('country'), k1: ifNull('born') }, n: { $sum: 1 } } },
    ],
  },
  {
    name: 'the year of a date',
    stages: [{ $match: { country: 'LB' } }, { $group: { _id: { k0: { $year: '$created' } }, n: { $sum: 1 } } }],
  },
  {
    name: 'the unwound array with a scalar key',
    stages: [
      { $match: { status: { $in: ['ACTIVE', 'PENDING'] } } },
      { $unwind: { path: '$jobs', preserveNullAndEmptyArrays: true } },
      { $group: { _id: { doc: '$_id', k0: ifNull('jobs.job.code'), k1: ifNull('country') } } },
      { $group: { _id: { k0: '$_id.k0', k1: '$_id.k1' }, count: { $sum: 1 } } },
    ],
  },
  {
    name: 'the unwound array, filtered on that array',
    stages: [
      { $match: { 'jobs.job.code': { $in: ['C1', 'C3'] }, status: { $in: ['ACTIVE', 'PENDING'] } } },
      { $unwind: { path: '$jobs', preserveNullAndEmptyArrays: true } },
      { $group: { _id: { doc: '$_id', k0: ifNull('jobs.job.code') } } },
      { $group: { _id: { k0: '$_id.k0' }, count: { $sum: 1 } } },
    ],
  },
  {
    name: 'two unwound arrays',
    stages: [
      { $match: { country: { $in: ['LB', 'JO'] } } },
      { $unwind: { path: '$jobs', preserveNullAndEmptyArrays: true } },
      { $unwind: { path: '$langs', preserveNullAndEmptyArrays: true } },
      { $group: { _id: { doc: '$_id', k0: ifNull('langs.code'), k1: ifNull('jobs.job.code') } } },
      { $group: { _id: { k0: '$_id.k0', k1: '$_id.k1' }, count: { $sum: 1 } } },
    ],
  },
];

const canonical = (docs: Document[]): string[] => docs.map((doc) => JSON.stringify(doc)).sort();

describe('embedded store: grouped counts from index entries', () => {
  const catalog = temporaryCatalog();
  const indexed = catalog.ensureCollection('covered', 'indexed');
  const plain = catalog.ensureCollection('covered', 'plain');

  beforeAll(() => {
    indexed.createIndex(parseIndexSpec({ key: { status: 1, country: 1, born: 1, created: 1, 'jobs.job.code': 1 } }));
    indexed.createIndex(parseIndexSpec({ key: { status: 1, country: 1, 'langs.code': 1 } }));
    indexed.createIndex(parseIndexSpec({ key: { 'jobs.job.code': 1, status: 1 } }));
    for (let id = 0; id < 2000; id++) {
      const doc = makeDocument(id);
      indexed.insert(deserialize(serialize(doc)));
      plain.insert(deserialize(serialize(doc)));
    }
  });

  it.each(PIPELINES)(
    'when a grouped count ($name) runs over a covering index, then the index answers it and gives what mingo gives without one',
    ({ stages }) => {
      // Act
      const { query, rest } = splitPipeline(stages);
      const covered = coveredGroupCount(indexed, query, rest);
      const withIndex = runAggregation(catalog, { db: 'covered', collection: 'indexed' }, stages).docs;
      const withoutIndex = runAggregation(catalog, { db: 'covered', collection: 'plain' }, stages).docs;

      // Assert
      expect(covered).toBeDefined();
      expect(withoutIndex.length).toBeGreaterThan(1);
      expect(canonical(covered!)).toEqual(canonical(withoutIndex));
      expect(canonical(withIndex)).toEqual(canonical(withoutIndex));
    },
  );

  it('when the key is an array not unwound, or a filter is on no index, then the index does not answer and mingo does', () => {
    // Arrange
    const groupedArray = [{ $match: {} }, { $group: { _id: { k0: ifNull('jobs.job.code') }, n: { $sum: 1 } } }];
    const unindexedFilter = [
      { $match: { 'jobs.years': 2 } },
      { $group: { _id: { k0: ifNull('country') }, n: { $sum: 1 } } },
    ];

    for (const stages of [groupedArray, unindexedFilter]) {
      // Act
      const { query, rest } = splitPipeline(stages);
      const covered = coveredGroupCount(indexed, query, rest);
      const withIndex = runAggregation(catalog, { db: 'covered', collection: 'indexed' }, stages).docs;
      const withoutIndex = runAggregation(catalog, { db: 'covered', collection: 'plain' }, stages).docs;

      // Assert
      expect(covered).toBeUndefined();
      expect(canonical(withIndex)).toEqual(canonical(withoutIndex));
    }
  });
});
