import type { Db } from 'mongodb';
import { ObjectId } from 'mongodb';
import { EpochCache } from '../../src/cache/epoch-cache';
import { ReadEpoch } from '../../src/cache/read-epoch';

/**
 * A database whose epoch reads the test answers by hand: each findOne returns a promise that
 * resolves with the epoch the store holds when the test lets the read finish, as a real read
 * sees the state at the time it executes.
 */
function storeWithManualReads() {
  let stored: ObjectId | undefined;
  const pending: (() => void)[] = [];
  const db = {
    collection: () => ({
      findOne: () =>
        new Promise((resolve) => {
          pending.push(() => resolve(stored === undefined ? null : { _id: 'reads', value: stored }));
        }),
    }),
  } as unknown as Db;
  return {
    db,
    reads: () => pending.length,
    write: () => {
      stored = new ObjectId();
      return stored.toHexString();
    },
    /** lets the oldest read in flight finish (it sees the store as it is now) */
    finishRead: async () => {
      pending.shift()!();
      // let every promise callback run (the shared run settles through a few layers of them)
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('ReadEpoch', () => {
  test('when many requests arrive together, then two reads answer them all: the first, and one for those that came while it ran', async () => {
    const store = storeWithManualReads();
    const epoch = new ReadEpoch(store.db);
    const written = store.write();

    const first = epoch.current();
    const others = Array.from({ length: 19 }, () => epoch.current());
    expect(store.reads()).toBe(1);
    await store.finishRead();
    expect(store.reads()).toBe(1);
    await store.finishRead();

    expect(store.reads()).toBe(0);
    expect(await first).toBe(written);
    expect(await Promise.all(others)).toEqual(Array(19).fill(written));
  });

  test('when a request arrives while a read is in flight, then it waits for the next read, which sees a write acknowledged before it arrived', async () => {
    const store = storeWithManualReads();
    const epoch = new ReadEpoch(store.db);
    const before = store.write();

    const early = epoch.current(); // read 1 is sent…
    const late = [epoch.current(), epoch.current()]; // …these arrive while it runs
    await store.finishRead(); // read 1 executes: the old epoch
    const written = store.write(); // a write lands before read 2 executes
    await store.finishRead();

    expect(await early).toBe(before);
    expect(await Promise.all(late)).toEqual([written, written]);
  });

  test('when a read in flight predates a write, then requests after the write never get the older epoch', async () => {
    const store = storeWithManualReads();
    const epoch = new ReadEpoch(store.db);
    const old = store.write();

    const early = epoch.current();
    await store.finishRead(); // read 1 sees the old epoch
    expect(await early).toBe(old);

    const second = epoch.current(); // read 2 in flight, will see `old` if finished now
    await store.finishRead();
    const fresh = store.write();
    const third = epoch.current();
    await store.finishRead();

    expect(await second).toBe(old);
    expect(await third).toBe(fresh);
  });

  test('when a read fails, then its waiters get the error and the next request reads again', async () => {
    let fail = true;
    const db = {
      collection: () => ({
        findOne: async () =>
          fail
            ? Promise.reject(new Error('store down'))
            : { _id: 'reads', value: new ObjectId('0123456789abcdef01234567') },
      }),
    } as unknown as Db;
    const epoch = new ReadEpoch(db);

    await expect(epoch.current()).rejects.toThrow('store down');
    fail = false;
    await expect(epoch.current()).resolves.toBe('0123456789abcdef01234567');
  });

  test('when nothing marked the store yet, then the epoch is a fixed initial value', async () => {
    const store = storeWithManualReads();
    const epoch = new ReadEpoch(store.db);
    const answer = epoch.current();
    await store.finishRead();
    expect(await answer).toBe('initial');
  });
});

describe('EpochCache', () => {
  test('when the epoch differs from the one a value was kept under, then the value is not served', () => {
    const cache = new EpochCache<string, { n: number }>(10);
    cache.set('a', 'e1', { n: 1 });

    expect(cache.get('a', 'e1')).toEqual({ n: 1 });
    expect(cache.get('a', 'e2')).toBeUndefined();
  });

  test('when a value is kept, then it is frozen to its leaves, since every request that gets it shares it', () => {
    const cache = new EpochCache<string, { list: { name: string }[] }>(10);
    const kept = cache.set('a', 'e1', { list: [{ name: 'x' }] });

    expect(() => {
      kept.list[0].name = 'y';
    }).toThrow(TypeError);
    expect(() => kept.list.push({ name: 'z' })).toThrow(TypeError);
  });

  test('when full, then the least recently used value goes first; capacity 0 keeps nothing', () => {
    const cache = new EpochCache<string, number>(2);
    cache.set('a', 'e', 1);
    cache.set('b', 'e', 2);
    cache.get('a', 'e');
    cache.set('c', 'e', 3);

    expect(cache.get('a', 'e')).toBe(1);
    expect(cache.get('b', 'e')).toBeUndefined();
    const none = new EpochCache<string, number>(0);
    none.set('a', 'e', 1);
    expect(none.get('a', 'e')).toBeUndefined();
  });
});
