import { parseIndexSpec } from '../src/engine/index-spec';
import { countMatches, runQuery } from '../src/engine/query-executor';
import { parseSort } from '../src/engine/sort';
import { temporaryCatalog } from './helpers';

/**
 * A skip on index keys walks the B-tree to its offset; the keys met every few thousand entries
 * are remembered until the collection is next written, and later skips start from them. Range
 * counts are remembered the same way. What must hold: every page is the same as the one a sort
 * of all the documents gives, before and after the checkpoints exist, forwards and backwards,
 * and after writes that move every entry; every count is the count of the documents now.
 */

const DOCUMENTS = 10_000;
/** Offsets around the checkpoints (every 4096 entries) and the ends. */
const SKIPS = [0, 1, 4094, 4095, 4096, 4097, 8190, 8191, 8192, 9_999, 10_000, 12_000];

describe('skips and counts on index keys', () => {
  const catalog = temporaryCatalog();
  const collection = catalog.ensureCollection('skips', 'people');

  beforeAll(() => {
    collection.createIndex(parseIndexSpec({ key: { group: 1, rank: 1 }, name: 'group_rank' }));
    catalog.engine.write(() => {
      for (let id = 0; id < DOCUMENTS; id++)
        collection.insert({ _id: id, group: id % 2, rank: (id * 7919) % DOCUMENTS });
    });
  });

  /** The _ids of a page read through the index (skipped on keys). */
  function page(skip: number, direction: 1 | -1): unknown[] {
    const { records, stats } = runQuery(collection, {
      filter: { group: 1 },
      sort: parseSort({ rank: direction }),
      skip,
      limit: 3,
    });
    expect(stats.skippedOnKeys || skip === 0).toBe(true);
    return records.map((record) => record.doc._id);
  }

  /** The same page, from every document sorted in memory. */
  function expected(skip: number, direction: 1 | -1): unknown[] {
    const docs = [...collection.naturalOrder()].map((record) => record.doc).filter((doc) => doc.group === 1);
    docs.sort((a, b) => direction * ((a.rank as number) - (b.rank as number)));
    return docs.slice(skip, skip + 3).map((doc) => doc._id);
  }

  it('when pages are read at offsets around the remembered positions, twice, then each is the page a full sort gives', () => {
    for (const direction of [1, -1] as const) {
      // Act: the first round walks and remembers, the second starts from what was remembered.
      const first = SKIPS.map((skip) => page(skip, direction));
      const second = [...SKIPS].reverse().map((skip) => page(skip, direction));

      // Assert
      expect(first).toEqual(SKIPS.map((skip) => expected(skip, direction)));
      expect(second).toEqual([...SKIPS].reverse().map((skip) => expected(skip, direction)));
    }
  });

  it('when documents are written after positions were remembered, then pages follow the new order', () => {
    // Arrange: positions remembered.
    for (const skip of SKIPS) page(skip, 1);

    // Act: writes that shift every entry of the range by some places.
    catalog.engine.write(() => {
      for (let id = DOCUMENTS; id < DOCUMENTS + 500; id++) collection.insert({ _id: id, group: 1, rank: -id });
      for (const record of [...collection.naturalOrder()].slice(0, 300)) collection.remove(record);
    });

    // Assert
    expect(SKIPS.map((skip) => page(skip, 1))).toEqual(SKIPS.map((skip) => expected(skip, 1)));
  });

  it('when documents are written after a range was counted, then the next count is that of the documents now', () => {
    // Arrange: the count remembered.
    const count = (): number => countMatches(collection, { filter: { group: 1 }, skip: 0, limit: 0 });
    const before = count();
    const matching = (): number => [...collection.naturalOrder()].filter((record) => record.doc.group === 1).length;
    expect(before).toBe(matching());

    // Act
    catalog.engine.write(() => {
      collection.insert({ _id: 'new', group: 1, rank: 0.5 });
      const first = [...collection.naturalOrder()].find((record) => record.doc.group === 1)!;
      collection.remove(first);
      collection.insert({ _id: 'newer', group: 1, rank: 0.25 });
    });

    // Assert
    expect(count()).toBe(before + 1);
    expect(count()).toBe(matching());
  });
});
