import { CandidateRepository } from '../../src/candidates/candidate-repository';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aCandidate, at } from '../support/builders';
import { rest } from '../support/rest-client';

/**
 * Saved searches as a partner uses them: saved with GraphQL, run with `candidates(savedSearch:)`
 * and REST `GET /v1/saved-searches/{id}/candidates`, each the same page as the filter itself;
 * another key's search does not exist for a caller (null, NOT_FOUND, 404), ADMIN sees every key's.
 */

const SAVED_SEARCH_FIELDS = `id name includeEmployed inactiveCodes { field code }
  filter { location occupation languages { language minSpokenLevel minWrittenLevel } minAge }`;

interface SavedSearch {
  id: string;
  name: string;
  includeEmployed: boolean;
  inactiveCodes: { field: string; code: string }[];
  filter: Record<string, unknown>;
}

describe('saved searches', () => {
  let service: AppUnderTest;
  let owner: string;
  let other: string;
  let admin: string;
  const english = { candidateLanguages: [{ languageIsoCode: 'en', writtenLevel: 4, spokenLevel: 4 }] };
  const nurseInJordan = aCandidate({ createdDate: at(1), countryIsoCode: 'JO', ...english });
  const nurseInLebanon = aCandidate({ createdDate: at(2), countryIsoCode: 'LB', ...english });
  const employedNurse = aCandidate({ createdDate: at(3), countryIsoCode: 'JO', status: 'EMPLOYED', ...english });
  const arabicOnly = aCandidate({ createdDate: at(4), countryIsoCode: 'JO' });
  const filter = { location: ['jo'], languages: [{ language: 'en', minSpokenLevel: 'B2' }] };

  beforeAll(async () => {
    service = await startAppUnderTest();
    [owner, other, admin] = await Promise.all([
      service.key('READ_CANDIDATE_DATA'),
      service.key('READ_CANDIDATE_DATA'),
      service.key('ADMIN'),
    ]);
    await new CandidateRepository(service.db).insertMany([nurseInJordan, nurseInLebanon, employedNurse, arabicOnly]);
  });

  afterAll(async () => {
    await service?.stop();
  });

  const save = async (input: Record<string, unknown>, key = owner) =>
    graphql<{ createSavedSearch: SavedSearch }>(
      service.url,
      `mutation($input: SavedSearchInput!) { createSavedSearch(input: $input) { ${SAVED_SEARCH_FIELDS} } }`,
      { input },
      key,
    );

  const run = (id: string, key = owner, extra = '') =>
    graphql<{ candidates: { totalElements: number; content: { publicId: string }[] } }>(
      service.url,
      `query($id: ID!) { candidates(savedSearch: $id${extra}) { totalElements content { publicId } } }`,
      { id },
      key,
    );

  test('when a key saves a search, then GraphQL and REST run it as the same filter given each time', async () => {
    const { body } = await save({ name: 'Nurses in Jordan, English B2', filter });
    const saved = body.data!.createSavedSearch;
    expect(saved).toMatchObject({ name: 'Nurses in Jordan, English B2', includeEmployed: false, inactiveCodes: [] });
    expect(saved.filter).toMatchObject({ location: ['jo'], minAge: null });

    const ran = await run(saved.id);
    expect(ran.body.data!.candidates.content.map((c) => c.publicId)).toEqual([nurseInJordan.publicId]);

    const viaRest = await rest(service.url, 'GET', `/v1/saved-searches/${saved.id}/candidates?limit=5`, { key: owner });
    const direct = await rest(service.url, 'GET', '/v1/candidates?limit=5&location=JO&languages=en:B2', {
      key: owner,
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.text).toBe(direct.text);
  });

  test('when another key names the search, then it does not exist for it; an ADMIN key sees it', async () => {
    const saved = (await save({ name: 'Mine', filter })).body.data!.createSavedSearch;

    const read = await graphql<{ savedSearch: SavedSearch | null; savedSearches: SavedSearch[] }>(
      service.url,
      `
        query ($id: ID!) {
          savedSearch(id: $id) {
            id
          }
          savedSearches {
            id
          }
        }
      `,
      { id: saved.id },
      other,
    );
    expect(read.body.data).toEqual({ savedSearch: null, savedSearches: [] });
    expect((await run(saved.id, other)).body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const update = await graphql(
      service.url,
      `
        mutation ($id: ID!) {
          updateSavedSearch(id: $id, input: { name: "Taken" }) {
            id
          }
        }
      `,
      { id: saved.id },
      other,
    );
    expect(update.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const viaRest = await rest(service.url, 'GET', `/v1/saved-searches/${saved.id}/candidates`, { key: other });
    expect(viaRest.status).toBe(404);

    const all = await graphql<{ savedSearches: { id: string }[] }>(service.url, '{ savedSearches { id } }', {}, admin);
    expect(all.body.data!.savedSearches.map((s) => s.id)).toContain(saved.id);
  });

  test('when a search is updated or deleted, then its next run (REST too) follows the change', async () => {
    const saved = (await save({ name: 'To change', filter })).body.data!.createSavedSearch;
    const path = `/v1/saved-searches/${saved.id}/candidates`;
    expect((await rest(service.url, 'GET', path, { key: owner })).body.totalElements).toBe(1);

    const updated = await graphql<{ updateSavedSearch: SavedSearch }>(
      service.url,
      `mutation($id: ID!) { updateSavedSearch(id: $id, input: { includeEmployed: true }) { ${SAVED_SEARCH_FIELDS} } }`,
      { id: saved.id },
      owner,
    );
    expect(updated.body.data!.updateSavedSearch).toMatchObject({ name: 'To change', includeEmployed: true });
    expect((await rest(service.url, 'GET', path, { key: owner })).body.totalElements).toBe(2);

    const deleted = await graphql(
      service.url,
      `
        mutation ($id: ID!) {
          deleteSavedSearch(id: $id) {
            id
          }
        }
      `,
      {
        id: saved.id,
      },
      owner,
    );
    expect(deleted.body.data).toEqual({ deleteSavedSearch: { id: saved.id } });
    expect((await rest(service.url, 'GET', path, { key: owner })).status).toBe(404);
  });

  test('when a filter breaks a rule of the search or names an unknown code, then it is not saved (BAD_USER_INPUT)', async () => {
    const broken = await save({ name: 'Broken', filter: { minAge: 40, maxAge: 30, location: ['ZZ'] } });
    expect(broken.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(broken.body.errors?.[0].message).toMatch(/filter\.minAge/);
    const unknownCode = await save({ name: 'Unknown', filter: { location: ['ZZ'] } });
    expect(unknownCode.body.errors?.[0].message).toMatch(/filter\.location must be active codes of the reference data/);
    const blank = await save({ name: '  ', filter });
    expect(blank.body.errors?.[0].message).toMatch(/name must be/);
  });

  test('when `filter` is given beside `savedSearch`, then the search fails with BAD_USER_INPUT', async () => {
    const saved = (await save({ name: 'Alone', filter })).body.data!.createSavedSearch;
    const both = await run(saved.id, owner, ', filter: { location: ["LB"] }');
    expect(both.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  test('when a key without READ_CANDIDATE_DATA saves a search, then it fails with FORBIDDEN', async () => {
    const statistician = await service.key('READ_STATISTICS');
    expect((await save({ name: 'No', filter }, statistician)).body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
