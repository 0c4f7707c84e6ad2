import type { CandidateDoc, SavedListDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import { CandidateRepository } from '../../src/candidates/candidate-repository';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aCandidate, aSavedList } from '../support/builders';
import { rest } from '../support/rest-client';
import { modelSearch } from '../support/search-model';
import { TestClock } from '../support/test-clock';

/**
 * The filters of GET /v1/candidates beyond the contract's three codes, as documented in the
 * OpenAPI document: their syntax and bounds (a 400 `invalid-parameter` naming the parameter,
 * as on GraphQL a BAD_USER_INPUT), saved lists that name no list, statistics under the same
 * filter, and the employer's question answered by one request, where the contract's filters
 * needed every page of the occupation.
 */

const PROBLEMS = 'https://candidate-directory.example/problems/';
const NOW = '2026-03-01T00:00:00Z';
const CURRENT_YEAR = 2026;
/** Noise of a statistics total at ε = 10 (scale 0.2) goes beyond this with probability below e^-30. */
const NOISE_BOUND = 6;
/** Nurses in Jordan and Lebanon: more than two pages of 100 by the contract's filters. */
const NURSES = 230;

/**
 * Nurses in Jordan or Lebanon (and a few elsewhere, and a few in another occupation) whose
 * English levels, years of experience and ages vary independently, as an employer's question
 * meets them.
 */
function candidates(): CandidateDoc[] {
  const nurses = Array.from({ length: NURSES }, (_, i) =>
    aCandidate({
      countryIsoCode: i % 2 === 0 ? 'JO' : 'LB',
      yearOfBirth: 1965 + (i % 37),
      candidateOccupations: [
        { occupation: { isco08Code: '2221' }, yearsExperience: i % 11, candidateJobExperiences: [] },
        ...(i % 5 === 0
          ? [{ occupation: { isco08Code: '5120' }, yearsExperience: 9, candidateJobExperiences: [] }]
          : []),
      ],
      candidateLanguages: [
        { languageIsoCode: 'ar', spokenLevel: 6, writtenLevel: 6 },
        ...(i % 7 === 6 ? [] : [{ languageIsoCode: 'en', spokenLevel: i % 7, writtenLevel: (i * 3) % 7 }]),
      ],
    }),
  );
  const others = Array.from({ length: 20 }, (_, i) =>
    aCandidate({
      countryIsoCode: i % 2 === 0 ? 'TR' : 'JO',
      candidateOccupations: [
        { occupation: { isco08Code: i % 2 === 0 ? '2221' : '2211' }, yearsExperience: 8, candidateJobExperiences: [] },
      ],
      candidateLanguages: [{ languageIsoCode: 'en', spokenLevel: 6, writtenLevel: 6 }],
      ...(i % 4 === 1 ? { status: 'EMPLOYED' as const } : {}),
    }),
  );
  return [...nurses, ...others];
}

interface Page {
  content: { publicId: string }[];
  totalElements: number;
  totalPages: number;
}

describe('GET /v1/candidates: filters beyond the contract', () => {
  let service: AppUnderTest;
  let reader: string;
  let stored: CandidateDoc[];
  let list: SavedListDoc;

  beforeAll(async () => {
    service = await startAppUnderTest({ clock: new TestClock(NOW), config: { statisticsBudget: 1_000 } });
    reader = await service.key('READ_CANDIDATE_DATA');
    const all = candidates();
    await new CandidateRepository(service.db).insertMany(all);
    list = aSavedList({ candidatePublicIds: all.filter((_, i) => i % 9 === 4).map((c) => c.publicId) });
    await service.db.collection<SavedListDoc>(COLLECTIONS.savedLists).insertOne({ ...list });
    // The model reads the candidates as stored.
    stored = await service.db
      .collection<CandidateDoc>(COLLECTIONS.candidates)
      .find({}, { projection: { _id: 0 } })
      .toArray();
  });

  afterAll(async () => {
    await service?.stop();
  });

  const search = (query: string) =>
    rest<Page & { type?: string; detail?: string }>(service.url, 'GET', `/v1/candidates?${query}`, { key: reader });

  test.each([
    ['languages=en:B3', 'languages'],
    ['languages=en:B2:B1:C1', 'languages'],
    ['languages=english', 'languages'],
    ['languages=en:b2&languages=fr', 'languages'],
    ['exams=TOEIC', 'exams'],
    ['exams=IELTS_GEN:six', 'exams'],
    ['exams=IELTS_GEN:-1', 'exams'],
    ['exams=IELTS_GEN:6.5:7', 'exams'],
    ['minYearsExperience=abc', 'minYearsExperience'],
    ['minYearsExperience=2.5', 'minYearsExperience'],
    ['maxYearsExperience=81', 'maxYearsExperience'],
    ['minYearsExperience=5&maxYearsExperience=3', 'minYearsExperience'],
    ['minEducationLevel=9', 'minEducationLevel'],
    ['maxEducationLevel=-1', 'maxEducationLevel'],
    ['minAge=50&maxAge=40', 'minAge'],
    ['maxAge=200', 'maxAge'],
    [`keyword=${'a'.repeat(201)}`, 'keyword'],
    ['keyword=nurse%0Amidwife', 'keyword'],
    ['inSavedLists=list-1', 'inSavedLists'],
    [
      `notInSavedLists=${Array.from({ length: 11 }, (_, i) => `${'A'.repeat(20)}${String(i).padStart(2, '0')}`).join(',')}`,
      'notInSavedLists',
    ],
    ['sort=score', 'sort'],
    ['sort=relevance', 'sort'],
  ])('when the query is %s, then the answer is a 400 invalid-parameter naming %s', async (query, parameter) => {
    const { status, headers, body } = await search(query);

    expect(status).toBe(400);
    expect(headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(body.type).toBe(`${PROBLEMS}invalid-parameter`);
    expect(body.detail).toContain(`${parameter} must be`);
  });

  test.each([
    ['languages: [{ language: "english" }]', 'languages'],
    ['minYearsExperience: -1', 'minYearsExperience'],
    ['minAge: 50, maxAge: 40', 'minAge'],
    ['exams: [{ exam: TOEFL, minScore: -2 }]', 'exams'],
    ['inSavedLists: ["list-1"]', 'inSavedLists'],
  ])('when GraphQL is asked with %s, then the error is BAD_USER_INPUT naming %s', async (filter, parameter) => {
    const { body } = await graphql(service.url, `{ candidates(filter: { ${filter} }) { totalElements } }`, {}, reader);

    expect(body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0].message).toContain(`${parameter} must be`);
  });

  test('when a saved list id names no list, then inSavedLists matches no one and notInSavedLists excludes no one', async () => {
    const unknown = 'AAAAAAAAAAAAAAAAAAAAAA';
    const everyone = await search('limit=1');

    const inUnknown = await search(`inSavedLists=${unknown}`);
    const notInUnknown = await search(`notInSavedLists=${unknown}&limit=1`);

    expect(inUnknown.status).toBe(200);
    expect(inUnknown.body.totalElements).toBe(0);
    expect(notInUnknown.body.totalElements).toBe(everyone.body.totalElements);
  });

  test('when a saved list is named, then inSavedLists gives its candidates and notInSavedLists the others', async () => {
    const everyone = await search('limit=1&includeEmployed=true');

    const inList = await search(`inSavedLists=${list.publicId}&includeEmployed=true&limit=100`);
    const notInList = await search(`notInSavedLists=${list.publicId}&includeEmployed=true&limit=1`);

    expect(list.candidatePublicIds.length).toBeGreaterThan(0);
    expect(inList.body.totalElements).toBe(list.candidatePublicIds.length);
    expect(inList.body.content.map((c) => c.publicId).sort()).toEqual([...list.candidatePublicIds].sort());
    expect(notInList.body.totalElements).toBe(everyone.body.totalElements - list.candidatePublicIds.length);
  });

  test('when statistics are asked with the new filters, then the total counts the candidates the search selects, plus bounded noise', async () => {
    // Arrange: ε = 10, where the noise is almost always 0 and never beyond a few
    const analyst = await service.key('READ_STATISTICS');
    const filter = {
      location: ['JO'],
      languages: [{ language: 'en', minWrittenLevel: 'B1' as const }],
      minYearsExperience: 2,
      maxYearsExperience: 8,
      minAge: 30,
      inSavedLists: [list.publicId],
    };
    const expected = modelSearch(stored, filter, false, { currentYear: CURRENT_YEAR, lists: [list] });

    // Act
    const searched = await graphql<{ candidates: { totalElements: number } }>(
      service.url,
      'query($f: CandidateFilter) { candidates(filter: $f) { totalElements } }',
      { f: filter },
      reader,
    );
    const counted = await graphql<{ candidateStatistics: { total: number } }>(
      service.url,
      'query($f: CandidateFilter) { candidateStatistics(filter: $f, groupBy: [], epsilon: 10) { total } }',
      { f: filter },
      analyst,
    );

    // Assert
    expect(expected.length).toBeGreaterThan(0);
    expect(searched.body.data?.candidates.totalElements).toBe(expected.length);
    expect(counted.body.errors).toBeUndefined();
    expect(Math.abs(counted.body.data!.candidateStatistics.total - expected.length)).toBeLessThanOrEqual(NOISE_BOUND);
  });

  test("when an employer's question (location, occupation, a language at a level, years, age) is asked, then one page holds every match, where the contract's filters needed every page of the occupation", async () => {
    // Arrange: the question of an employer, and its brute-force answer
    const question = 'location=JO,LB&occupation=2221&languages=en:B2&minYearsExperience=3&maxAge=45&limit=100';
    const expected = modelSearch(
      stored,
      {
        location: ['JO', 'LB'],
        occupation: ['2221'],
        languages: [{ language: 'en', minSpokenLevel: 'B2' }],
        minYearsExperience: 3,
        maxAge: 45,
      },
      false,
      { currentYear: CURRENT_YEAR, lists: [] },
    );

    // Act: one request with the new filters; every page of the contract's filters, as a partner pages them
    const answer = await search(question);
    let downloaded = 0;
    let pages = 0;
    for (let page = 0; ; page++) {
      const old = await search(`location=JO,LB&occupation=2221&limit=100&page=${page}`);
      if (old.body.content.length === 0) break;
      downloaded += old.text.length;
      pages++;
    }

    // Assert
    expect(expected.length).toBeGreaterThan(0);
    expect(answer.body.totalPages).toBe(1);
    expect(answer.body.content.map((c) => c.publicId)).toEqual(expected.map((c) => c.publicId));
    expect(pages).toBe(Math.ceil(NURSES / 100));
    expect(answer.text.length * 5).toBeLessThan(downloaded);
  });
});
