import { SortedEntries } from '../src/engine/sorted-entries';

/** A small deterministic PRNG, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

interface Item {
  readonly key: number;
  readonly id: number;
}

const byKeyThenId = (a: Item, b: Item): number => a.key - b.key || a.id - b.id;

function collect(entries: SortedEntries<Item>, low: number, high: number, reverse: boolean): Item[] {
  const seen: Item[] = [];
  entries.forEachInRange(
    (item) => item.key >= low,
    (item) => item.key <= high,
    reverse,
    (item) => {
      seen.push(item);
    },
  );
  return seen;
}

describe('SortedEntries (chunked sorted list behind every index)', () => {
  it('when thousands of items are inserted and deleted at random, then every range scan and count matches a plain sorted array', () => {
    // Arrange
    const next = random(42);
    const entries = new SortedEntries<Item>(byKeyThenId);
    let reference: Item[] = [];
    let id = 0;
    for (let round = 0; round < 6000; round++) {
      if (reference.length > 0 && next() < 0.3) {
        const victim = reference[Math.floor(next() * reference.length)];
        expect(entries.delete(victim)).toBe(true);
        reference = reference.filter((item) => item !== victim);
      } else {
        const item = { key: Math.floor(next() * 500), id: id++ };
        entries.insert(item);
        reference.push(item);
      }
    }
    reference.sort(byKeyThenId);

    // Act + Assert
    expect(entries.size).toBe(reference.length);
    expect([...entries]).toEqual(reference);
    for (let probe = 0; probe < 200; probe++) {
      const low = Math.floor(next() * 520) - 10;
      const high = low + Math.floor(next() * 120) - 20;
      const expected = reference.filter((item) => item.key >= low && item.key <= high);
      expect(collect(entries, low, high, false)).toEqual(expected);
      expect(collect(entries, low, high, true)).toEqual([...expected].reverse());
      expect(
        entries.countRange(
          (item) => item.key >= low,
          (item) => item.key <= high,
        ),
      ).toBe(expected.length);
    }
  });

  it('when a cursor skips and advances through a range of many chunks, then it lands where a plain sorted array says, both ways', () => {
    // Arrange: inserts split chunks unevenly, so skips cross chunks of every size.
    const next = random(7);
    const entries = new SortedEntries<Item>(byKeyThenId);
    const reference: Item[] = [];
    for (let id = 0; id < 5000; id++) {
      const item = { key: Math.floor(next() * 800), id };
      entries.insert(item);
      reference.push(item);
    }
    reference.sort(byKeyThenId);

    for (let probe = 0; probe < 300; probe++) {
      const low = Math.floor(next() * 820) - 10;
      const high = low + Math.floor(next() * 400) - 20;
      const reverse = next() < 0.5;
      const inRange = reference.filter((item) => item.key >= low && item.key <= high);
      const expected = reverse ? [...inRange].reverse() : inRange;
      const skip = Math.floor(next() * (expected.length + 10));

      // Act
      const cursor = entries.cursor(
        (item) => item.key >= low,
        (item) => item.key <= high,
        reverse,
      );
      const skipped = cursor.skip(skip);
      const rest: Item[] = [];
      for (let item = cursor.current; item !== undefined && rest.length < 700; item = cursor.current) {
        rest.push(item);
        cursor.advance();
      }

      // Assert
      expect(skipped).toBe(Math.min(skip, expected.length));
      expect(rest).toEqual(expected.slice(skip, skip + 700));
    }
  });

  it('when a visit returns false, then the scan stops there', () => {
    // Arrange
    const entries = new SortedEntries<Item>(byKeyThenId);
    entries.load(Array.from({ length: 2000 }, (_, i) => ({ key: i, id: i })));
    const seen: number[] = [];

    // Act
    entries.forEachInRange(
      () => true,
      () => true,
      true,
      (item) => {
        seen.push(item.key);
        return seen.length < 3;
      },
    );

    // Assert
    expect(seen).toEqual([1999, 1998, 1997]);
  });

  it('when an item that is not there is deleted, then nothing changes', () => {
    // Arrange
    const entries = new SortedEntries<Item>(byKeyThenId);
    entries.insert({ key: 1, id: 1 });

    // Act
    const deleted = entries.delete({ key: 1, id: 2 });

    // Assert
    expect(deleted).toBe(false);
    expect(entries.size).toBe(1);
  });
});
