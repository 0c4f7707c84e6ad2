import { parse, print, type GraphQLSchema } from 'graphql';
import { compileQuery } from 'graphql-jit';
import type { CandidateDoc, SavedListDoc } from 'candidate-documents';
import { toGlobalId } from '../../src/graphql/global-id';
import { COLLECTIONS } from '../../src/app/indexes';
import { graphql, startAppUnderTest, type AppUnderTest, type GraphQLResponse } from '../support/app-under-test';
import { fullSelection } from '../support/full-selection';
import { rest, type RestOptions } from '../support/rest-client';

// The real compiler, watched: which operations were compiled, and on which schema.
jest.mock('graphql-jit', () => {
  const actual = jest.requireActual('graphql-jit');
  return { ...actual, compileQuery: jest.fn(actual.compileQuery) };
});
const compiled = compileQuery as unknown as jest.Mock<unknown, [GraphQLSchema, ...unknown[]]>;

const UNKNOWN_ID = 'ZZZZZZZZZZZZZZZZZZZZZZ';
const KNOWN_EMAIL = 'registered-before@example.org';
/** Budgets that a few hundred requests of one key never reach (the two apps share them). */
const UNLIMITED = { rateLimitReads: 1_000_000, rateLimitWrites: 1_000_000 };
/** An interpreted run first, then compiled ones: an operation is compiled from its second execution on. */
const RUNS_WITH_COMPILED = 3;

/** Ids the service makes up for what a mutation records: the only part of a response that may differ. */
function withoutNewIds(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) =>
    ['jobMatchId', 'offerId'].includes(key) ||
    (key === 'publicId' && typeof value === 'string' && value.length === 22 && newIds.has(value))
      ? '<new id>'
      : value,
  );
}
const newIds = new Set<string>();

describe('compiled execution (GRAPHQL_JIT)', () => {
  let jit: AppUnderTest;
  let plain: AppUnderTest;
  let jitSchema: GraphQLSchema;
  let reader: string;
  let matcher: string;
  let provider: string;
  let registrar: string;
  let referenceOnly: string;
  let someIds: string[];
  let partnered: CandidateDoc;
  let list: SavedListDoc;

  beforeAll(async () => {
    compiled.mockClear();
    jit = await startAppUnderTest({ candidates: 150, seed: 21, config: { graphqlJit: true, ...UNLIMITED } });
    // The persisted REST operations are compiled at start: this is the compiled app's schema.
    jitSchema = compiled.mock.calls[0][0];
    // Same store, same database: the same data, keys and budgets, executed by graphql-js.
    plain = await startAppUnderTest({
      config: {
        graphqlJit: false,
        mongodbUri: jit.app.config.mongodbUri,
        mongodbDb: jit.app.config.mongodbDb,
        ...UNLIMITED,
      },
    });
    reader = await jit.key('READ_CANDIDATE_DATA');
    matcher = await jit.key('SUBMIT_JOB_MATCHES');
    provider = await jit.key('OFFER_CANDIDATE_SERVICES');
    registrar = await jit.key('REGISTER_CANDIDATES');
    referenceOnly = await jit.key('SUBMIT_JOB_MATCHES');
    const candidates = jit.db.collection<CandidateDoc>(COLLECTIONS.candidates);
    someIds = (await candidates.find({}, { sort: { createdDate: 1, publicId: 1 }, limit: 3 }).toArray()).map(
      (c) => c.publicId,
    );
    partnered = (await candidates.findOne({
      partnerPublicId: { $exists: true },
      'candidateVisaChecks.0': { $exists: true },
    }))!;
    list = (await jit.db
      .collection<SavedListDoc>(COLLECTIONS.savedLists)
      .findOne({ 'candidatePublicIds.2': { $exists: true } }))!;
    const registered = await rest(jit.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      body: { registrationData: { identity: { email: KNOWN_EMAIL } } },
    });
    expect(registered.status).toBe(201);
  });

  afterAll(async () => {
    await plain?.stop();
    await jit?.stop();
  });

  test('when the compiled app starts, then it compiles the nine persisted REST operations and the graphql-js app compiles nothing', () => {
    expect(compiled.mock.calls.map((call) => call[2]).sort()).toEqual(
      [
        'CandidateStatistics',
        'FindCandidates',
        'GetCandidate',
        'GetCandidatesByList',
        'JobMatch',
        'ListSavedLists',
        'OfferToAssist',
        'RegisterCandidate',
        'RunSavedSearch',
      ].sort(),
    );
  });

  interface GraphQLCase {
    query: string;
    variables?: (run: number) => Record<string, unknown>;
    key?: () => string | undefined;
    /** false: never executed compiled (introspection, or refused before execution) */
    compiledAfterwards?: boolean;
    /** the error codes of the last (compiled) run: proof that the comparison compared an error */
    codes?: string[];
  }

  const cases: Record<string, GraphQLCase> = {
    'a page with every field, nested lists, references and partners (every scalar: PublicId, Date, DateTime, Long, Float)':
      {
        query: `query Page($limit: Int) { candidates(limit: $limit) { totalElements totalPages size number content { ${fullSelection('Candidate')} } } }`,
        variables: () => ({ limit: 20 }),
      },
    'a filtered page past the end with employed candidates': {
      query: `query { candidates(filter: { location: [" lb ", "JO", "TR"], occupation: ["2221", "2512"] }, includeEmployed: true, page: 500, limit: 7) { totalElements totalPages number size content { publicId } } }`,
    },
    'aliases, fragments, inline fragments, __typename, @skip and @include': {
      query: `query Shaped($skip: Boolean!, $with: Boolean!) {
        first: candidates(limit: 3) { content { ...Card } }
        second: candidates(page: 1, limit: 2) { __typename content { id: publicId ... on Candidate { status @skip(if: $skip) createdDate @include(if: $with) } } }
      }
      fragment Card on Candidate { __typename publicId country { name } nationality @include(if: $with) { isoCode } partner @skip(if: $skip) { publicId } }`,
      variables: (run) => ({ skip: run % 2 === 0, with: run % 2 === 1 }),
    },
    'one candidate with its partner and visa job checks': {
      query: `query One($id: PublicId!) { candidate(publicId: $id) { publicId partner { publicId partner { publicId } } candidateVisaChecks { country { isoCode } candidateVisaJobChecks { jobOpp { stage publishedDate country { name } employerEntity { country { isoCode } hasHiredInternationally } } occupation { name } } } } }`,
      variables: () => ({ id: partnered.publicId }),
    },
    'an unknown candidate (null)': {
      query: `query One($id: PublicId!) { candidate(publicId: $id) { publicId } }`,
      variables: () => ({ id: UNKNOWN_ID }),
    },
    'a connection, then its next slice': {
      query: `query Slice($after: String) { candidatesConnection(first: 4, after: $after, filter: { nationality: ["SY"] }) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { publicId createdDate } } } }`,
    },
    'a saved list page': {
      query: `query List($id: PublicId!) { savedList(publicId: $id) { publicId name candidates(page: 0, limit: 2) { totalElements totalPages content { publicId country { isoCode } } } } }`,
      variables: () => ({ id: list.publicId }),
    },
    'reference lists and an occupation search': {
      query: `{ countries { isoCode name status } languageLevels { level name cefrLevel } educationLevels { level educationType } occupations(search: "nurs", limit: 3) { isco08Code name } }`,
    },
    'node and nodes through the Node interface: a candidate with nested fields, a saved list, reference data, an unknown id':
      {
        query: `query Nodes($one: ID!, $many: [ID!]!) {
        node(id: $one) { __typename id ... on Candidate { publicId country { id name } partner { id } } }
        nodes(ids: $many) { __typename id ... on SavedList { name } ... on Country { isoCode } ... on LanguageLevel { level cefrLevel } }
      }`,
        variables: () => ({
          one: toGlobalId('Candidate', partnered.publicId),
          many: [
            toGlobalId('SavedList', list.publicId),
            toGlobalId('Country', 'JO'),
            toGlobalId('LanguageLevel', 2),
            toGlobalId('Candidate', UNKNOWN_ID),
          ],
        }),
      },
    'node for a key that may not read candidates (null), and a malformed id (BAD_USER_INPUT)': {
      query: `query Nodes($one: ID!) { forbidden: node(id: $one) { id } malformed: node(id: "not-an-id") { id } }`,
      variables: () => ({ one: toGlobalId('Candidate', partnered.publicId) }),
      key: () => referenceOnly,
      codes: ['BAD_USER_INPUT'],
    },
    'an error in a nullable field: the rest of the result stays (partial result)': {
      query: `query List($id: PublicId!) { countries { isoCode } savedList(publicId: $id) { name candidates(limit: 1000) { totalElements } } }`,
      variables: () => ({ id: list.publicId }),
      codes: ['BAD_USER_INPUT'],
    },
    'a permission error next to allowed fields': {
      query: `query { educationMajors { id name } candidate(publicId: "${UNKNOWN_ID}") { publicId } }`,
      key: () => referenceOnly,
      codes: ['FORBIDDEN'],
    },
    'an error in a non-null root field (data null)': {
      query: `query { candidates(limit: 0) { totalElements } }`,
      codes: ['BAD_USER_INPUT'],
    },
    'a bad filter code (the service refuses it)': {
      query: `query { candidates(filter: { location: ["Lebanon"] }) { totalElements } }`,
    },
    'an unreadable cursor': {
      query: `query { candidatesConnection(after: "not-a-cursor") { totalCount } }`,
    },
    'a variable of the wrong type (coercion: BAD_USER_INPUT, value removed)': {
      query: `query Page($limit: Int) { candidates(limit: $limit) { totalElements } }`,
      variables: () => ({ limit: 'ten, said zuleikha@example.org' }),
      codes: ['BAD_USER_INPUT'],
    },
    'a variable a custom scalar refuses': {
      query: `query One($id: PublicId!) { candidate(publicId: $id) { publicId } }`,
      variables: () => ({ id: 'zuleikha@example.org' }),
    },
    'a missing required variable': {
      query: `query One($id: PublicId!) { candidate(publicId: $id) { publicId } }`,
    },
    'an unknown enum value in an input variable': {
      query: `mutation Offer($input: OfferToAssistInput!) { offerToAssist(input: $input) { offerId } }`,
      variables: () => ({ input: { candidates: [{ publicId: someIds[0] }], reason: 'CASH' } }),
      key: () => provider,
    },
    'a job match of known candidates': {
      query: `mutation Match($input: JobMatchInput!) { createJobMatch(input: $input) { message jobMatchId } }`,
      variables: () => ({
        input: { candidates: someIds.map((publicId) => ({ publicId })), additionalNotes: 'Nurses' },
      }),
      key: () => matcher,
    },
    'a job match naming unknown candidates (NOT_FOUND)': {
      query: `mutation Match($input: JobMatchInput!) { createJobMatch(input: $input) { message jobMatchId } }`,
      variables: () => ({ input: { candidates: [{ publicId: UNKNOWN_ID }, { publicId: someIds[0] }] } }),
      key: () => matcher,
      codes: ['NOT_FOUND'],
    },
    'an offer to assist with an empty list (BAD_USER_INPUT)': {
      query: `mutation Offer($input: OfferToAssistInput!) { offerToAssist(input: $input) { message offerId } }`,
      variables: () => ({ input: { candidates: [], reason: 'EDUCATION_SERVICE' } }),
      key: () => provider,
    },
    'two mutations in one operation, run in order': {
      query: `mutation Two($a: OfferToAssistInput!, $b: OfferToAssistInput!) { a: offerToAssist(input: $a) { message offerId } b: offerToAssist(input: $b) { message offerId } }`,
      variables: () => ({
        a: { candidates: [{ publicId: someIds[1], couponCode: 'C-1' }], reason: 'MIGRATION_SERVICE' },
        b: { candidates: [{ publicId: UNKNOWN_ID }], reason: 'OTHER' },
      }),
      key: () => provider,
    },
    'a registration, another, then the same e-mail again (CONFLICT)': {
      query: `mutation Register($input: RegisterCandidateInput!) { registerCandidate(input: $input) { message publicId } }`,
      variables: (run) => ({
        input: {
          registrarId: 'partner-org-7',
          registrationData: {
            identity: { email: `compiled-${Math.min(run, 1)}@example.org` },
            gender: 'FEMALE',
            country: { isoCode: 'JO' },
            candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 3 }],
          },
        },
      }),
      key: () => registrar,
      codes: ['CONFLICT'],
    },
    'a mutation without the permission (FORBIDDEN)': {
      query: `mutation Match($input: JobMatchInput!) { createJobMatch(input: $input) { jobMatchId } }`,
      variables: () => ({ input: { candidates: [{ publicId: someIds[0] }] } }),
      key: () => reader,
    },
    'introspection (left to graphql-js)': {
      query: `{ __schema { queryType { name } mutationType { name } } __type(name: "CandidateStatus") { enumValues { name } } }`,
      compiledAfterwards: false,
    },
    'an invalid operation (refused before execution)': {
      query: `{ candidates { content { nickname } } }`,
      compiledAfterwards: false,
    },
    'no API key (refused before execution)': {
      query: `{ countries { isoCode } }`,
      key: () => undefined,
      compiledAfterwards: false,
    },
  };

  /** The same request to one app; registrations get their own e-mail per app, so both succeed and then conflict. */
  async function ask(app: AppUnderTest, which: string, spec: GraphQLCase, run: number): Promise<GraphQLResponse> {
    let variables = spec.variables?.(run) ?? {};
    if (which.startsWith('a registration,'))
      variables = JSON.parse(JSON.stringify(variables).replace('compiled-', `${app === jit ? 'jit' : 'plain'}-`));
    if (which.startsWith('a connection') && run > 0) {
      const first = await graphql<{ candidatesConnection: { pageInfo: { endCursor: string } } }>(
        app.url,
        spec.query,
        {},
        reader,
      );
      variables = { after: first.body.data!.candidatesConnection.pageInfo.endCursor };
    }
    const response = await graphql(app.url, spec.query, variables, spec.key ? spec.key() : reader);
    collectNewIds(response.body);
    return { status: response.status, body: withoutNewIds(response.body) as GraphQLResponse['body'] };
  }

  function collectNewIds(body: unknown): void {
    const data = (body as { data?: Record<string, { publicId?: string } | null> | null }).data;
    const registered = data?.registerCandidate?.publicId;
    if (registered) newIds.add(registered);
  }

  test.each(Object.entries(cases))(
    'when %s, then compiled and graphql-js execution answer the same',
    async (which, spec) => {
      for (let run = 0; run < RUNS_WITH_COMPILED; run++) {
        const expected = await ask(plain, which, spec, run);
        const actual = await ask(jit, which, spec, run);

        expect(actual).toEqual(expected);
        if (run === RUNS_WITH_COMPILED - 1 && spec.codes)
          expect(actual.body.errors?.map((e) => e.extensions?.code)).toEqual(spec.codes);
      }
      const document = print(parse(spec.query));
      const compiledIt = compiled.mock.calls.some((call) => print(call[1] as never) === document);
      expect(compiledIt).toBe(spec.compiledAfterwards ?? true);
    },
  );

  test("when /graphql answers, then it says Cache-Control: no-store in both modes, as Apollo's cache-control plugin (now off) did", async () => {
    for (const app of [jit, plain]) {
      for (const query of ['{ countries { isoCode } }', '{ candidates(limit: 0) { totalElements } }', '{ nickname }']) {
        const response = await fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': reader },
          body: JSON.stringify({ query }),
        });

        expect(response.headers.get('cache-control')).toBe('no-store');
      }
    }
  });

  test("when every schema the compiler saw is listed, then it is only the compiled app's", () => {
    expect(compiled.mock.calls.every((call) => call[0] === jitSchema)).toBe(true);
  });

  describe('searches read only the stored fields their selection needs', () => {
    const selection = `__typename publicId status yearOfBirth country { name } nationality { isoCode } maxEducationLevel { level name }
      partnerOccupation { name } partnerEnglishLevel { cefrLevel } candidateOccupations { occupation { name } yearsExperience }
      candidateVisaChecks { candidateVisaJobChecks { jobOpp { stage } } } partner { publicId country { isoCode } }`;

    test.each([
      [
        'a page',
        `{ candidates(limit: 12, filter: { nationality: ["SY"] }) { content { ${selection} } } }`,
        (data: any) => data.candidates.content,
      ],
      [
        'a connection',
        `{ candidatesConnection(first: 12) { edges { node { ${selection} } } } }`,
        (data: any) => data.candidatesConnection.edges.map((e: any) => e.node),
      ],
    ])(
      'when %s selects a few fields, then its candidates are those read whole by id',
      async (_which, query, candidatesOf) => {
        for (const app of [jit, plain]) {
          const searched = await graphql(app.url, query, {}, reader);
          const found = candidatesOf(searched.body.data);
          const byId = await Promise.all(
            found.map(
              async (c: { publicId: string }) =>
                (
                  await graphql<{ candidate: unknown }>(
                    app.url,
                    `query($id: PublicId!) { candidate(publicId: $id) { ${selection} } }`,
                    { id: c.publicId },
                    reader,
                  )
                ).body.data!.candidate,
            ),
          );

          expect(searched.body.errors).toBeUndefined();
          expect(found.length).toBe(12);
          expect(found).toEqual(byId);
        }
      },
    );
  });

  describe('the persisted operations of REST /v1', () => {
    const restCases: Record<string, () => [method: string, path: string, options: RestOptions]> = {
      'a search with filters': () => [
        'GET',
        '/v1/candidates?location=LB,JO,TR&occupation=2221,2512,7212&limit=25',
        { key: reader },
      ],
      'a search of every status, second page': () => [
        'GET',
        '/v1/candidates?includeEmployed=true&page=1&limit=100',
        { key: reader },
      ],
      'a search past the end': () => ['GET', '/v1/candidates?page=900', { key: reader }],
      'a search with a bad code': () => ['GET', '/v1/candidates?location=Lebanon', { key: reader }],
      'a candidate': () => ['GET', `/v1/candidates/${partnered.publicId}`, { key: reader }],
      'an unknown candidate': () => ['GET', `/v1/candidates/${UNKNOWN_ID}`, { key: reader }],
      'a saved list': () => ['GET', `/v1/candidates/by-list/${list.publicId}?limit=2&page=1`, { key: reader }],
      'an unknown saved list': () => ['GET', `/v1/candidates/by-list/${UNKNOWN_ID}`, { key: reader }],
      'a job match naming an unknown candidate': () => [
        'POST',
        '/v1/candidates/job-match',
        { key: matcher, body: { candidates: [{ publicId: UNKNOWN_ID }] } },
      ],
      'an offer to assist': () => [
        'POST',
        '/v1/candidates/offer-to-assist',
        { key: provider, body: { candidates: [{ publicId: someIds[2] }], reason: 'SETTLEMENT_SERVICE' } },
      ],
      'a registration of a known e-mail': () => [
        'POST',
        '/v1/candidates/register',
        {
          key: registrar,
          body: { registrationData: { identity: { email: KNOWN_EMAIL }, nationality: { isoCode: 'SY' } } },
        },
      ],
    };

    test.each(Object.keys(restCases))('when %s, then both apps answer the same', async (which) => {
      const [method, path, options] = restCases[which]();

      const expected = await rest(plain.url, method, path, options);
      const actual = await rest(jit.url, method, path, options);

      expect(actual.status).toBe(expected.status);
      expect(actual.headers.get('content-type')).toBe(expected.headers.get('content-type'));
      expect(withoutNewIds(actual.body)).toEqual(withoutNewIds(expected.body));
    });
  });
});
