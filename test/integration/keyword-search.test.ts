import { CandidateRepository } from '../../src/candidates/candidate-repository';
import type { CandidateDoc } from 'candidate-documents';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aCandidate, at } from '../support/builders';
import { rest } from '../support/rest-client';

/**
 * The keyword search as a partner uses it, on both transports: MongoDB's text search over the
 * professional text of a candidate (occupation names, roles and job descriptions, skills,
 * certifications, courses), never over `candidateMessage`; phrases, negation, stemming, case
 * and diacritics; ranked by relevance when asked; combined with the other filters.
 */

interface Page {
  totalElements: number;
  content: { publicId: string }[];
}

function withText(text: {
  role?: string;
  description?: string;
  skill?: string;
  certification?: string;
  course?: string;
  message?: string;
  occupation?: string;
  minutes: number;
}): CandidateDoc {
  return aCandidate({
    createdDate: at(text.minutes),
    candidateMessage: text.message,
    candidateOccupations: [
      {
        occupation: { isco08Code: text.occupation ?? '5120' },
        yearsExperience: 4,
        candidateJobExperiences:
          text.role || text.description ? [{ role: text.role, description: text.description }] : [],
      },
    ],
    candidateSkills: text.skill ? [{ skill: text.skill }] : [],
    candidateCertifications: text.certification
      ? [{ name: text.certification, institution: 'Institute', dateCompleted: '2020-01-01' }]
      : [],
    candidateEducations: text.course ? [{ courseName: text.course }] : [],
  });
}

describe('keyword search', () => {
  let service: AppUnderTest;
  let reader: string;
  const welder = withText({ role: 'Pipe welder', description: 'Welded pipelines for a refinery', minutes: 1 });
  const nurse = withText({ occupation: '2221', description: 'Intensive care ward', minutes: 2 });
  const baker = withText({ skill: 'Pastry and bread baking', course: 'Café management', minutes: 3 });
  const electrician = withText({ certification: 'Electrical installation licence', minutes: 4 });
  const messenger = withText({ message: 'I would love to work as a welder', role: 'Driver', minutes: 5 });
  const welderNurse = withText({
    occupation: '2221',
    role: 'Welder',
    description: 'Welding in a hospital workshop, then the intensive care ward',
    minutes: 6,
  });

  beforeAll(async () => {
    service = await startAppUnderTest();
    reader = await service.key('READ_CANDIDATE_DATA');
    await new CandidateRepository(service.db).insertMany([welder, nurse, baker, electrician, messenger, welderNurse]);
  });

  afterAll(async () => {
    await service?.stop();
  });

  const search = async (query: string): Promise<string[]> => {
    const { status, body } = await rest<Page>(service.url, 'GET', `/v1/candidates?limit=100&${query}`, { key: reader });
    expect(status).toBe(200);
    expect(body.totalElements).toBe(body.content.length);
    return body.content.map((c) => c.publicId);
  };
  const keyword = (text: string) => search(`keyword=${encodeURIComponent(text)}`);

  test('when a word of a role, a description, a skill, a certification or a course is searched, then the candidates holding it are found', async () => {
    expect(await keyword('refinery')).toEqual([welder.publicId]);
    expect(await keyword('pastry')).toEqual([baker.publicId]);
    expect(await keyword('licence')).toEqual([electrician.publicId]);
    expect(await keyword('management')).toEqual([baker.publicId]);
  });

  test('when an occupation name is searched, then candidates of that occupation are found (the name is not in their own text)', async () => {
    expect(await keyword('nursing professionals')).toEqual([nurse.publicId, welderNurse.publicId]);
  });

  test('when the word is only in candidateMessage, then the candidate is not found', async () => {
    expect(await keyword('love')).toEqual([]);
    expect(await keyword('welder')).not.toContain(messenger.publicId);
  });

  test('when words differ in form, case or diacritics, then they match (English stemming, case- and diacritic-insensitive)', async () => {
    expect(await keyword('WELDING')).toEqual([welder.publicId, welderNurse.publicId]);
    expect(await keyword('cafe')).toEqual([baker.publicId]);
    expect(await keyword('bakes')).toEqual([baker.publicId]);
  });

  test('when a phrase is quoted, then only candidates holding the phrase are found; a word with a minus excludes', async () => {
    expect(await keyword('"intensive care ward"')).toEqual([nurse.publicId, welderNurse.publicId]);
    expect(await keyword('"care intensive"')).toEqual([]);
    expect(await keyword('intensive -welding')).toEqual([nurse.publicId]);
  });

  test('when several words are searched, then a candidate holding any of them is found', async () => {
    expect(await keyword('pastry licence')).toEqual([baker.publicId, electrician.publicId]);
  });

  test('when sort=relevance, then the best text score comes first, then the order of creation', async () => {
    // welderNurse holds "welder" in its role and "welding" in its description; welder in its role and description.
    const ranked = await search(`keyword=${encodeURIComponent('welder hospital')}&sort=relevance`);
    const created = await search(`keyword=${encodeURIComponent('welder hospital')}`);

    expect(created).toEqual([welder.publicId, welderNurse.publicId]);
    expect(ranked).toEqual([welderNurse.publicId, welder.publicId]);
  });

  test('when the keyword comes with other filters, then all of them must hold', async () => {
    expect(await search(`keyword=welding&occupation=2221`)).toEqual([welderNurse.publicId]);
    expect(await search(`keyword=welding&occupation=2221&minYearsExperience=5`)).toEqual([]);
  });

  test('when sort=relevance comes without a keyword, then the answer is 400 naming sort; on GraphQL BAD_USER_INPUT', async () => {
    const { status, body } = await rest<{ type: string; detail: string }>(
      service.url,
      'GET',
      '/v1/candidates?sort=relevance',
      { key: reader },
    );
    const viaGraphql = await graphql(service.url, '{ candidates(sort: RELEVANCE) { totalElements } }', {}, reader);

    expect(status).toBe(400);
    expect(body.type).toMatch(/invalid-parameter$/);
    expect(body.detail).toContain('sort must be');
    expect(viaGraphql.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  test('when a ranked keyword search is paged as a connection, then the slices follow the ranking without repeats', async () => {
    const query = `query($after: String) {
      candidatesConnection(first: 1, after: $after, filter: { keyword: "welder hospital" }, sort: RELEVANCE) {
        totalCount pageInfo { hasNextPage endCursor } edges { node { publicId } }
      }
    }`;
    type Slice = {
      candidatesConnection: {
        totalCount: number;
        pageInfo: { hasNextPage: boolean; endCursor: string };
        edges: { node: { publicId: string } }[];
      };
    };
    const first = await graphql<Slice>(service.url, query, {}, reader);
    const second = await graphql<Slice>(
      service.url,
      query,
      { after: first.body.data!.candidatesConnection.pageInfo.endCursor },
      reader,
    );
    const created = await graphql(
      service.url,
      `
        query ($after: String) {
          candidatesConnection(first: 1, after: $after, filter: { keyword: "welder hospital" }) {
            totalCount
          }
        }
      `,
      { after: first.body.data!.candidatesConnection.pageInfo.endCursor },
      reader,
    );

    expect(first.body.data!.candidatesConnection.edges.map((e) => e.node.publicId)).toEqual([welderNurse.publicId]);
    expect(first.body.data!.candidatesConnection.pageInfo.hasNextPage).toBe(true);
    expect(second.body.data!.candidatesConnection.edges.map((e) => e.node.publicId)).toEqual([welder.publicId]);
    expect(second.body.data!.candidatesConnection.pageInfo.hasNextPage).toBe(false);
    expect(second.body.data!.candidatesConnection.totalCount).toBe(2);
    // A cursor of the ranking is not one of the order of creation.
    expect(created.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});
