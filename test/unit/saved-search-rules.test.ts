import type { ApiKeyRecord } from '../../src/auth/api-key-repository';
import type { SavedSearchDoc, SavedSearchRepository } from '../../src/candidates/saved-search-repository';
import {
  MAX_SAVED_SEARCHES_PER_KEY,
  SavedSearchService,
  type ReferenceCodes,
} from '../../src/candidates/saved-search-service';
import { TestClock } from '../support/test-clock';

/**
 * The rules of saved searches that need no store: the limit per key, and codes that the
 * reference data stops listing as active after the search was saved (reported, never dropped).
 */

function inMemory(): SavedSearchRepository {
  const searches = new Map<string, SavedSearchDoc>();
  const repository: Pick<SavedSearchRepository, 'insert' | 'findById' | 'list' | 'countOf' | 'update' | 'remove'> = {
    insert: async (search) => void searches.set(search.id, search),
    findById: async (id) => searches.get(id) ?? null,
    list: async (owner) => [...searches.values()].filter((s) => owner === undefined || s.ownerKeyId === owner),
    countOf: async (owner) => [...searches.values()].filter((s) => s.ownerKeyId === owner).length,
    update: async (id, changes) => {
      const current = searches.get(id);
      if (current === undefined) return null;
      searches.set(id, { ...current, ...changes });
      return searches.get(id)!;
    },
    remove: async (id) => searches.delete(id),
  };
  return repository as SavedSearchRepository;
}

/** Reference data of a few codes, whose statuses a test changes. */
function reference(statuses: Record<string, string>): ReferenceCodes {
  const find = (_collection: string, key: unknown) => {
    const status = statuses[String(key)];
    return status === undefined ? null : { status };
  };
  const keys = (collection: string) => (collection === 'languageLevels' ? [] : [0, 1, 2]);
  return { find, keys } as unknown as ReferenceCodes;
}

const caller: ApiKeyRecord = {
  id: 'key_partner00001',
  name: 'partner',
  prefix: 'cd_',
  permissions: ['READ_CANDIDATE_DATA'],
  createdDate: new Date('2026-01-01T00:00:00Z'),
};

describe('saved search rules', () => {
  test('when a key has saved the most searches it may, then the next one is refused (BAD_USER_INPUT)', async () => {
    const service = new SavedSearchService(inMemory(), reference({ JO: 'ACTIVE' }), new TestClock('2026-01-01'));
    for (let i = 0; i < MAX_SAVED_SEARCHES_PER_KEY; i++)
      await service.create(caller, { name: `Search ${i}`, filter: { location: ['JO'] } });

    await expect(service.create(caller, { name: 'One more', filter: { location: ['JO'] } })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: [{ parameter: 'savedSearches', rule: `at most ${MAX_SAVED_SEARCHES_PER_KEY} per API key` }],
    });
    const another = { ...caller, id: 'key_partner00002' };
    await expect(service.create(another, { name: 'First', filter: null })).resolves.toMatchObject({ name: 'First' });
  });

  test('when the reference data marks a saved code inactive, then the search reports it and keeps it', async () => {
    const statuses: Record<string, string> = { JO: 'ACTIVE', LB: 'ACTIVE', '2221': 'ACTIVE', en: 'ACTIVE' };
    const repository = inMemory();
    const filter = { location: ['jo', 'LB'], occupation: ['2221'], languages: [{ language: 'en' }] };
    const saved = await new SavedSearchService(repository, reference(statuses), new TestClock('2026-01-01')).create(
      caller,
      { name: 'Nurses', filter },
    );
    expect(saved.inactiveCodes).toEqual([]);

    const later = new SavedSearchService(
      repository,
      reference({ ...statuses, LB: 'INACTIVE', en: 'DELETED' }),
      new TestClock('2026-06-01'),
    );
    const read = await later.find(caller, saved.id);
    expect(read?.inactiveCodes).toEqual([
      { field: 'location', code: 'LB' },
      { field: 'languages', code: 'en' },
    ]);
    expect(read?.filter).toEqual(filter);
    await expect(later.searchOf(caller, saved.id)).resolves.toEqual({ filter, includeEmployed: false });
  });
});
