import fc from 'fast-check';
import type { CandidateDoc, OfferDoc, SavedListDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import {
  checkProperty,
  BODY_LIMIT_BYTES,
  deeplyNested,
  describeRequest,
  edgeText,
  exchange,
  expectedSearch,
  expectNone,
  fuzzParameters,
  graphqlFailures,
  hostileValue,
  identityCanary,
  identityLeaks,
  inSearchOrder,
  jobMatchInput,
  jsonBytes,
  mutate,
  mutation,
  NUMERIC_TEXTS,
  objectOf,
  offerToAssistInput,
  PROTOTYPE_KEYS,
  prototypeIntact,
  registrationInput,
  MONGO_OPERATORS,
  RawJson,
  valueAt,
  type Exchange,
  type HostileJson,
} from '../support/arbitraries';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { fullSelection } from '../support/full-selection';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * Property tests of GraphQL variables: the operations of the schema with variables that are
 * well typed, of the wrong type, MongoDB operators (`{"$ne": null}` where a string is
 * expected), prototype keys, edge numbers, invalid UTF-8 and deep nesting. Whatever is sent:
 * never a 5xx, every error with a known client code, results exactly as the rules give them
 * (an operator never widens a filter), and no identity value in any answer.
 */

const CANDIDATE_COUNT = 100;
const PUBLIC_ID = /^[A-Za-z0-9_-]{22}$/;
const INT32_MAX = 2 ** 31 - 1;
/** Codes a query with fuzzed variables may answer: the caller's input, and nothing found. */
const INPUT_CODES = ['BAD_USER_INPUT', 'NOT_FOUND'];
const MUTATION_CODES = ['BAD_USER_INPUT', 'NOT_FOUND', 'CONFLICT'];

/**
 * What pages select: the fields the filter looks at and the free texts. Single candidates are
 * read with every field (fullSelection), which is where a newly exposed identity field shows.
 */
const CANDIDATE =
  'publicId createdDate status city candidateMessage country { isoCode } nationality { isoCode } candidateOccupations { occupation { isco08Code } }';

const DOCUMENTS = {
  candidates: `query Search($filter: CandidateFilter, $includeEmployed: Boolean, $page: Int, $limit: Int) {
    candidates(filter: $filter, includeEmployed: $includeEmployed, page: $page, limit: $limit) { totalElements totalPages size number content { ${CANDIDATE} } }
  }`,
  connection: `query Connection($first: Int, $after: String, $filter: CandidateFilter, $includeEmployed: Boolean) {
    candidatesConnection(first: $first, after: $after, filter: $filter, includeEmployed: $includeEmployed) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${CANDIDATE} } } }
  }`,
  candidate: `query One($publicId: PublicId!) { candidate(publicId: $publicId) { ${fullSelection('Candidate', 1)} } }`,
  savedList: `query List($publicId: PublicId!, $page: Int, $limit: Int) {
    savedList(publicId: $publicId) { publicId name candidates(page: $page, limit: $limit) { totalElements totalPages size number content { ${CANDIDATE} } } }
  }`,
  occupations: `query Occupations($search: String, $limit: Int) { occupations(search: $search, limit: $limit) { isco08Code name } }`,
  createJobMatch: `mutation JobMatch($input: JobMatchInput!) { createJobMatch(input: $input) { message jobMatchId } }`,
  offerToAssist: `mutation Offer($input: OfferToAssistInput!) { offerToAssist(input: $input) { message offerId } }`,
  registerCandidate: `mutation Register($input: RegisterCandidateInput!) { registerCandidate(input: $input) { message publicId } }`,
} as const;
type Operation = keyof typeof DOCUMENTS;

/** A variable's value as graphql-js coerces it, or INVALID when it refuses it. */
const INVALID = Symbol('invalid');
type Coerced<T> = T | null | undefined | typeof INVALID;

function coerceInt(value: unknown): Coerced<number> {
  if (value === undefined || value === null) return value;
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= INT32_MAX + (value < 0 ? 1 : 0)
    ? value
    : INVALID;
}

function coerceString(value: unknown): Coerced<string> {
  if (value === undefined || value === null) return value;
  return typeof value === 'string' ? value : INVALID;
}

function coerceBoolean(value: unknown): Coerced<boolean> {
  if (value === undefined || value === null) return value;
  return typeof value === 'boolean' ? value : INVALID;
}

/** `[String!]`: a single string is a list of one (input coercion of lists). */
function coerceCodes(value: unknown): Coerced<string[]> {
  if (value === undefined || value === null) return value;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : INVALID;
}

type Filter = Partial<Record<'location' | 'nationality' | 'occupation', string[]>>;

function coerceFilter(value: unknown): Coerced<Filter> {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'object' || Array.isArray(value)) return INVALID;
  const filter: Filter = {};
  for (const [name, item] of Object.entries(value)) {
    if (name !== 'location' && name !== 'nationality' && name !== 'occupation') return INVALID;
    const codes = coerceCodes(item);
    if (codes === INVALID) return INVALID;
    if (codes) filter[name] = codes;
  }
  return filter;
}

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

describe('property: GraphQL variables', () => {
  let service: AppUnderTest;
  let admin: string;
  let docs: CandidateDoc[];
  let lists: SavedListDoc[];
  let existingIds: string[];
  /** identity values of every registration so far: none may ever be answered */
  const canaries: string[] = [];

  beforeAll(async () => {
    service = await startAppUnderTest({
      candidates: CANDIDATE_COUNT,
      seed: 23,
      config: { rateLimitReads: 1_000_000, rateLimitWrites: 1_000_000 },
    });
    admin = await service.key('ADMIN');
    for (const tag of ['gm5s8v', 'tc9q3e']) {
      const canary = identityCanary(tag);
      recordSecret(...canary.values);
      const { status } = await rest(service.url, 'POST', '/v1/candidates/register', { key: admin, body: canary.body });
      if (status !== 201) throw new Error(`the canary registration was answered ${status}`);
      canaries.push(...canary.values);
    }
    await readCandidates();
    lists = await service.db
      .collection<SavedListDoc>(COLLECTIONS.savedLists)
      .find({}, { projection: { _id: 0 } })
      .toArray();
  });

  afterAll(async () => {
    await service?.stop();
  });

  /** The candidates as stored now (the mutation tests add some). */
  async function readCandidates(): Promise<void> {
    docs = inSearchOrder(
      await service.db
        .collection<CandidateDoc>(COLLECTIONS.candidates)
        .find({}, { projection: { _id: 0 } })
        .toArray(),
    );
    existingIds = docs.map((d) => d.publicId);
  }

  /** One POST /graphql with this JSON body, byte for byte. */
  const send = (body: Buffer) =>
    exchange(service.url, {
      method: 'POST',
      target: '/graphql',
      headers: { 'x-api-key': admin, 'content-type': 'application/json' },
      body,
    });
  const request = (operation: Operation, variables: HostileJson) =>
    send(
      jsonBytes(
        objectOf([
          ['query', DOCUMENTS[operation]],
          ['variables', variables],
        ]),
      ),
    );
  /** The variables as the server's JSON parser sees them (a lone surrogate, invalid UTF-8 and 1e309 included). */
  const parsed = (variables: HostileJson): { [key: string]: HostileJson } =>
    JSON.parse(jsonBytes(variables).toString('utf8')) as { [key: string]: HostileJson };

  // -------------------------------------------------------------------------------------------
  // What each answer must be

  /** Errors only, every one BAD_USER_INPUT, no data (or only nulls): the answer to input the rules refuse. */
  function refusedFailures(ex: Exchange, why: string): string[] {
    const body = ex.json as GraphQLBody;
    const codes = (body.errors ?? []).map((e) => e.extensions?.code);
    const noData = Object.values(body.data ?? {}).every((value) => value === null);
    if (codes.length > 0 && codes.every((code) => code === 'BAD_USER_INPUT') && noData) return [];
    return [
      `${why}: expected BAD_USER_INPUT and no data\n  ${describeRequest(ex.request)}\n  → ${ex.status} ${ex.text.slice(0, 300)}`,
    ];
  }

  function searchFailures(
    ex: Exchange,
    variables: Record<string, unknown>,
    field: 'candidates' | 'connection',
  ): string[] {
    const filter = coerceFilter(variables.filter);
    const includeEmployed = coerceBoolean(variables.includeEmployed);
    const page = field === 'candidates' ? coerceInt(variables.page) : 0;
    const limit = coerceInt(field === 'candidates' ? variables.limit : variables.first);
    const after = coerceString(variables.after);
    if ([filter, includeEmployed, page, limit, after].includes(INVALID))
      return refusedFailures(ex, 'a variable of the wrong type');
    const expected = expectedSearch(docs, {
      filter: (filter as Filter | null | undefined) ?? {},
      includeEmployed: (includeEmployed as boolean | null | undefined) ?? false,
      page: (page as number | null | undefined) ?? 0,
      limit: (limit as number | null | undefined) ?? 10,
    });
    if (expected.invalid !== undefined) return refusedFailures(ex, `${expected.invalid} breaks a rule`);
    if (typeof after === 'string') return refusedFailures(ex, 'a cursor this connection never gave');
    const data = (ex.json as GraphQLBody).data ?? {};
    const got =
      field === 'candidates'
        ? (data.candidates as { totalElements: number; content: { publicId: string }[] } | undefined)
        : (() => {
            const c = data.candidatesConnection as
              { totalCount: number; edges: { node: { publicId: string } }[] } | undefined;
            return c && { totalElements: c.totalCount, content: c.edges.map((e) => e.node) };
          })();
    const ids = got?.content.map((c) => c.publicId);
    if (got?.totalElements !== expected.totalElements || JSON.stringify(ids) !== JSON.stringify(expected.ids)) {
      return [
        `not the result the filter gives (a wider or other result):\n  got      ${got?.totalElements} ${JSON.stringify(ids)}\n  expected ${expected.totalElements} ${JSON.stringify(expected.ids)}\n  ${describeRequest(ex.request)}\n  → ${ex.text.slice(0, 300)}`,
      ];
    }
    return [];
  }

  function byIdFailures(ex: Exchange, variables: Record<string, unknown>, field: 'candidate' | 'savedList'): string[] {
    const publicId = coerceString(variables.publicId);
    // candidate() declares no paging: an undeclared variable is ignored.
    const page = field === 'savedList' ? coerceInt(variables.page) : undefined;
    const limit = field === 'savedList' ? coerceInt(variables.limit) : undefined;
    if (
      publicId === undefined ||
      publicId === null ||
      publicId === INVALID ||
      !PUBLIC_ID.test(publicId) ||
      page === INVALID ||
      limit === INVALID
    ) {
      return refusedFailures(ex, 'a public id or paging of the wrong type or form');
    }
    const data = (ex.json as GraphQLBody).data;
    if (field === 'candidate') {
      const found = (data?.candidate as { publicId: string } | null | undefined) ?? null;
      const exists = existingIds.includes(publicId);
      if ((found === null) === exists || (found !== null && found.publicId !== publicId)) {
        return [
          `candidate(${publicId}) answered ${JSON.stringify(found?.publicId ?? null)}\n  ${describeRequest(ex.request)}`,
        ];
      }
      return [];
    }
    const list = lists.find((l) => l.publicId === publicId);
    const answered = data?.savedList as
      { publicId: string; candidates: { content: { publicId: string }[] } } | null | undefined;
    if (!list)
      return answered == null ? [] : [`a saved list for an id that names none: ${describeRequest(ex.request)}`];
    if ((page ?? 0) < 0 || (limit ?? 10) < 1 || (limit ?? 10) > 100) return refusedFailures(ex, 'paging out of bounds');
    const strangers = answered?.candidates.content.filter((c) => !list.candidatePublicIds.includes(c.publicId)) ?? [];
    return strangers.length === 0
      ? []
      : [`candidates outside the list: ${JSON.stringify(strangers)}\n  ${describeRequest(ex.request)}`];
  }

  function occupationFailures(ex: Exchange, variables: Record<string, unknown>): string[] {
    const search = coerceString(variables.search);
    const limit = coerceInt(variables.limit);
    if (search === INVALID || limit === INVALID) return refusedFailures(ex, 'a variable of the wrong type');
    if ((typeof search === 'string' && search.length > 100) || (typeof limit === 'number' && limit < 1))
      return refusedFailures(ex, 'a search or limit out of bounds');
    const found =
      ((ex.json as GraphQLBody).data?.occupations as { isco08Code: string; name: string }[] | undefined) ?? [];
    const text = (search ?? '').trim();
    const unrelated = found.filter(
      (o) =>
        text !== '' &&
        o.isco08Code !== text &&
        !o.name.toLowerCase().includes(text.toLowerCase()) &&
        !new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i').test(o.name),
    );
    const failures =
      unrelated.length === 0
        ? []
        : [
            `occupations that do not contain the search (a regex got through?): ${unrelated
              .slice(0, 3)
              .map((o) => o.name)
              .join('; ')}`,
          ];
    if (typeof limit === 'number' && found.length > limit)
      failures.push(`${found.length} occupations for limit ${limit}`);
    return failures.map((f) => `${f}\n  ${describeRequest(ex.request)}`);
  }

  /** What the rules say about the answer to a read with these (parsed) variables. */
  function readFailures(ex: Exchange, operation: Operation, variables: Record<string, unknown>): string[] {
    if (ex.request.body!.length > BODY_LIMIT_BYTES)
      return ex.status === 413 ? [] : [`a ${ex.status} for a body over the limit`];
    switch (operation) {
      case 'candidates':
      case 'connection':
        return searchFailures(ex, variables, operation);
      case 'candidate':
      case 'savedList':
        return byIdFailures(ex, variables, operation);
      default:
        return occupationFailures(ex, variables);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Variables

  /**
   * Identity values to send in the broad properties: those without a `;`, which the dedicated
   * property below sends (graphql-js messages quote values, and the quoting is cut at a `;`).
   */
  const sendable = () => fc.constantFrom(...canaries.filter((value) => !value.includes(';')));
  const hostile = () => hostileValue({ realIds: existingIds, canaries: sendable() });
  /** A variable: absent, well typed (`typed`), or hostile. */
  const variable = (typed: fc.Arbitrary<HostileJson>) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 8, arbitrary: typed },
      { weight: 1, arbitrary: hostile() },
    );
  const countryCode = () =>
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc.constantFrom(...new Set(docs.map((d) => d.countryIsoCode ?? 'JO')), 'sy', ' lb ', 'XX'),
      },
      { weight: 1, arbitrary: edgeText },
    );
  const occupationCode = () =>
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc.constantFrom(
          ...new Set(
            docs.flatMap((d) => (d.candidateOccupations ?? []).map((o) => o.occupation?.isco08Code ?? '2221')),
          ),
          '9999',
        ),
      },
      { weight: 1, arbitrary: edgeText },
    );
  const codes = (code: fc.Arbitrary<string>): fc.Arbitrary<HostileJson> =>
    fc.oneof(
      { weight: 6, arbitrary: fc.array(code, { minLength: 1, maxLength: 4 }) },
      { weight: 1, arbitrary: code },
      { weight: 1, arbitrary: fc.constant(null) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.array(fc.constantFrom('JO', 'SY', 'LB'), { minLength: 51, maxLength: 200 }),
          fc.uniqueArray(fc.stringMatching(/^[A-Z]{2}$/), { minLength: 45, maxLength: 60 }),
        ),
      },
    );
  const filter = () =>
    fc
      .record(
        {
          location: variable(codes(countryCode())),
          nationality: variable(codes(countryCode())),
          occupation: variable(codes(occupationCode())),
        },
        { requiredKeys: [] },
      )
      .map((fields) =>
        objectOf(Object.entries(fields).filter((entry): entry is [string, HostileJson] => entry[1] !== undefined)),
      );
  const int = (min: number, max: number): fc.Arbitrary<HostileJson> =>
    fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min, max }) },
      { weight: 1, arbitrary: fc.constantFrom(...NUMERIC_TEXTS) },
      { weight: 1, arbitrary: fc.constant(null) },
    );
  const flag = (): fc.Arbitrary<HostileJson> => fc.oneof(fc.boolean(), fc.constant(null), fc.constantFrom('true', 1));
  const publicId = (pool: readonly string[]): fc.Arbitrary<HostileJson> =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...pool) },
      { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{22}$/) },
    );
  /** Unknown variables the document does not declare, prototype keys and operators among them. */
  const extras = () =>
    fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS, ...MONGO_OPERATORS), fc.string({ maxLength: 6 })),
        hostile(),
      ),
      { maxLength: 1 },
    );

  const variablesOf = (declared: Record<string, fc.Arbitrary<HostileJson | undefined>>) =>
    fc
      .tuple(fc.record(declared, { requiredKeys: [] }), extras())
      .map(([given, extra]) =>
        objectOf([
          ...Object.entries(given).filter((entry): entry is [string, HostileJson] => entry[1] !== undefined),
          ...extra.filter(([name]) => !Object.hasOwn(declared, name)),
        ]),
      );

  const readCase = () =>
    fc.oneof(
      variablesOf({
        filter: variable(filter()),
        includeEmployed: variable(flag()),
        page: variable(int(-1, 3)),
        limit: variable(int(0, 101)),
      }).map((v) => ['candidates', v] as const),
      variablesOf({
        first: variable(int(0, 101)),
        after: variable(fc.constantFrom<HostileJson>(null, null, null, '')),
        filter: variable(filter()),
        includeEmployed: variable(flag()),
      }).map((v) => ['connection', v] as const),
      variablesOf({ publicId: variable(publicId([...existingIds.slice(0, 5), ...existingIds.slice(-2)])) }).map(
        (v) => ['candidate', v] as const,
      ),
      variablesOf({
        publicId: variable(publicId(lists.map((l) => l.publicId))),
        page: variable(int(-1, 3)),
        limit: variable(int(0, 101)),
      }).map((v) => ['savedList', v] as const),
      variablesOf({
        search: variable(
          fc.oneof<fc.Arbitrary<HostileJson>[]>(
            fc.constantFrom('nurse', 'Engineer', '2221', ' 2221 ', '.*', '(', 'a|b', '[', '\\', '^', 'x'.repeat(101)),
            edgeText,
          ),
        ),
        limit: variable(int(0, 20)),
      }).map((v) => ['occupations', v] as const),
    );

  // -------------------------------------------------------------------------------------------

  test('when the queries get any variables, then the answer is exactly what the rules give, errors carry client codes, and nothing identifying is answered', async () => {
    await checkProperty(
      fc.asyncProperty(readCase(), async ([operation, variables]) => {
        const ex = await request(operation, variables);

        expectNone([
          ...graphqlFailures(ex, INPUT_CODES),
          ...identityLeaks(ex, canaries),
          ...prototypeIntact(),
          ...readFailures(ex, operation, parsed(variables)),
        ]);
      }),
      fuzzParameters(150, 5_000),
    );
  }, 20_000);

  test('when the operator examples of the issue are sent as variables, then each is refused as BAD_USER_INPUT, never a wider result', async () => {
    const cases: [Operation, HostileJson][] = [
      ['candidates', { filter: { location: { $ne: null } } }],
      ['candidates', { filter: { location: [{ $gt: '' }] } }],
      ['candidates', { filter: objectOf([['$where', 'sleep(5000) || true']]) }],
      ['candidates', { filter: { occupation: { $regex: '.*' } } }],
      ['candidates', { page: { $gt: 0 } }],
      ['candidate', { publicId: { $ne: null } }],
      ['candidate', { publicId: { $regex: '.*' } }],
      ['savedList', { publicId: { $gt: '' } }],
      ['occupations', { search: { $regex: '.*' } }],
    ];
    for (const [operation, variables] of cases) {
      const ex = await request(operation, variables);

      expectNone([...graphqlFailures(ex, INPUT_CODES), ...refusedFailures(ex, 'an operator')]);
    }
  });

  test('when the mutations get inputs with hostile values anywhere, then errors carry client codes, only well-formed existing ids are recorded, and no identity value is answered or readable', async () => {
    const notes = fc.oneof(fc.string({ maxLength: 30 }), edgeText, sendable());
    const writeCase = fc.oneof(
      fc
        .tuple(jobMatchInput(existingIds, notes), fc.array(mutation(hostile()), { maxLength: 3 }))
        .map(([input, ms]) => ['createJobMatch', mutate(input, ms), [] as string[]] as const),
      fc
        .tuple(offerToAssistInput(existingIds, notes), fc.array(mutation(hostile()), { maxLength: 3 }))
        .map(([input, ms]) => ['offerToAssist', mutate(input, ms), [] as string[]] as const),
      fc
        .tuple(registrationInput(), fc.array(mutation(hostileValue({ realIds: existingIds })), { maxLength: 3 }))
        .map(([r, ms]) => ['registerCandidate', mutate(r.body, ms), r.values] as const),
    );
    await checkProperty(
      fc.asyncProperty(writeCase, async ([operation, input, values]) => {
        const ex = await request(operation, objectOf([['input', input]]));
        const body = (ex.json ?? {}) as GraphQLBody;
        const failures = [
          ...graphqlFailures(ex, MUTATION_CODES),
          ...identityLeaks(ex, [...canaries, ...values]),
          ...prototypeIntact(),
        ];
        const result = body.data?.[operation] as
          { jobMatchId?: string; offerId?: string; publicId?: string } | undefined;
        const tooLarge = ex.request.body!.length > BODY_LIMIT_BYTES;
        if (tooLarge !== (ex.status === 413))
          failures.push(`a ${ex.status} for a body of ${ex.request.body!.length} bytes`);

        if (operation === 'registerCandidate') {
          const email = valueAt(parsed(input), 'registrationData', 'identity', 'email');
          if (typeof email !== 'string' && result)
            failures.push(`a registration for an e-mail that is not a string: ${describeRequest(ex.request)}`);
          if (result?.publicId) {
            recordSecret(...values);
            canaries.push(...values);
            const read = await request('candidate', { publicId: result.publicId });
            failures.push(...graphqlFailures(read, []), ...identityLeaks(read, canaries));
          }
        } else {
          const given = valueAt(parsed(input), 'candidates');
          // Input coercion makes a single object a list of one.
          const items = Array.isArray(given) ? given : given === undefined ? [] : [given];
          const ids = items.map((item) =>
            item !== null && typeof item === 'object' ? (item as Record<string, unknown>).publicId : undefined,
          );
          const wellFormed = ids.length > 0 && ids.every((id) => typeof id === 'string' && PUBLIC_ID.test(id));
          const codes = (body.errors ?? []).map((e) => e.extensions?.code);
          if (!wellFormed && !tooLarge && !codes.includes('BAD_USER_INPUT'))
            failures.push(
              `ids that are not all public id strings were not refused: ${describeRequest(ex.request)} → ${ex.text.slice(0, 300)}`,
            );
          const recordId = result?.jobMatchId ?? result?.offerId;
          if (recordId) {
            const offer = await service.db.collection<OfferDoc>(COLLECTIONS.offers).findOne({ publicId: recordId });
            const stored = offer?.candidates.map((c) => c.publicId) ?? [];
            if (stored.length === 0 || stored.some((id) => !existingIds.includes(id)))
              failures.push(`recorded ${JSON.stringify(offer?.candidates)} for ${describeRequest(ex.request)}`);
          }
        }
        expectNone(failures);
      }),
      fuzzParameters(120, 5_000),
    );
  }, 20_000);

  test('when a GraphQL request nests 1,000 to 60,000 levels in a variable or another member, then the answer is a 400 or 413 (or the data when the member is ignored), never a 5xx', async () => {
    const member = fc.constantFrom('a variable', 'variables', 'extensions', 'operationName', 'query');
    await checkProperty(
      fc.asyncProperty(
        member,
        deeplyNested(1_000, 60_000),
        fc.constantFrom<Operation>('candidates', 'candidate', 'createJobMatch'),
        async (where, deep, operation) => {
          const body =
            where === 'a variable'
              ? objectOf([
                  ['query', DOCUMENTS[operation]],
                  [
                    'variables',
                    objectOf([
                      [operation === 'candidates' ? 'filter' : operation === 'candidate' ? 'publicId' : 'input', deep],
                    ]),
                  ],
                ])
              : objectOf([
                  ['query', where === 'query' ? deep : DOCUMENTS[operation]],
                  ...(where === 'query' ? [] : [[where, deep] as const]),
                ]);
          const ex = await send(jsonBytes(body));

          expectNone([...graphqlFailures(ex, [...INPUT_CODES, 'BAD_REQUEST']), ...prototypeIntact()]);
        },
      ),
      fuzzParameters(30, 2_000),
    );
  }, 15_000);

  test('when numbers at the edges of JSON are sent as Int, Long-like and String variables, then they are refused or taken exactly, never a 5xx', async () => {
    await readCandidates();
    const literal = fc.constantFrom(
      '1e309',
      '-1e309',
      '-0',
      '1.0',
      '1E2',
      '5e-324',
      '2147483647',
      '2147483648',
      '-2147483648',
      '-2147483649',
      '9007199254740993',
      '123456789012345678901234567890',
      '0.5',
      '"1"',
      '"NaN"',
      'true',
    );
    await checkProperty(
      fc.asyncProperty(literal, fc.constantFrom('page', 'limit'), async (text, name) => {
        const variables = objectOf([[name, new RawJson(text, text)]]);
        const ex = await request('candidates', variables);

        expectNone([...graphqlFailures(ex, INPUT_CODES), ...searchFailures(ex, parsed(variables), 'candidates')]);
      }),
      fuzzParameters(40, 2_000),
    );
  }, 15_000);

  test('when a refused variable holds a value with a ";" inside, then no part of the value is in the message', async () => {
    const secret = fc
      .tuple(
        fc.stringMatching(/^zq\d{5}$/),
        fc.stringMatching(/^xk\d{5}$/),
        fc.constantFrom(';', '; ', ' at "q";', '";', ';;'),
      )
      .map(([before, after, separator]) => ({ value: `${before}${separator}${after}`, parts: [before, after] }));
    const slot = fc.constantFrom<[Operation, (value: string) => HostileJson]>(
      ['candidate', (value) => ({ publicId: value })],
      ['connection', (value) => ({ includeEmployed: value })],
      ['candidates', (value) => ({ page: value })],
      ['candidates', (value) => ({ filter: { location: [value], nationality: 5 } })],
      ['occupations', (value) => ({ search: [value, 1] })],
      [
        'createJobMatch',
        (value) => ({
          input: { candidates: [{ publicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], additionalNotes: value, unknownField: 1 },
        }),
      ],
    );
    await checkProperty(
      fc.asyncProperty(slot, secret, async ([operation, variablesOf], { value, parts }) => {
        const ex = await request(operation, variablesOf(value));

        expectNone([
          ...graphqlFailures(ex, INPUT_CODES),
          ...refusedFailures(ex, 'a variable of the wrong type'),
          ...identityLeaks(ex, parts),
        ]);
      }),
      fuzzParameters(30, 2_000),
    );
  }, 15_000);

  describe('names the caller wrote', () => {
    /** A name to hide: e-mail-like, or with the quotes and words of graphql-js's own message around it. */
    const secretKey = fc.oneof(
      fc.stringMatching(/^zyxw\.[a-z]{4}\d{3}@example\.org$/),
      fc.stringMatching(/^kq\d{6}$/).map((name) => `${name}" is not defined by type "Query". Field "${name}`),
      fc.stringMatching(/^kq\d{6}$/).map((name) => `"${name}";\n\u200b${name}"`),
    );
    /** Where an input object of each mutation or query takes an unknown field, and the type that refuses it. */
    const slot = fc.constantFrom<[Operation, (key: string) => HostileJson, string]>(
      [
        'registerCandidate',
        (key) => ({ input: { registrationData: { identity: { email: 'a@example.org', [key]: 'x' } } } }),
        'IdentityInput',
      ],
      [
        'registerCandidate',
        (key) => ({ input: { registrationData: { identity: { email: 'a@example.org' }, [key]: 1 } } }),
        'RegistrationDataInput',
      ],
      [
        'registerCandidate',
        (key) => ({
          input: {
            registrationData: { identity: { email: 'a@example.org' }, country: { isoCode: 'JO', [key]: null } },
          },
        }),
        'CountryRefInput',
      ],
      [
        'createJobMatch',
        (key) => ({ input: { candidates: [{ publicId: 'AAAAAAAAAAAAAAAAAAAAAA', [key]: true }] } }),
        'CandidateRefInput',
      ],
      ['candidates', (key) => ({ filter: { location: ['JO'], [key]: ['x'] } }), 'CandidateFilter'],
    );

    test('when a variable holds a field the schema does not define, then the error names the type that refuses it and no part of the field name', async () => {
      await checkProperty(
        fc.asyncProperty(slot, secretKey, async ([operation, variablesWith, typeName], key) => {
          const ex = await request(operation, variablesWith(key));

          const errors = (ex.json as GraphQLBody).errors ?? [];
          expectNone([
            ...graphqlFailures(ex, ['BAD_USER_INPUT']),
            ...identityLeaks(ex, key.match(/[a-z]{2,}\d+|zyxw/g) ?? [key]),
          ]);
          expect(errors.map((error) => error.message)).toEqual([
            expect.stringContaining(`is not defined by type "${typeName}"`),
          ]);
        }),
        fuzzParameters(30, 3_000),
      );
    }, 15_000);

    /** Documents that put a name of the caller's where a schema name belongs, each refused for its own reason. */
    const documents: [
      problem: string,
      build: (name: string) => { query: string; operationName?: string; variables?: HostileJson },
    ][] = [
      ['an unknown field', (name) => ({ query: `{ countries { isoCode ${name} } }` })],
      ['an unknown root field', (name) => ({ query: `query { ${name} }` })],
      ['an unknown argument', (name) => ({ query: `{ occupations(${name}: 1) { isco08Code } }` })],
      ['an unknown type of a variable', (name) => ({ query: `query Q($v: ${name}) { countries { isoCode } }` })],
      ['an unknown fragment', (name) => ({ query: `{ countries { ...${name} } }` })],
      ['an unknown type condition', (name) => ({ query: `{ countries { ... on ${name} { isoCode } } }` })],
      ['an unused variable', (name) => ({ query: `query Q($${name}: Int) { countries { isoCode } }` })],
      ['an undefined variable', (name) => ({ query: `query Q { occupations(search: $${name}) { isco08Code } }` })],
      [
        'a variable of the wrong type',
        (name) => ({ query: `query Q($${name}: Int) { occupations(search: $${name}) { isco08Code } }` }),
      ],
      [
        'a missing variable',
        (name) => ({ query: `query Q($${name}: String!) { occupations(search: $${name}) { isco08Code } }` }),
      ],
      ['an unknown directive', (name) => ({ query: `{ countries @${name} { isoCode } }` })],
      ['an unknown operation name', (name) => ({ query: 'query A { countries { isoCode } }', operationName: name })],
      [
        'two operations of the same name',
        (name) => ({
          query: `query ${name} { countries { isoCode } } query ${name} { languages { isoCode } }`,
          operationName: name,
        }),
      ],
      ['a name where a value belongs', (name) => ({ query: `{ occupations(search: ${name}) { isco08Code } }` })],
      ['a stray name', (name) => ({ query: `{ countries { isoCode } } ${name}` })],
      ['a stray string', (name) => ({ query: `{ countries { isoCode "${name}@example.org" } }` })],
      ['a name after a colon', (name) => ({ query: `{ countries: : ${name} { isoCode } }` })],
    ];

    test.each(documents)(
      'when a document has %s, then the error says so with its place, and never the name',
      async (problem, build) => {
        await checkProperty(
          fc.asyncProperty(fc.stringMatching(/^kq[a-z]{3}\d{5}$/), async (name) => {
            const body = build(name);
            const ex = await send(jsonBytes(objectOf(Object.entries<HostileJson>(body))));

            const errors = (ex.json as { errors?: { message: string; locations?: unknown[] }[] }).errors ?? [];
            expectNone([
              ...graphqlFailures(ex, [
                'GRAPHQL_PARSE_FAILED',
                'GRAPHQL_VALIDATION_FAILED',
                'BAD_USER_INPUT',
                'OPERATION_RESOLUTION_FAILURE',
              ]),
              ...identityLeaks(ex, [name]),
            ]);
            expect([problem, errors.length > 0]).toEqual([problem, true]);
            for (const error of errors) expect(error.message).toMatch(/\w+ \w+/);
            // Where: every error of the document itself points into it (an unknown operation name has no place in it).
            if (body.operationName === undefined)
              expect(errors.every((error) => (error.locations ?? []).length > 0)).toBe(true);
          }),
          fuzzParameters(3, 2_000),
        );
      },
      15_000,
    );
  });

  describe('documents that do not parse', () => {
    const inline = identityCanary('dq7w2x');
    const document = `mutation { registerCandidate(input: { registrationData: { identity: { email: "${inline.email}" }, city: "Amman" } }) { publicId } }`;
    /** The document cut short, or with a character that breaks its syntax put in. */
    const broken = fc.oneof(
      fc.integer({ min: 1, max: document.length - 1 }).map((at) => document.slice(0, at)),
      fc
        .tuple(
          fc.integer({ min: 0, max: document.length }),
          fc.constantFrom('\\uD800', '\\u{110000}', '"', '{', '$', '\u0000', '...'),
        )
        .map(([at, bad]) => `${document.slice(0, at)}${bad}${document.slice(at)}`),
    );
    const parseError = async (query: string) => {
      const ex = await send(jsonBytes({ query }));
      fc.pre(!(ex.status === 200 && (ex.json as GraphQLBody).errors === undefined));
      return ex;
    };

    beforeAll(() => recordSecret(...inline.values));

    test('when a document does not parse, then the answer is a 400 with a client code', async () => {
      await checkProperty(
        fc.asyncProperty(broken, async (query) => {
          const ex = await parseError(query);

          expectNone(graphqlFailures(ex, ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']));
          expect(ex.status).toBe(400);
        }),
        fuzzParameters(30, 2_000),
      );
    }, 15_000);

    test('when a document does not parse, then its inline values are not in the answer', async () => {
      await checkProperty(
        fc.asyncProperty(broken, async (query) => {
          const ex = await parseError(query);

          expectNone(identityLeaks(ex, inline.values));
        }),
        fuzzParameters(30, 2_000),
      );
    }, 15_000);
  });

  test('when a document has more tokens than the limit, then the answer is a 400 with a client code', async () => {
    await checkProperty(
      fc.asyncProperty(fc.integer({ min: 2_001, max: 4_000 }), async (tokens) => {
        const ex = await send(jsonBytes({ query: `{ countries { ${'isoCode '.repeat(tokens)}} }` }));

        expectNone(graphqlFailures(ex, ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']));
        expect(ex.status).toBe(400);
      }),
      fuzzParameters(5, 2_000),
    );
  }, 15_000);
});
