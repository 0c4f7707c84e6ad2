import { ReferenceCache, type ReferenceSource } from '../../src/reference/reference-cache';
import type { ReferenceCollection, ReferenceDocs } from '../../src/reference/reference-repository';

/** A source with one country and one language level; every other collection is empty. */
function source(): ReferenceSource & { reads: number } {
  const data: Partial<Record<ReferenceCollection, unknown[]>> = {
    countries: [{ isoCode: 'LB', name: 'Lebanon', status: 'ACTIVE' }],
    languageLevels: [{ level: 0, name: 'None', cefrLevel: null, status: 'ACTIVE' }],
  };
  const counted = {
    reads: 0,
    async list<C extends ReferenceCollection>(collection: C): Promise<ReferenceDocs[C][]> {
      counted.reads++;
      return (data[collection] ?? []).map((doc) => ({ ...(doc as object) })) as ReferenceDocs[C][];
    },
  };
  return counted;
}

describe('ReferenceCache.find', () => {
  test('when the snapshot is loaded, then a key gives its document and an absent or unknown key null, with no further read', async () => {
    const from = source();
    const cache = new ReferenceCache(from);
    await cache.load();
    const readsAfterLoad = from.reads;

    expect(cache.find('countries', 'LB')).toMatchObject({ name: 'Lebanon' });
    expect(cache.find('languageLevels', 0)).toMatchObject({ name: 'None' });
    expect(cache.find('countries', 'ZZ')).toBeNull();
    expect(cache.find('countries', undefined)).toBeNull();
    expect(cache.find('countries', null)).toBeNull();
    expect(from.reads).toBe(readsAfterLoad);
  });

  test('when a resolver tries to change a document it found, then it cannot: every request shares it', async () => {
    const cache = new ReferenceCache(source());
    await cache.load();

    const country = cache.find('countries', 'LB') as { name: string };
    expect(() => {
      country.name = 'Changed';
    }).toThrow(TypeError);
    expect(cache.find('countries', 'LB')).toMatchObject({ name: 'Lebanon' });
  });

  test('when the snapshot was never loaded, then find refuses instead of answering null for everything', () => {
    const cache = new ReferenceCache(source());

    expect(() => cache.find('countries', 'LB')).toThrow(/load/);
  });
});
