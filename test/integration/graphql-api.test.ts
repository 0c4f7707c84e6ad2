import http from 'node:http';
import { toStoredCandidate, type CandidateDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, graphql, type AppUnderTest } from '../support/app-under-test';
import { aCandidate } from '../support/builders';
import { fullSelection } from '../support/full-selection';
import { recordSecret } from '../support/log-capture';

const CANDIDATE_COUNT = 300;

describe('GraphQL API over HTTP', () => {
  let service: AppUnderTest;
  let reader: string;
  let everything: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: CANDIDATE_COUNT, seed: 7 });
    reader = await service.key('READ_CANDIDATE_DATA');
    everything = await service.key('ADMIN');
  });

  afterAll(async () => {
    await service.stop();
  });

  const candidates = () => service.db.collection<CandidateDoc>(COLLECTIONS.candidates);
  const search = async (variables: Record<string, unknown>, key = reader) =>
    graphql<{
      candidates: {
        totalElements: number;
        totalPages: number;
        size: number;
        number: number;
        content: { publicId: string }[];
      };
    }>(
      service.url,
      `
        query ($filter: CandidateFilter, $includeEmployed: Boolean, $page: Int, $limit: Int) {
          candidates(filter: $filter, includeEmployed: $includeEmployed, page: $page, limit: $limit) {
            totalElements
            totalPages
            size
            number
            content {
              publicId
            }
          }
        }
      `,
      variables,
      key,
    );

  describe('authentication and permissions', () => {
    test('when no API key is sent, then the answer is 401 UNAUTHENTICATED', async () => {
      const { status, body } = await graphql(service.url, '{ countries { isoCode } }');

      expect(status).toBe(401);
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(body.data ?? null).toBeNull();
    });

    test('when an unknown API key is sent, then the answer is 401 UNAUTHENTICATED', async () => {
      const { status, body } = await graphql(service.url, '{ countries { isoCode } }', {}, `cdk_${'A'.repeat(43)}`);

      expect(status).toBe(401);
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    });

    test('when the header name is written in another case, then the key is still read', async () => {
      const body = JSON.stringify({ query: '{ languageLevels { level } }' });
      const { port } = new URL(service.url);
      const status = await new Promise<number>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/graphql',
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Api-KEY': reader },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end(body);
      });

      expect(status).toBe(200);
    });

    test('when a key without READ_CANDIDATE_DATA searches candidates, then the answer is FORBIDDEN', async () => {
      const matcher = await service.key('SUBMIT_JOB_MATCHES');

      const { body } = await search({}, matcher);

      expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(body.data ?? null).toBeNull();
    });

    test.each([
      [
        'createJobMatch',
        'SUBMIT_JOB_MATCHES',
        'mutation($ids: [CandidateRefInput!]!) { createJobMatch(input: { candidates: $ids }) { jobMatchId } }',
      ],
      [
        'offerToAssist',
        'OFFER_CANDIDATE_SERVICES',
        'mutation($ids: [CandidateCouponInput!]!) { offerToAssist(input: { candidates: $ids, reason: OTHER }) { offerId } }',
      ],
    ])(
      'when %s is called without %s, then the answer is FORBIDDEN and nothing is recorded',
      async (_name, _permission, mutation) => {
        const [one] = await candidates().find({}, { limit: 1 }).toArray();
        const before = await service.db.collection(COLLECTIONS.offers).countDocuments();

        const { body } = await graphql(service.url, mutation, { ids: [{ publicId: one.publicId }] }, reader);

        expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
        expect(await service.db.collection(COLLECTIONS.offers).countDocuments()).toBe(before);
      },
    );

    test('when registerCandidate is called without REGISTER_CANDIDATES, then the answer is FORBIDDEN', async () => {
      const { body } = await graphql(
        service.url,
        'mutation($input: RegisterCandidateInput!) { registerCandidate(input: $input) { publicId } }',
        { input: { registrationData: { identity: { email: 'forbidden@example.org' } } } },
        reader,
      );

      expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    });
  });

  describe('nested selections', () => {
    test('when every field of a candidate is selected, then each reference resolves to its reference data at every depth', async () => {
      const stored = await candidates().findOne({
        partnerPublicId: { $exists: true },
        'candidateVisaChecks.candidateVisaJobChecks.jobOppPublicId': { $exists: true },
        'candidateEducations.educationMajorId': { $exists: true },
      });
      expect(stored).not.toBeNull();

      const { status, body } = await graphql<{ candidate: Record<string, any> }>(
        service.url,
        `query($id: PublicId!) { candidate(publicId: $id) { ${fullSelection('Candidate')} } }`,
        { id: stored!.publicId },
        reader,
      );

      expect(status).toBe(200);
      expect(body.errors).toBeUndefined();
      const candidate = body.data!.candidate;
      expect(candidate.publicId).toBe(stored!.publicId);
      expect(candidate.country.isoCode).toBe(stored!.countryIsoCode);
      expect(candidate.country.name).toEqual(expect.any(String));
      expect(candidate.candidateOccupations.map((o: any) => o.occupation.isco08Code)).toEqual(
        stored!.candidateOccupations!.map((o) => o.occupation!.isco08Code),
      );
      expect(candidate.candidateOccupations[0].occupation.name).toEqual(expect.any(String));
      const job = candidate.candidateVisaChecks
        .flatMap((v: any) => v.candidateVisaJobChecks)
        .find((j: any) => j.jobOpp);
      expect(job.jobOpp.country.isoCode).toMatch(/^[A-Z]{2}$/);
      expect(job.jobOpp.country.name).toEqual(expect.any(String));
      const education = candidate.candidateEducations.find((e: any) => e.educationMajor);
      expect(education.educationMajor.iscedCode).toMatch(/^\d{3,4}$/);
      expect(candidate.candidateLanguages[0].language.name).toEqual(expect.any(String));
      expect(candidate.partner.publicId).toBe(stored!.partnerPublicId);
      expect(candidate.partnerPublicId).toBe(stored!.partnerPublicId);
    });

    test('when a candidate id is unknown, then candidate is null', async () => {
      const { body } = await graphql(
        service.url,
        'query { candidate(publicId: "AAAAAAAAAAAAAAAAAAAAAA") { publicId } }',
        {},
        reader,
      );

      expect(body.errors).toBeUndefined();
      expect(body.data).toEqual({ candidate: null });
    });

    test('when a saved list is read, then its candidates come in list order with true totals', async () => {
      const list = await service.db.collection(COLLECTIONS.savedLists).findOne({}, { sort: { name: 1 } });
      const ids = list!.candidatePublicIds as string[];

      const { body } = await graphql<{
        savedList: {
          name: string;
          candidates: { totalElements: number; totalPages: number; content: { publicId: string }[] };
        };
      }>(
        service.url,
        'query($id: PublicId!) { savedList(publicId: $id) { name candidates(page: 1, limit: 3) { totalElements totalPages content { publicId } } } }',
        { id: list!.publicId },
        reader,
      );

      expect(body.errors).toBeUndefined();
      expect(body.data!.savedList.candidates.totalElements).toBe(ids.length);
      expect(body.data!.savedList.candidates.totalPages).toBe(Math.ceil(ids.length / 3));
      expect(body.data!.savedList.candidates.content.map((c) => c.publicId)).toEqual(ids.slice(3, 6));
    });
  });

  describe('search', () => {
    test('when codes of one filter are given, then they are ORed, case-insensitively and trimmed', async () => {
      const expected = await candidates().countDocuments({
        countryIsoCode: { $in: ['LB', 'JO'] },
        status: { $ne: 'EMPLOYED' },
      });

      const { body } = await search({ filter: { location: ['lb', ' Jo '] } });

      expect(expected).toBeGreaterThan(0);
      expect(body.data!.candidates.totalElements).toBe(expected);
    });

    test('when several filters are given, then they are ANDed', async () => {
      const [sample] = await candidates()
        .find({ status: { $ne: 'EMPLOYED' }, 'candidateOccupations.0': { $exists: true } }, { limit: 1 })
        .toArray();
      const code = sample.candidateOccupations![0].occupation!.isco08Code;
      const expected = await candidates().countDocuments({
        countryIsoCode: sample.countryIsoCode,
        nationalityIsoCode: sample.nationalityIsoCode,
        'candidateOccupations.occupation.isco08Code': code,
        status: { $ne: 'EMPLOYED' },
      });

      const { body } = await search({
        filter: { location: [sample.countryIsoCode], nationality: [sample.nationalityIsoCode], occupation: [code] },
      });

      expect(body.data!.candidates.totalElements).toBe(expected);
      expect(body.data!.candidates.content.map((c) => c.publicId)).toContain(sample.publicId);
    });

    test('when includeEmployed is false or true, then only EMPLOYED candidates are hidden or shown', async () => {
      const all = await candidates().countDocuments();
      const employed = await candidates().countDocuments({ status: 'EMPLOYED' });

      const hidden = await search({});
      const shown = await search({ includeEmployed: true });

      expect(employed).toBeGreaterThan(0);
      expect(hidden.body.data!.candidates.totalElements).toBe(all - employed);
      expect(shown.body.data!.candidates.totalElements).toBe(all);
    });

    test('when paging through all results, then pages neither overlap nor skip and follow the documented order', async () => {
      const seen: string[] = [];
      for (let page = 0; ; page++) {
        const { body } = await search({ includeEmployed: true, page, limit: 70 });
        const content = body.data!.candidates.content;
        if (content.length === 0) break;
        seen.push(...content.map((c) => c.publicId));
      }
      const ordered = await candidates()
        .find({}, { sort: { createdDate: 1, publicId: 1 }, projection: { publicId: 1 } })
        .toArray();

      expect(seen).toEqual(ordered.map((c) => c.publicId));
    });

    test('when a page past the end is asked for, then content is empty and the totals are true', async () => {
      const { body } = await search({ page: 1000, limit: 10 });
      const total = await candidates().countDocuments({ status: { $ne: 'EMPLOYED' } });

      expect(body.data!.candidates).toEqual({
        totalElements: total,
        totalPages: Math.ceil(total / 10),
        size: 10,
        number: 1000,
        content: [],
      });
    });

    test.each([
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ page: -1 }, 'page'],
      [{ filter: { location: ['Lebanon'] } }, 'location'],
      [{ filter: { occupation: ['22x1'] } }, 'occupation'],
    ])('when the arguments are %j, then the answer is BAD_USER_INPUT naming %s', async (variables, parameter) => {
      const { body } = await search(variables);

      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(body.errors?.[0]?.message).toContain(parameter);
    });

    test('when a publicId is not of the 22-character form, then the answer is BAD_USER_INPUT', async () => {
      const { body } = await graphql(
        service.url,
        'query($id: PublicId!) { candidate(publicId: $id) { publicId } }',
        { id: 'not-an-id' },
        reader,
      );

      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });
  });

  describe('cursor connection', () => {
    test('when candidates are added before the cursor, then following endCursor neither repeats nor skips', async () => {
      const query = `query($after: String) { candidatesConnection(first: 25, after: $after, includeEmployed: true) {
        totalCount edges { cursor node { publicId } } pageInfo { hasNextPage endCursor } } }`;
      type Page = {
        candidatesConnection: {
          totalCount: number;
          edges: { node: { publicId: string } }[];
          pageInfo: { hasNextPage: boolean; endCursor: string };
        };
      };
      const first = await graphql<Page>(service.url, query, {}, reader);
      const earliest = await candidates().findOne({}, { sort: { createdDate: 1 } });
      await candidates().insertOne(
        toStoredCandidate(aCandidate({ createdDate: new Date(earliest!.createdDate.getTime() - 1000) })),
      );

      const seen = first.body.data!.candidatesConnection.edges.map((e) => e.node.publicId);
      let cursor = first.body.data!.candidatesConnection.pageInfo.endCursor;
      for (;;) {
        const next = await graphql<Page>(service.url, query, { after: cursor }, reader);
        seen.push(...next.body.data!.candidatesConnection.edges.map((e) => e.node.publicId));
        if (!next.body.data!.candidatesConnection.pageInfo.hasNextPage) break;
        cursor = next.body.data!.candidatesConnection.pageInfo.endCursor;
      }
      const ordered = await candidates()
        .find({}, { sort: { createdDate: 1, publicId: 1 } })
        .toArray();

      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(ordered.slice(1).map((c) => c.publicId));
    });

    test('when a cursor is used with another filter, then the answer is BAD_USER_INPUT', async () => {
      const first = await graphql<{ candidatesConnection: { pageInfo: { endCursor: string } } }>(
        service.url,
        '{ candidatesConnection(first: 2) { pageInfo { endCursor } } }',
        {},
        reader,
      );

      const { body } = await graphql(
        service.url,
        'query($after: String) { candidatesConnection(first: 2, after: $after, includeEmployed: true) { totalCount } }',
        { after: first.body.data!.candidatesConnection.pageInfo.endCursor },
        reader,
      );

      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });
  });

  describe('mutations', () => {
    test('when a job match names existing candidates, then it is recorded for the calling key', async () => {
      const picked = await candidates().find({}, { limit: 2 }).toArray();

      const { body } = await graphql<{ createJobMatch: { message: string; jobMatchId: string } }>(
        service.url,
        'mutation($input: JobMatchInput!) { createJobMatch(input: $input) { message jobMatchId } }',
        { input: { candidates: picked.map((c) => ({ publicId: c.publicId })), additionalNotes: 'Nurses wanted' } },
        everything,
      );

      expect(body.errors).toBeUndefined();
      expect(body.data!.createJobMatch.jobMatchId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const offer = await service.db
        .collection(COLLECTIONS.offers)
        .findOne({ publicId: body.data!.createJobMatch.jobMatchId });
      expect(offer).toMatchObject({ kind: 'JOB_MATCH', reason: 'JOB_OPPORTUNITY', additionalNotes: 'Nurses wanted' });
      expect(offer!.candidates).toEqual(picked.map((c) => ({ publicId: c.publicId })));
    });

    test('when an offer names an unknown candidate, then the answer is NOT_FOUND naming it and nothing is recorded', async () => {
      const [known] = await candidates().find({}, { limit: 1 }).toArray();
      const unknown = 'ZZZZZZZZZZZZZZZZZZZZZZ';
      const before = await service.db.collection(COLLECTIONS.offers).countDocuments();

      const { body } = await graphql(
        service.url,
        'mutation($input: OfferToAssistInput!) { offerToAssist(input: $input) { offerId } }',
        {
          input: {
            candidates: [{ publicId: known.publicId, couponCode: 'EDU-2024' }, { publicId: unknown }],
            reason: 'EDUCATION_SERVICE',
          },
        },
        everything,
      );

      expect(body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      expect(body.errors?.[0]?.message).toContain(unknown);
      expect(body.errors?.[0]?.message).not.toContain(known.publicId);
      expect(await service.db.collection(COLLECTIONS.offers).countDocuments()).toBe(before);
    });

    test('when a candidate registers, then the profile is readable at once and the same e-mail in another case is a CONFLICT', async () => {
      recordSecret('Amalia', 'Haddad', 'amal.haddad@example.org', '1991-04-17', '+961 70 123 456');
      const register = (email: string) =>
        graphql<{ registerCandidate: { message: string; publicId: string } }>(
          service.url,
          'mutation($input: RegisterCandidateInput!) { registerCandidate(input: $input) { message publicId } }',
          {
            input: {
              registrarId: 'partner-org-7',
              registrationData: {
                identity: { firstName: 'Amalia', lastName: 'Haddad', email },
                dob: '1991-04-17',
                phone: '+961 70 123 456',
                country: { isoCode: 'LB' },
                nationality: { isoCode: 'SY' },
                candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 6 }],
              },
            },
          },
          everything,
        );

      const first = await register('amal.haddad@example.org');
      const again = await register('  AMAL.Haddad@Example.org ');

      expect(first.body.errors).toBeUndefined();
      const read = await graphql<{ candidate: Record<string, unknown> }>(
        service.url,
        `query($id: PublicId!) { candidate(publicId: $id) { ${fullSelection('Candidate')} } }`,
        { id: first.body.data!.registerCandidate.publicId },
        reader,
      );
      expect(read.body.data!.candidate).toMatchObject({
        status: 'PENDING',
        country: { isoCode: 'LB' },
        yearOfBirth: 1991,
      });
      const text = JSON.stringify(read.body);
      for (const secret of ['Amalia', 'Haddad', 'amal.haddad', '1991-04-17', '123 456'])
        expect(text).not.toContain(secret);
      expect(again.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
      expect(await candidates().countDocuments({ registrarId: 'partner-org-7' })).toBe(1);
    });

    test('when a registration names an unknown reference code, then the answer is BAD_USER_INPUT and nothing is written', async () => {
      recordSecret('unknown-code@example.org');
      const identities = await service.db.collection(COLLECTIONS.candidateIdentities).countDocuments();

      const { body } = await graphql(
        service.url,
        'mutation($input: RegisterCandidateInput!) { registerCandidate(input: $input) { publicId } }',
        {
          input: { registrationData: { identity: { email: 'unknown-code@example.org' }, country: { isoCode: 'QQ' } } },
        },
        everything,
      );

      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(body.errors?.[0]?.message).toContain('registrationData.country.isoCode');
      expect(await service.db.collection(COLLECTIONS.candidateIdentities).countDocuments()).toBe(identities);
    });
    test('when a registration e-mail or name holds a zero-width or control character, then the answer is BAD_USER_INPUT naming the field, never the value, and nothing is written', async () => {
      recordSecret('zw.qv71@example.org', 'Qvzwenna');
      const identities = await service.db.collection(COLLECTIONS.candidateIdentities).countDocuments();
      const register = (identity: Record<string, string>) =>
        graphql(
          service.url,
          'mutation($input: RegisterCandidateInput!) { registerCandidate(input: $input) { publicId } }',
          { input: { registrationData: { identity } } },
          everything,
        );

      const email = await register({ email: '\u200bzw.qv71@example.org' });
      const name = await register({ email: 'zw.qv71@example.org', firstName: 'Qvzwenna\u0000' });

      expect([email.body.errors?.[0]?.extensions?.code, name.body.errors?.[0]?.extensions?.code]).toEqual([
        'BAD_USER_INPUT',
        'BAD_USER_INPUT',
      ]);
      expect(email.body.errors?.[0]?.message).toContain('registrationData.identity.email');
      expect(name.body.errors?.[0]?.message).toContain('registrationData.identity.firstName');
      expect(JSON.stringify([email.body, name.body])).not.toMatch(/qv71|Qvzwenna/);
      expect(await service.db.collection(COLLECTIONS.candidateIdentities).countDocuments()).toBe(identities);
    });
  });

  describe('abuse limits and hygiene', () => {
    test('when a query nests partner deeper than the depth limit, then it is rejected before execution', async () => {
      const deep = 'partner { '.repeat(14) + 'publicId' + ' }'.repeat(14);

      const { body } = await graphql(service.url, `{ candidates { content { ${deep} } } }`, {}, reader);

      expect(body.data ?? undefined).toBeUndefined();
      expect(body.errors?.[0]?.message).toMatch(/depth/i);
    });

    test('when a query nests 500 levels deep, then it is refused for its depth, and no message names a limit it did not exceed', async () => {
      const deep = 'partner { '.repeat(500) + 'publicId' + ' }'.repeat(500);

      const { body } = await graphql(service.url, `{ candidates { content { ${deep} } } }`, {}, reader);

      expect(body.data ?? undefined).toBeUndefined();
      const messages = (body.errors ?? []).map((error) => error.message);
      expect(messages).toEqual(['Syntax Error: Query depth limit of 12 exceeded, found 503.']);
    });

    test('when a shallow query costs more than the cost limit, then it is refused naming the cost limit and its true cost', async () => {
      const partners = 'partner { publicId '.repeat(9) + '}'.repeat(9);
      const wide = Array.from({ length: 15 }, (_, i) => `a${i}: candidates { content { ${partners} } }`);

      const { body } = await graphql(service.url, `{ ${wide.join(' ')} }`, {}, reader);

      const messages = (body.errors ?? []).map((error) => error.message);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(/^Syntax Error: Query Cost limit of \d+ exceeded, found \d+(\.\d+)?\.$/);
    });

    test('when a batch of operations is posted, then it is refused', async () => {
      const response = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': reader },
        body: JSON.stringify([{ query: '{ countries { isoCode } }' }, { query: '{ languages { isoCode } }' }]),
      });

      expect(response.status).toBe(400);
    });

    test('when a GET query comes without a preflight-forcing header, then CSRF prevention refuses it; with X-API-Key it runs', async () => {
      const url = `${service.url}/graphql?query=${encodeURIComponent('{ languageLevels { level } }')}`;

      const simple = await fetch(url);
      const withKey = await fetch(url, { headers: { 'x-api-key': reader } });

      expect(simple.status).toBe(400);
      expect(withKey.status).toBe(200);
    });

    test('when a field name is misspelt, then the error gives no schema hint', async () => {
      const { body } = await graphql(service.url, '{ candidates { contnt { publicId } } }', {}, reader);

      expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(body.errors?.[0]?.message).not.toMatch(/did you mean/i);
    });

    test('when an invalid date of birth is sent, then the error names the field but not the value', async () => {
      recordSecret('dob@example.org', '1987-13-45');
      const { body } = await graphql(
        service.url,
        'mutation($input: RegisterCandidateInput!) { registerCandidate(input: $input) { publicId } }',
        { input: { registrationData: { identity: { email: 'dob@example.org' }, dob: '1987-13-45' } } },
        everything,
      );

      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(body.errors?.[0]?.message).toContain('dob');
      expect(JSON.stringify(body)).not.toContain('1987-13-45');
    });
  });
});

describe('GraphQL API when the database fails', () => {
  test('when the database connection is gone, then the answer is a 503 SERVICE_UNAVAILABLE revealing nothing', async () => {
    const service = await startAppUnderTest();
    const key = await service.key('READ_CANDIDATE_DATA');
    await service.app.database.close();
    try {
      const { status, body } = await graphql(service.url, '{ countries { isoCode } }', {}, key);

      expect(status).toBe(503);
      expect(body.errors?.[0]).toEqual({
        message: 'The service is temporarily unavailable; retry later.',
        extensions: { code: 'SERVICE_UNAVAILABLE' },
      });
    } finally {
      await service.stop();
    }
  });
});
