import type { CandidateDoc, SavedListDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aSavedList } from '../support/builders';
import { fullSelection } from '../support/full-selection';
import { nullPaths, rest } from '../support/rest-client';

const CANDIDATE_COUNT = 300;
const PROBLEMS = 'https://candidate-directory.example/problems/';
const UNKNOWN_ID = 'ZZZZZZZZZZZZZZZZZZZZZZ';

interface Page {
  content: { publicId: string; [field: string]: unknown }[];
  totalElements: number;
  totalPages: number;
  size: number;
  number: number;
}

/**
 * A GraphQL answer as REST shapes it: nulls omitted, no `partner`, no global ids (`Node.id`,
 * strings; EducationMajor's numeric `id` is the contract's), EducationLevel without `name`.
 */
function asRest(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => asRest(item));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(value)) {
    if (item === null || field === 'partner' || (field === 'id' && typeof item === 'string')) continue;
    if (field === 'name' && (key === 'maxEducationLevel' || key === 'partnerEduLevel')) continue;
    out[field] = asRest(item, field);
  }
  return out;
}

describe('GET /v1/candidates/{publicId} and /v1/candidates/by-list/{publicListId}', () => {
  let service: AppUnderTest;
  let reader: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: CANDIDATE_COUNT, seed: 12 });
    reader = await service.key('READ_CANDIDATE_DATA');
  });

  afterAll(async () => {
    await service.stop();
  });

  const candidates = () => service.db.collection<CandidateDoc>(COLLECTIONS.candidates);
  const savedLists = () => service.db.collection<SavedListDoc>(COLLECTIONS.savedLists);
  const richCandidate = async () => {
    const stored = await candidates().findOne({
      partnerPublicId: { $exists: true },
      maxEducationLevel: { $gte: 4 },
      'candidateVisaChecks.candidateVisaJobChecks.jobOppPublicId': { $exists: true },
      'candidateEducations.educationMajorId': { $exists: true },
    });
    expect(stored).not.toBeNull();
    return stored!;
  };

  describe('one candidate', () => {
    test('when the candidate exists, then every recorded field comes, with educationType in maxEducationLevel and no partner', async () => {
      const stored = await richCandidate();

      const { status, headers, body } = await rest(service.url, 'GET', `/v1/candidates/${stored.publicId}`, {
        key: reader,
      });

      expect(status).toBe(200);
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(body.publicId).toBe(stored.publicId);
      expect(body.partnerPublicId).toBe(stored.partnerPublicId);
      expect(body).not.toHaveProperty('partner');
      expect(Object.keys(body.maxEducationLevel).sort()).toEqual(['educationType', 'level', 'status']);
      expect(body.country).toEqual({ isoCode: stored.countryIsoCode, name: expect.any(String), status: 'ACTIVE' });
      expect(nullPaths(body)).toEqual([]);
    });

    test('when REST and GraphQL read the same candidate, then they carry the same values, nulls aside', async () => {
      const stored = await richCandidate();

      const viaRest = await rest(service.url, 'GET', `/v1/candidates/${stored.publicId}`, { key: reader });
      const viaGraphQL = await graphql<{ candidate: Record<string, unknown> }>(
        service.url,
        `query($id: PublicId!) { candidate(publicId: $id) { ${fullSelection('Candidate', 0)} } }`,
        { id: stored.publicId },
        reader,
      );

      expect(viaGraphQL.body.errors).toBeUndefined();
      expect(viaRest.body).toEqual(asRest(viaGraphQL.body.data!.candidate));
    });

    test('when no candidate has the id, then the answer is a 404 problem', async () => {
      const { status, body } = await rest(service.url, 'GET', `/v1/candidates/${UNKNOWN_ID}`, { key: reader });

      expect(status).toBe(404);
      expect(body).toEqual({
        type: `${PROBLEMS}not-found`,
        title: 'Resource not found',
        status: 404,
        detail: 'No candidate has this public id.',
        instance: `/v1/candidates/${UNKNOWN_ID}`,
      });
    });

    test.each([
      ['not-an-id'],
      ['ZZZZZZZZZZZZZZZZZZZZZ'],
      ['ZZZZZZZZZZZZZZZZZZZZZZZ'],
      ['ZZZZZZZZZZZZZZZZZZZZ%2BZ'],
      ['ZZZZZZZZZZZZZZZZZZZZZ='],
      ['6f1c1b2e-5d0a-4b8e-9a35-2b8f4f0e7c11'],
    ])('when the id is %s, then the answer is 400 naming publicId', async (id) => {
      const { status, body } = await rest(service.url, 'GET', `/v1/candidates/${id}`, { key: reader });

      expect(status).toBe(400);
      expect(body.type).toBe(`${PROBLEMS}invalid-parameter`);
      expect(body.detail).toContain('publicId must be');
    });

    test('when a query parameter is sent, then the answer is 400 (the operation has none)', async () => {
      const stored = await richCandidate();

      const { status, body } = await rest(service.url, 'GET', `/v1/candidates/${stored.publicId}?fields=all`, {
        key: reader,
      });

      expect(status).toBe(400);
      expect(body.detail).toContain('fields is not a parameter');
    });

    test('when no key or a key without READ_CANDIDATE_DATA is sent, then the answer is 401 or 403', async () => {
      const stored = await richCandidate();
      const registrar = await service.key('REGISTER_CANDIDATES');

      const anonymous = await rest(service.url, 'GET', `/v1/candidates/${stored.publicId}`);
      const forbidden = await rest(service.url, 'GET', `/v1/candidates/${stored.publicId}`, { key: registrar });

      expect(anonymous.status).toBe(401);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).not.toHaveProperty('publicId');
    });
  });

  describe('candidates of a saved list', () => {
    const largest = async () =>
      (await savedLists().find({}).toArray()).sort(
        (a, b) => b.candidatePublicIds.length - a.candidatePublicIds.length,
      )[0];

    test('when a page of a list is read, then it keeps the list order and gives true totals for the whole list', async () => {
      const list = await largest();
      const ids = list.candidatePublicIds;

      const { status, body } = await rest<Page>(
        service.url,
        'GET',
        `/v1/candidates/by-list/${list.publicId}?page=1&limit=3`,
        { key: reader },
      );

      expect(status).toBe(200);
      expect(body.totalElements).toBe(ids.length);
      expect(body.totalPages).toBe(Math.ceil(ids.length / 3));
      expect(body.size).toBe(3);
      expect(body.number).toBe(1);
      expect(body.content.map((c) => c.publicId)).toEqual(ids.slice(3, 6));
    });

    test('when every page of a list is read, then the pages concatenate to the list', async () => {
      const list = await largest();

      const seen: string[] = [];
      for (let page = 0; ; page++) {
        const { body } = await rest<Page>(
          service.url,
          'GET',
          `/v1/candidates/by-list/${list.publicId}?limit=40&page=${page}`,
          { key: reader },
        );
        if (body.content.length === 0) break;
        seen.push(...body.content.map((c) => c.publicId));
      }

      expect(seen).toEqual(list.candidatePublicIds);
    });

    test('when the defaults are used, then page 0 of 10 comes, and listed candidates have maxEducationLevel with level and status only', async () => {
      const list = await largest();

      const { body } = await rest<Page>(service.url, 'GET', `/v1/candidates/by-list/${list.publicId}`, { key: reader });

      expect(body.number).toBe(0);
      expect(body.size).toBe(10);
      expect(body.content).toHaveLength(Math.min(10, list.candidatePublicIds.length));
      for (const c of body.content.filter((c) => c.maxEducationLevel)) {
        expect(Object.keys(c.maxEducationLevel as object).sort()).toEqual(['level', 'status']);
      }
      expect(nullPaths(body)).toEqual([]);
    });

    test('when the list holds an id that is no longer a candidate, then it is skipped and not counted', async () => {
      const [a, b] = await candidates().find({}, { limit: 2 }).toArray();
      const list = aSavedList({ candidatePublicIds: [a.publicId, UNKNOWN_ID, b.publicId] });
      await savedLists().insertOne({ ...list });

      const { body } = await rest<Page>(service.url, 'GET', `/v1/candidates/by-list/${list.publicId}`, { key: reader });

      expect(body.totalElements).toBe(2);
      expect(body.content.map((c) => c.publicId)).toEqual([a.publicId, b.publicId]);
    });

    test('when a page past the end of the list is read, then content is empty and the totals are true', async () => {
      const list = await largest();

      const { status, body } = await rest<Page>(
        service.url,
        'GET',
        `/v1/candidates/by-list/${list.publicId}?page=50&limit=100`,
        { key: reader },
      );

      expect(status).toBe(200);
      expect(body).toEqual({
        content: [],
        totalElements: list.candidatePublicIds.length,
        totalPages: Math.ceil(list.candidatePublicIds.length / 100),
        size: 100,
        number: 50,
      });
    });

    test('when no list has the id, then the answer is a 404 problem', async () => {
      const { status, body } = await rest(service.url, 'GET', `/v1/candidates/by-list/${UNKNOWN_ID}`, { key: reader });

      expect(status).toBe(404);
      expect(body).toMatchObject({ type: `${PROBLEMS}not-found`, detail: 'No saved list has this public id.' });
    });

    test.each([
      ['/v1/candidates/by-list/short', 'publicListId'],
      ['/v1/candidates/by-list/LIST?page=-1', 'page'],
      ['/v1/candidates/by-list/LIST?limit=0', 'limit'],
      ['/v1/candidates/by-list/LIST?limit=101', 'limit'],
      ['/v1/candidates/by-list/LIST?page=x', 'page'],
      ['/v1/candidates/by-list/LIST?location=LB', 'location'],
    ])('when the request is %s, then the answer is 400 naming %s', async (path, parameter) => {
      const list = await largest();

      const { status, body } = await rest(service.url, 'GET', path.replace('LIST', list.publicId), { key: reader });

      expect(status).toBe(400);
      expect(body.type).toBe(`${PROBLEMS}invalid-parameter`);
      expect(body.detail).toContain(parameter);
    });

    test.each([
      ['?limit=500', 'limit'],
      ['?limit=0', 'limit'],
      ['?page=-1', 'page'],
      ['?page=-1&limit=101', 'page must be an integer >= 0; limit'],
    ])(
      'when no list has the id and the parameters are %s, then the answer is 400 naming %s: input is checked before anything is looked up',
      async (query, parameter) => {
        const { status, body } = await rest(service.url, 'GET', `/v1/candidates/by-list/${UNKNOWN_ID}${query}`, {
          key: reader,
        });

        expect([status, body.type]).toEqual([400, `${PROBLEMS}invalid-parameter`]);
        expect(body.detail).toContain(parameter);
      },
    );

    test('when no key or a key without READ_CANDIDATE_DATA is sent, then the answer is 401 or 403', async () => {
      const list = await largest();
      const matcher = await service.key('SUBMIT_JOB_MATCHES');

      const anonymous = await rest(service.url, 'GET', `/v1/candidates/by-list/${list.publicId}`);
      const forbidden = await rest(service.url, 'GET', `/v1/candidates/by-list/${list.publicId}`, { key: matcher });

      expect(anonymous.status).toBe(401);
      expect(forbidden.status).toBe(403);
    });
  });
});
