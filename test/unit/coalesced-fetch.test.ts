import { CoalescedFetch } from '../../src/cache/coalesced-fetch';

interface Doc {
  publicId: string;
  version: number;
}

/** A store of documents by id that records every fetch it answers; a fetch naming `poison` fails. */
function fakeStore(ids: string[], poison?: string) {
  const docs = new Map(ids.map((publicId) => [publicId, { publicId, version: 1 }]));
  const fetches: string[][] = [];
  const fetch = async (asked: readonly string[]): Promise<Doc[]> => {
    fetches.push([...asked]);
    await Promise.resolve();
    if (poison !== undefined && asked.includes(poison)) throw new Error(`cannot read ${poison}`);
    return asked.flatMap((id) => {
      const doc = docs.get(id);
      return doc === undefined ? [] : [{ ...doc }];
    });
  };
  return {
    docs,
    fetches,
    coalesced: (maxIds?: number) => new CoalescedFetch<Doc>(fetch, (doc) => doc.publicId, maxIds),
  };
}

const idsOf = (docs: Doc[]) => docs.map((doc) => doc.publicId).sort();

describe('coalesced fetches by id', () => {
  test('when two requests load in the same turn under one epoch, then one fetch asks for both and each gets only its own documents', async () => {
    const store = fakeStore(['a', 'b', 'c']);
    const fetch = store.coalesced();

    const [first, second] = await Promise.all([fetch.load(['a', 'b', 'x'], 'e1'), fetch.load(['c', 'a'], 'e1')]);

    expect(store.fetches).toEqual([['a', 'b', 'x', 'c']]);
    expect(idsOf(first)).toEqual(['a', 'b']);
    expect(idsOf(second)).toEqual(['a', 'c']);
  });

  test('when requests read different epochs, then their ids go in separate fetches', async () => {
    const store = fakeStore(['a', 'b']);
    const fetch = store.coalesced();

    await Promise.all([fetch.load(['a'], 'e1'), fetch.load(['b'], 'e2')]);

    expect(store.fetches).toEqual([['a'], ['b']]);
  });

  test('when a document changes between two turns, then the load of the later turn gets the change', async () => {
    const store = fakeStore(['a']);
    const fetch = store.coalesced();
    const before = await fetch.load(['a'], 'e1');

    store.docs.set('a', { publicId: 'a', version: 2 });
    const after = await fetch.load(['a'], 'e2');

    expect([before[0]?.version, after[0]?.version]).toEqual([1, 2]);
    expect(store.fetches).toHaveLength(2);
  });

  test('when a combined fetch fails, then each request is fetched on its own and the failure reaches only the one whose ids fail', async () => {
    const store = fakeStore(['a', 'b', 'c'], 'bad');
    const fetch = store.coalesced();

    const [failing, fine] = await Promise.allSettled([fetch.load(['a', 'bad'], 'e1'), fetch.load(['b', 'c'], 'e1')]);

    expect(failing).toMatchObject({ status: 'rejected', reason: new Error('cannot read bad') });
    expect(fine.status).toBe('fulfilled');
    expect(idsOf((fine as PromiseFulfilledResult<Doc[]>).value)).toEqual(['b', 'c']);
    expect(store.fetches).toEqual([
      ['a', 'bad', 'b', 'c'],
      ['a', 'bad'],
      ['b', 'c'],
    ]);
  });

  test('when the requests of one turn ask for more ids than one fetch may carry, then they go in chunks', async () => {
    const store = fakeStore(['a', 'b', 'c', 'd', 'e']);
    const fetch = store.coalesced(2);

    const [first, second] = await Promise.all([fetch.load(['a', 'b', 'c'], 'e1'), fetch.load(['d', 'e'], 'e1')]);

    expect(store.fetches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect([idsOf(first), idsOf(second)]).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
  });
});
