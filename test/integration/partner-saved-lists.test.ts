import { newPublicId, type SavedListDoc } from 'candidate-documents';
import { CandidateRepository } from '../../src/candidates/candidate-repository';
import { MAX_SAVED_LISTS_PER_KEY, MAX_SAVED_LIST_SIZE } from '../../src/candidates/saved-list-service';
import { SavedListRepository } from '../../src/candidates/saved-list-repository';
import { COLLECTIONS } from '../../src/app/indexes';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aCandidate, aSavedList, at } from '../support/builders';
import { rest } from '../support/rest-client';

/**
 * Partners' own saved lists: made and changed with GraphQL by a READ_CANDIDATE_DATA key, read
 * like any list (REST by-list, `savedList`, the `inSavedLists` filter) by that key alone; for
 * another key they do not exist (404, null, no members). Lists loaded with the data stay
 * read-only. Unknown candidates are named in the NOT_FOUND; sizes and counts are bounded.
 */

interface List {
  publicId: string;
  name: string;
  candidates: { totalElements: number; content: { publicId: string }[] };
}

const LIST_FIELDS = 'publicId name candidates(limit: 100) { totalElements content { publicId } }';

describe("partners' saved lists", () => {
  let service: AppUnderTest;
  let owner: string;
  let other: string;
  const [first, second, third] = [1, 2, 3].map((minutes) => aCandidate({ createdDate: at(minutes) }));
  const loaded = aSavedList({ name: 'Loaded with the data', candidatePublicIds: [second.publicId] });

  beforeAll(async () => {
    service = await startAppUnderTest();
    [owner, other] = await Promise.all([service.key('READ_CANDIDATE_DATA'), service.key('READ_CANDIDATE_DATA')]);
    await new CandidateRepository(service.db).insertMany([first, second, third]);
    await new SavedListRepository(service.db).insert(loaded);
  });

  afterAll(async () => {
    await service?.stop();
  });

  const mutate = async <T = List>(field: string, args: string, variables: Record<string, unknown>, key = owner) => {
    const { body } = await graphql<Record<string, T>>(
      service.url,
      `mutation(${args}) { ${field} { ${LIST_FIELDS} } }`,
      variables,
      key,
    );
    return { list: body.data?.[field.split('(')[0]], error: body.errors?.[0] };
  };
  const create = (name: string, candidates: string[], key = owner) =>
    mutate(
      'createSavedList(input: { name: $name, candidates: $candidates })',
      '$name: String!, $candidates: [PublicId!]',
      { name, candidates },
      key,
    );
  const add = (publicId: string, candidates: string[], key = owner) =>
    mutate(
      'addToSavedList(publicId: $id, candidates: $candidates)',
      '$id: PublicId!, $candidates: [PublicId!]!',
      { id: publicId, candidates },
      key,
    );
  const ids = (list: List | undefined) => list?.candidates.content.map((c) => c.publicId);

  test('when a key makes a list, then it reads it like any list, and for another key it does not exist', async () => {
    const { list } = await create('ICU shortlist', [third.publicId, first.publicId]);
    expect(ids(list)).toEqual([third.publicId, first.publicId]);
    const path = `/v1/candidates/by-list/${list!.publicId}`;
    const search = `/v1/candidates?inSavedLists=${list!.publicId}`;

    const mine = await rest(service.url, 'GET', path, { key: owner });
    expect(mine.body.content.map((c: { publicId: string }) => c.publicId)).toEqual([third.publicId, first.publicId]);
    expect((await rest(service.url, 'GET', search, { key: owner })).body.totalElements).toBe(2);
    const overview = await rest(service.url, 'GET', '/v1/saved-lists', { key: owner });
    expect(overview.body).toEqual([
      { publicId: loaded.publicId, name: 'Loaded with the data', size: 1, readOnly: true },
      { publicId: list!.publicId, name: 'ICU shortlist', size: 2, readOnly: false },
    ]);

    // The same URLs again, by another key: none of the answers kept for the owner.
    expect((await rest(service.url, 'GET', path, { key: other })).status).toBe(404);
    expect((await rest(service.url, 'GET', search, { key: other })).body.totalElements).toBe(0);
    expect((await rest(service.url, 'GET', '/v1/saved-lists', { key: other })).body).toEqual([
      { publicId: loaded.publicId, name: 'Loaded with the data', size: 1, readOnly: true },
    ]);
    const searchByList = (key: string) =>
      graphql<{ candidates: { totalElements: number } }>(
        service.url,
        'query($id: ID!) { candidates(filter: { inSavedLists: [$id] }) { totalElements } }',
        { id: list!.publicId },
        key,
      );
    expect((await searchByList(owner)).body.data?.candidates.totalElements).toBe(2);
    expect((await searchByList(other)).body.data?.candidates.totalElements).toBe(0);
    const read = await graphql(
      service.url,
      'query($id: PublicId!) { savedList(publicId: $id) { name } }',
      { id: list!.publicId },
      other,
    );
    expect(read.body.data).toEqual({ savedList: null });
    for (const change of [
      add(list!.publicId, [second.publicId], other),
      mutate('deleteSavedList(publicId: $id)', '$id: PublicId!', { id: list!.publicId }, other),
    ])
      expect((await change).error?.extensions?.code).toBe('NOT_FOUND');
  });

  test('when candidates are added, removed, the list renamed and deleted, then each read follows', async () => {
    const { list } = await create('Changing', [first.publicId]);
    const id = list!.publicId;
    expect(ids((await add(id, [third.publicId, first.publicId, second.publicId])).list)).toEqual([
      first.publicId,
      third.publicId,
      second.publicId,
    ]);
    const removed = await mutate(
      'removeFromSavedList(publicId: $id, candidates: $candidates)',
      '$id: PublicId!, $candidates: [PublicId!]!',
      { id, candidates: [third.publicId] },
    );
    expect(ids(removed.list)).toEqual([first.publicId, second.publicId]);
    const renamed = await mutate('renameSavedList(publicId: $id, name: $name)', '$id: PublicId!, $name: String!', {
      id,
      name: 'Renamed',
    });
    expect(renamed.list?.name).toBe('Renamed');
    const page = await rest(service.url, 'GET', `/v1/candidates/by-list/${id}`, { key: owner });
    expect(page.body.totalElements).toBe(2);

    expect((await mutate('deleteSavedList(publicId: $id)', '$id: PublicId!', { id })).list?.name).toBe('Renamed');
    expect((await rest(service.url, 'GET', `/v1/candidates/by-list/${id}`, { key: owner })).status).toBe(404);
  });

  test('when unknown candidates are named, then NOT_FOUND names them and the list is unchanged', async () => {
    const { list } = await create('Strict', [first.publicId]);
    const unknown = [newPublicId(), newPublicId()];

    const added = await add(list!.publicId, [second.publicId, ...unknown]);
    expect(added.error?.extensions?.code).toBe('NOT_FOUND');
    expect(added.error?.message).toBe(`Candidate(s) not found: ${unknown.join(', ')}.`);
    const made = await create('Never made', [unknown[0]]);
    expect(made.error?.message).toBe(`Candidate(s) not found: ${unknown[0]}.`);
    const page = await rest(service.url, 'GET', `/v1/candidates/by-list/${list!.publicId}`, { key: owner });
    expect(page.body.content.map((c: { publicId: string }) => c.publicId)).toEqual([first.publicId]);
  });

  test('when a list loaded with the data is to be changed, then it is FORBIDDEN and stays as loaded', async () => {
    const { error } = await add(loaded.publicId, [first.publicId]);
    expect(error?.extensions?.code).toBe('FORBIDDEN');
    const renamed = await mutate('renameSavedList(publicId: $id, name: $name)', '$id: PublicId!, $name: String!', {
      id: loaded.publicId,
      name: 'Mine now',
    });
    expect(renamed.error?.extensions?.code).toBe('FORBIDDEN');
    const page = await rest(service.url, 'GET', `/v1/candidates/by-list/${loaded.publicId}`, { key: other });
    expect(page.body.content.map((c: { publicId: string }) => c.publicId)).toEqual([second.publicId]);
  });

  test('when a list is full or a key has its most lists, then the change is refused (BAD_USER_INPUT)', async () => {
    const limited = await service.key('READ_CANDIDATE_DATA');
    const { list } = await create('Almost full', [first.publicId], limited);
    const lists = service.db.collection<SavedListDoc>(COLLECTIONS.savedLists);
    const stored = await lists.findOne({ publicId: list!.publicId });
    const filler = Array.from({ length: MAX_SAVED_LIST_SIZE - 2 }, () => newPublicId());
    await lists.updateOne({ publicId: list!.publicId }, { $push: { candidatePublicIds: { $each: filler } } });

    expect((await add(list!.publicId, [second.publicId], limited)).error).toBeUndefined();
    const over = await add(list!.publicId, [third.publicId], limited);
    expect(over.error?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(over.error?.message).toMatch(`at most ${MAX_SAVED_LIST_SIZE} candidates`);

    const more = Array.from({ length: MAX_SAVED_LISTS_PER_KEY - 1 }, (_, i) =>
      aSavedList({ name: `Filler ${i}`, ownerKeyId: stored!.ownerKeyId }),
    );
    await lists.insertMany(more);
    const refused = await create('One too many', [], limited);
    expect(refused.error?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(refused.error?.message).toMatch(`at most ${MAX_SAVED_LISTS_PER_KEY} saved lists`);
  });
});
