import type { CandidateDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { nullPaths, rest } from '../support/rest-client';

const CANDIDATE_COUNT = 300;
const PROBLEMS = 'https://candidate-directory.example/problems/';

interface Page {
  content: { publicId: string; [field: string]: unknown }[];
  totalElements: number;
  totalPages: number;
  size: number;
  number: number;
}

/** What an error answer adds (the same request may give either). */
interface Problem {
  type: string;
  title: string;
  detail: string;
  instance: string;
}

describe('GET /v1/candidates (findCandidates)', () => {
  let service: AppUnderTest;
  let reader: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: CANDIDATE_COUNT, seed: 11 });
    reader = await service.key('READ_CANDIDATE_DATA');
  });

  afterAll(async () => {
    await service.stop();
  });

  const candidates = () => service.db.collection<CandidateDoc>(COLLECTIONS.candidates);
  const search = (query = '', key = reader) =>
    rest<Page & Partial<Problem>>(service.url, 'GET', `/v1/candidates${query}`, { key });
  const notEmployed = { status: { $ne: 'EMPLOYED' as const } };

  describe('authentication and permission', () => {
    test('when no API key is sent, then the answer is a 401 problem', async () => {
      const { status, headers, body } = await rest(service.url, 'GET', '/v1/candidates');

      expect(status).toBe(401);
      expect(headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(body).toMatchObject({ type: `${PROBLEMS}unauthenticated`, status: 401, instance: '/v1/candidates' });
    });

    test('when the key is unknown, then the answer is 401 even for invalid parameters', async () => {
      const { status } = await search('?limit=0', `cdk_${'A'.repeat(43)}`);

      expect(status).toBe(401);
    });

    test('when the key lacks READ_CANDIDATE_DATA, then the answer is 403 before parameters are checked', async () => {
      const matcher = await service.key('SUBMIT_JOB_MATCHES');

      const { status, body } = await search('?limit=0', matcher);

      expect(status).toBe(403);
      expect(body).toMatchObject({ type: `${PROBLEMS}forbidden`, title: 'Permission denied' });
      expect(body.detail).toContain('READ_CANDIDATE_DATA');
    });
  });

  describe('paging', () => {
    test('when no parameter is given, then page 0 of 10 candidates comes with true totals', async () => {
      const total = await candidates().countDocuments(notEmployed);

      const { status, headers, body } = await search();

      expect(status).toBe(200);
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(body).toMatchObject({ totalElements: total, totalPages: Math.ceil(total / 10), size: 10, number: 0 });
      expect(body.content).toHaveLength(10);
    });

    test.each([
      ['?page=0', 0, 10],
      ['?limit=1', 0, 1],
      ['?limit=100', 0, 100],
      ['?page=2&limit=7', 2, 7],
      ['?page=007', 7, 10],
    ])('when the query is %s, then the page is %i of size %i', async (query, number, size) => {
      const { status, body } = await search(query);

      expect(status).toBe(200);
      expect(body.number).toBe(number);
      expect(body.size).toBe(size);
      expect(body.content).toHaveLength(size);
    });

    test.each([
      ['?page=-1', 'page'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=-5', 'limit'],
      ['?page=abc', 'page'],
      ['?page=1.5', 'page'],
      ['?limit=2.0', 'limit'],
      ['?page=', 'page'],
      ['?limit=1e2', 'limit'],
      ['?page=%2B1', 'page'],
      ['?page=99999999999', 'page'],
      ['?page=1&page=2', 'page'],
      ['?limit=10&limit=10', 'limit'],
    ])('when the query is %s, then the answer is 400 naming %s and its rule', async (query, parameter) => {
      const { status, body } = await search(query);

      expect(status).toBe(400);
      expect(body).toMatchObject({
        type: `${PROBLEMS}invalid-parameter`,
        title: 'Invalid request parameter',
        status: 400,
        instance: '/v1/candidates',
      });
      expect(body.detail).toContain(`${parameter} must be`);
    });

    test('when a page past the end is asked for, then content is empty and the totals are true', async () => {
      const total = await candidates().countDocuments(notEmployed);

      const { status, body } = await search('?page=1000&limit=10');

      expect(status).toBe(200);
      expect(body).toEqual({
        content: [],
        totalElements: total,
        totalPages: Math.ceil(total / 10),
        size: 10,
        number: 1000,
      });
    });

    test('when paging through every candidate, then the pages concatenate to the whole set in (createdDate, publicId) order', async () => {
      const seen: string[] = [];
      for (let page = 0; ; page++) {
        const { body } = await search(`?includeEmployed=true&limit=70&page=${page}`);
        if (body.content.length === 0) break;
        seen.push(...body.content.map((c) => c.publicId));
      }
      const ordered = await candidates()
        .find({}, { sort: { createdDate: 1, publicId: 1 }, projection: { publicId: 1 } })
        .toArray();

      expect(seen).toEqual(ordered.map((c) => c.publicId));
    });

    test('when an unknown query parameter is sent, then the answer is 400 naming it instead of ignoring it', async () => {
      const { status, body } = await search('?limt=5');

      expect(status).toBe(400);
      expect(body.detail).toContain('limt is not a parameter of this operation');
    });
  });

  describe('filters', () => {
    test('when one parameter lists several codes, then they are ORed, trimmed and case-insensitive', async () => {
      const expected = await candidates().countDocuments({ countryIsoCode: { $in: ['LB', 'JO'] }, ...notEmployed });

      const { status, body } = await search(`?location=${encodeURIComponent(' lb, Jo ')}`);

      expect(status).toBe(200);
      expect(expected).toBeGreaterThan(0);
      expect(body.totalElements).toBe(expected);
    });

    test('when nationality codes are given, then only candidates of those nationalities come', async () => {
      const expected = await candidates().countDocuments({ nationalityIsoCode: { $in: ['SY', 'AF'] }, ...notEmployed });

      const { body } = await search('?nationality=sy,AF&limit=100');

      expect(expected).toBeGreaterThan(0);
      expect(body.totalElements).toBe(expected);
      expect(body.content.every((c) => ['SY', 'AF'].includes((c.nationality as { isoCode: string }).isoCode))).toBe(
        true,
      );
    });

    test('when occupation codes are given, then a candidate with any occupation of those codes matches', async () => {
      const [sample] = await candidates()
        .find({ 'candidateOccupations.1': { $exists: true }, ...notEmployed }, { limit: 1 })
        .toArray();
      const code = sample.candidateOccupations![1].occupation!.isco08Code;
      const expected = await candidates().countDocuments({
        'candidateOccupations.occupation.isco08Code': { $in: [code, '9999'] },
        ...notEmployed,
      });

      const { body } = await search(`?occupation=${code},9999&limit=100`);

      expect(body.totalElements).toBe(expected);
      expect(body.content.map((c) => c.publicId)).toContain(sample.publicId);
    });

    test('when several parameters are given, then they are ANDed', async () => {
      const [sample] = await candidates()
        .find({ 'candidateOccupations.0': { $exists: true }, ...notEmployed }, { limit: 1 })
        .toArray();
      const code = sample.candidateOccupations![0].occupation!.isco08Code;
      const expected = await candidates().countDocuments({
        countryIsoCode: sample.countryIsoCode,
        nationalityIsoCode: sample.nationalityIsoCode,
        'candidateOccupations.occupation.isco08Code': code,
        ...notEmployed,
      });
      const onlyLocation = await candidates().countDocuments({ countryIsoCode: sample.countryIsoCode, ...notEmployed });

      const { body } = await search(
        `?location=${sample.countryIsoCode!.toLowerCase()}&nationality=${sample.nationalityIsoCode}&occupation=${code}&limit=100`,
      );

      expect(body.totalElements).toBe(expected);
      expect(expected).toBeLessThan(onlyLocation);
      expect(body.content.map((c) => c.publicId)).toContain(sample.publicId);
    });

    test('when a code parameter is empty, then it does not restrict the search', async () => {
      const all = await candidates().countDocuments(notEmployed);

      const { status, body } = await search('?location=&occupation=,');

      expect(status).toBe(200);
      expect(body.totalElements).toBe(all);
    });

    test.each([
      ['?location=Lebanon', 'location'],
      ['?nationality=SYR', 'nationality'],
      ['?occupation=22x1', 'occupation'],
      ['?location=LB&location=JO', 'location'],
    ])('when the query is %s, then the answer is 400 naming %s', async (query, parameter) => {
      const { status, body } = await search(query);

      expect(status).toBe(400);
      expect(body.type).toBe(`${PROBLEMS}invalid-parameter`);
      expect(body.detail).toContain(parameter);
    });
  });

  describe('includeEmployed', () => {
    test('when includeEmployed is absent, false or true, then EMPLOYED candidates are hidden, hidden, shown', async () => {
      const all = await candidates().countDocuments();
      const employed = await candidates().countDocuments({ status: 'EMPLOYED' });

      const absent = await search();
      const hidden = await search('?includeEmployed=false');
      const shown = await search('?includeEmployed=true');

      expect(employed).toBeGreaterThan(0);
      expect(absent.body.totalElements).toBe(all - employed);
      expect(hidden.body.totalElements).toBe(all - employed);
      expect(shown.body.totalElements).toBe(all);
    });

    test.each(['yes', 'TRUE', '1', ''])('when includeEmployed is "%s", then the answer is 400', async (value) => {
      const { status, body } = await search(`?includeEmployed=${value}`);

      expect(status).toBe(400);
      expect(body.detail).toContain('includeEmployed must be `true` or `false`');
    });
  });

  describe('the shape of a page', () => {
    test('when candidates are listed, then no field is null, partner never appears and maxEducationLevel has only level and status', async () => {
      const { body } = await search('?limit=100&includeEmployed=true');

      expect(nullPaths(body)).toEqual([]);
      expect(body.content.filter((c) => 'partner' in c)).toEqual([]);
      const levels = body.content.flatMap((c) =>
        c.maxEducationLevel ? [c.maxEducationLevel as Record<string, unknown>] : [],
      );
      expect(levels.length).toBeGreaterThan(0);
      for (const level of levels) expect(Object.keys(level).sort()).toEqual(['level', 'status']);
    });

    test('when HEAD is sent, then the answer is the status and headers of GET without a body', async () => {
      const { status, text } = await rest(service.url, 'HEAD', '/v1/candidates?limit=1', { key: reader });

      expect(status).toBe(200);
      expect(text).toBe('');
    });
  });
});
