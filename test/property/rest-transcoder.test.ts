import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import {
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  parse,
  print,
  visit,
  type DefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
} from 'graphql';
import { Double, Int32, Long } from 'mongodb';
import { createSchema } from '../../src/graphql/schema';
import { fieldSourceOf } from '../../src/graphql/resolvers/field-source';
import { COLLECTIONS } from '../../src/app/indexes';
import { newPublicId } from 'candidate-documents';
import { loadPersistedOperations, persistedOperationsDirectory } from '../../src/rest/persisted-operations';
import type { ReferenceCollection } from '../../src/reference/reference-repository';
import { anyUnits, checkProperty, edgeText, FUZZ_SEED, fuzzParameters } from '../support/arbitraries';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';

/**
 * The /v1 reads written from stored bytes (src/rest/transcoder/) answer, byte for byte, what the
 * GraphQL executor answers for the same persisted operation, written by the operation's JSON
 * writer: the same body, or a 500 where the executor fails. Candidates are drawn from the
 * schema's own types (every field the persisted selection can read): fields missing or null,
 * empty and non-empty arrays, unicode (astral, combining, JSON escapes, lone surrogates as the
 * driver stores them), numbers at the limits of int32, int64 and double, dates from before year
 * 0 to after 9999, reference codes known and unknown, joined job opportunities present or not.
 * A share of the candidates is hostile: values of another BSON type than the field's, which the
 * executor coerces or refuses, and which the transcoder must leave to it.
 */
const schema = createSchema();
const operations = loadPersistedOperations(schema);
const candidateJson = operations.jsonWriter('GetCandidate', ['candidate']);
const pageJson = operations.jsonWriter('FindCandidates', ['candidates']);
const listPageJson = operations.jsonWriter('GetCandidatesByList', ['savedList', 'candidates']);

/** The text of a persisted operation with exactly the fragments it uses, as a GraphQL client sends it. */
function operationText(file: string): string {
  const directory = persistedOperationsDirectory();
  const fragments = new Map<string, DefinitionNode>();
  for (const definition of parse(fs.readFileSync(path.join(directory, 'fragments.graphql'), 'utf8')).definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const operation = parse(fs.readFileSync(path.join(directory, file), 'utf8'));
  const used = new Set<string>();
  const pending: DefinitionNode[] = [...operation.definitions];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        if (used.has(node.name.value)) return;
        used.add(node.name.value);
        pending.push(fragments.get(node.name.value)!);
      },
    });
  }
  return print({
    kind: Kind.DOCUMENT,
    definitions: [...operation.definitions, ...[...used].map((n) => fragments.get(n)!)],
  });
}

const GET_CANDIDATE = operationText('get-candidate.graphql');
const FIND_CANDIDATES = operationText('find-candidates.graphql');
const BY_LIST = operationText('get-candidates-by-list.graphql');

// ---------------------------------------------------------------------------------------------
// Stored values drawn from the schema

const MISSING = Symbol('missing');
type Stored = unknown;

const INT32_EDGES = [0, 1, -1, 2147483647, -2147483648, 1990];
const DOUBLE_EDGES = [0, -0, 0.1, 1.5, -123.456, 5e-324, 1.7976931348623157e308, 1e21, 1e-7, 2 ** 53, -(2 ** 53), 6.5];
const DATE_EDGES = [0, -1, 253402300799999, 253402300800000, -62167219200000, -62198755200000, 8.64e15, -8.64e15];

/**
 * How often a hostile candidate's value is of another type than its field's: about one value in
 * a candidate, so that each such value meets the transcoder alone (several would hide each other:
 * the first one already hands the answer to the executor).
 */
const VALID = { weight: 150 } as const;
const HOSTILE = { weight: 1 } as const;

const texts: fc.Arbitrary<string> = fc.oneof(edgeText, anyUnits, fc.string({ unit: 'binary', maxLength: 8 }));

/** A value of the scalar as the executor takes it; `hostile` adds values of other BSON types, which it coerces or refuses. */
function scalarValue(name: string, hostile: boolean): fc.Arbitrary<Stored> {
  const int32 = fc.oneof(fc.constantFrom(...INT32_EDGES), fc.integer()).map((n) => new Int32(n));
  const doubles = fc.oneof(fc.constantFrom(...DOUBLE_EDGES), fc.double({ noNaN: true, noDefaultInfinity: true }));
  const safeLongs = fc
    .oneof(fc.constantFrom(2 ** 53, -(2 ** 53), 2 ** 31, 7), fc.maxSafeInteger())
    .map((n) => Long.fromNumber(n));
  const wrong = fc.constantFrom<Stored>(
    new Double(NaN),
    new Double(Infinity),
    new Double(2.5),
    new Double(2147483648),
    Long.fromString('9007199254740993'),
    Long.MAX_VALUE,
    '12',
    true,
    new Int32(1),
    new Date(0),
    [],
    {},
  );
  let valid: fc.Arbitrary<Stored>;
  switch (name) {
    case 'Int':
      valid = fc.oneof(
        int32,
        fc.constantFrom(new Double(3), new Double(-0), Long.fromNumber(-5), Long.fromNumber(2147483647)),
      );
      break;
    case 'Float':
    case 'Long':
      valid = fc.oneof(
        doubles.map((d) => new Double(d)),
        int32,
        safeLongs,
      );
      break;
    case 'Boolean':
      valid = fc.boolean();
      break;
    case 'DateTime':
      valid = fc
        .oneof(fc.constantFrom(...DATE_EDGES), fc.integer({ min: -8.64e15, max: 8.64e15 }))
        .map((ms) => new Date(ms));
      break;
    default: // String, Date, PublicId: the stored text as it is
      valid = texts;
  }
  return hostile ? fc.oneof({ arbitrary: valid, ...VALID }, { arbitrary: wrong, ...HOSTILE }) : valid;
}

const REFERENCE_KEYS: Record<ReferenceCollection, readonly Stored[]> = {
  countries: ['SY', 'JO', 'LB', 'DE', 'ZZ', 'sy', '', 'XK'],
  languages: ['ar', 'en', 'fr', 'zz', 'AR'],
  languageLevels: [0, 3, 6, 7, 99, new Double(4), Long.fromNumber(5), '3'],
  occupations: ['2221', '7126', '0110', '9999', '22210', 2221],
  educationLevels: [0, 4, 8, 9, new Double(6), '6'],
  educationMajors: [1, 2, 3, 5, 99999, '1'],
};

interface Pools {
  jobOpportunityIds: readonly string[];
}

function optional(value: fc.Arbitrary<Stored>, nonNull: boolean, hostile: boolean): fc.Arbitrary<Stored> {
  // A non-null field stored null or missing fails the executor: only hostile candidates have one.
  if (nonNull)
    return hostile
      ? fc.oneof({ arbitrary: value, ...VALID }, { arbitrary: fc.constantFrom(MISSING, null), ...HOSTILE })
      : value;
  return fc.oneof(
    { arbitrary: value, weight: 6 },
    { arbitrary: fc.constant(MISSING), weight: 2 },
    { arbitrary: fc.constant(null), weight: 1 },
  );
}

function valueOf(type: GraphQLOutputType, hostile: boolean, pools: Pools, depth: number): fc.Arbitrary<Stored> {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    const item = valueOf(inner.ofType, hostile, pools, depth);
    // A null item: left out of a list of nullable items, an error in a list of non-null ones.
    const items = isNonNullType(inner.ofType)
      ? hostile
        ? fc.oneof({ arbitrary: item, ...VALID }, { arbitrary: fc.constant(null), ...HOSTILE })
        : item
      : fc.oneof({ arbitrary: item, weight: 9 }, { arbitrary: fc.constant(null), weight: 1 });
    return fc.array(items, { maxLength: depth > 1 ? 2 : 3 });
  }
  if (isScalarType(inner)) return scalarValue(inner.name, hostile);
  if (isEnumType(inner)) {
    const valid = fc.constantFrom(...inner.getValues().map((v) => v.name));
    return hostile
      ? fc.oneof(
          { arbitrary: valid, ...VALID },
          { arbitrary: fc.constantFrom<Stored>('NOT_A_VALUE', 'active', 3), ...HOSTILE },
        )
      : valid;
  }
  if (isObjectType(inner)) return documentOf(inner, hostile, pools, depth + 1);
  throw new Error(`no stored value for ${String(inner)}`);
}

/** A stored document of `type`: each field at the path its resolver reads, missing, null or a value. */
function documentOf(
  type: GraphQLObjectType,
  hostile: boolean,
  pools: Pools,
  depth = 0,
): fc.Arbitrary<Record<string, Stored>> {
  const parts: fc.Arbitrary<[readonly string[], Stored]>[] = [];
  for (const field of Object.values(type.getFields())) {
    const source = fieldSourceOf(schema, type, field);
    if (source === undefined || source.kind === 'candidates') continue;
    let value: fc.Arbitrary<Stored>;
    if (source.kind === 'stored') value = valueOf(field.type, hostile, pools, depth);
    else if (source.kind === 'reference') value = fc.constantFrom(...REFERENCE_KEYS[source.collection]);
    else value = fc.constantFrom<Stored>(...pools.jobOpportunityIds, newPublicId(), 42);
    parts.push(optional(value, isNonNullType(field.type), hostile).map((v) => [source.path, v]));
  }
  return fc.tuple(...parts).map((entries) => {
    const document: Record<string, Stored> = {};
    for (const [where, value] of entries) {
      if (value === MISSING) continue;
      let at = document;
      for (const name of where.slice(0, -1)) {
        if (at[name] === undefined || at[name] === null || typeof at[name] !== 'object') at[name] = {};
        at = at[name] as Record<string, Stored>;
      }
      at[where[where.length - 1]] = value;
    }
    return document;
  });
}

const candidateType = schema.getType('Candidate') as GraphQLObjectType;
const jobType = schema.getType('JobOpportunity') as GraphQLObjectType;

// ---------------------------------------------------------------------------------------------

describe('REST reads written from stored bytes, against the executor', () => {
  let service: AppUnderTest;
  let key: string;
  let pools: Pools;

  beforeAll(async () => {
    service = await startAppUnderTest({
      candidates: 0,
      config: { rateLimitReads: 1_000_000, graphqlMaxCost: 1_000_000, graphqlMaxDepth: 20, readCacheMb: 0 },
    });
    key = await service.key('READ_CANDIDATE_DATA');
    const jobs = fc.sample(documentOf(jobType, false, { jobOpportunityIds: [] }), { seed: FUZZ_SEED, numRuns: 8 });
    const jobOpportunityIds = jobs.map(() => newPublicId());
    await service.db
      .collection(COLLECTIONS.jobOpportunities)
      .insertMany(jobs.map((job, i) => ({ ...job, publicId: jobOpportunityIds[i] })));
    pools = { jobOpportunityIds };
  });

  afterAll(async () => {
    await service.stop();
  });

  const candidateArbitrary = () =>
    fc.oneof(
      { arbitrary: documentOf(candidateType, false, pools), weight: 1 },
      { arbitrary: documentOf(candidateType, true, pools), weight: 1 },
    );

  async function store(document: Record<string, Stored>, overrides: Record<string, Stored> = {}): Promise<string> {
    const publicId = newPublicId();
    await service.db.collection(COLLECTIONS.candidates).insertOne({
      ...document,
      publicId,
      createdDate: document.createdDate ?? new Date(0),
      listed: true,
      ...overrides,
    });
    return publicId;
  }

  async function restGet(url: string): Promise<{ status: number; text: string }> {
    const response = await fetch(`${service.url}${url}`, { headers: { 'x-api-key': key } });
    return { status: response.status, text: await response.text() };
  }

  /** The executor's answer through GraphQL, as the REST edge writes it: its body, or 500 when it reports an error. */
  async function executorAnswer(
    query: string,
    variables: Record<string, unknown>,
    body: (data: Record<string, unknown>) => unknown,
    write: (value: unknown) => string,
  ): Promise<{ status: number; text?: string }> {
    const answer = await graphql<Record<string, unknown>>(service.url, query, variables, key);
    if (answer.body.errors !== undefined && answer.body.errors.length > 0) return { status: 500 };
    return { status: 200, text: write(body(answer.body.data!)) };
  }

  test('when a stored value is one only the executor coerces (a year stored as text), then the executor answers the read, as before', async () => {
    const publicId = await store({ yearOfBirth: '1990', city: 'Amman' });

    const rest = await restGet(`/v1/candidates/${publicId}`);

    expect(rest.status).toBe(200);
    // graphql-js's Int turns the numeric text into a number; the transcoder writes numbers from numbers only.
    expect(rest.text).toBe(
      `{"publicId":"${publicId}","createdDate":"1970-01-01T00:00:00.000Z","yearOfBirth":1990,"city":"Amman"}`,
    );
  });

  test.each([
    ['Infinity', Infinity],
    ['a fraction', 2.5],
    ['beyond the safe integers', 2 ** 53],
  ])(
    'when a Long field holds %s, then neither road writes it (no JSON null): the read fails as GraphQL does',
    async (_, value) => {
      const publicId = await store({ numberDependants: value, city: 'Amman' });

      const rest = await restGet(`/v1/candidates/${publicId}`);
      const expected = await executorAnswer(GET_CANDIDATE, { publicId }, (data) => data.candidate, candidateJson);

      expect(expected.status).toBe(500);
      expect(rest.status).toBe(500);
      expect(rest.text).not.toContain('numberDependants');
    },
  );

  test('when a random stored candidate is read by id, then the REST body is the executor’s, byte for byte (or both fail)', async () => {
    await checkProperty(
      fc.asyncProperty(candidateArbitrary(), async (document) => {
        const publicId = await store(document);

        const rest = await restGet(`/v1/candidates/${publicId}`);
        const expected = await executorAnswer(GET_CANDIDATE, { publicId }, (data) => data.candidate, candidateJson);

        expect(rest.status).toBe(expected.status);
        if (expected.status === 200) expect(rest.text).toBe(expected.text);
      }),
      fuzzParameters(150, 20_000),
    );
  });

  test('when random stored candidates are read as a page (a saved list, a search), then each REST body is the executor’s, byte for byte (or both fail)', async () => {
    let run = 0;
    await checkProperty(
      fc.asyncProperty(fc.array(candidateArbitrary(), { minLength: 1, maxLength: 4 }), async (documents) => {
        // A location of this run's own, so that the search finds exactly these candidates.
        const location = String.fromCharCode(65 + Math.floor(run / 26), 65 + (run % 26));
        run++;
        const ids: string[] = [];
        for (const document of documents) ids.push(await store(document, { countryIsoCode: location }));
        const publicListId = newPublicId();
        await service.db.collection(COLLECTIONS.savedLists).insertOne({
          publicId: publicListId,
          name: 'transcoder',
          candidatePublicIds: [...ids, newPublicId()],
          createdDate: new Date(0),
        });

        const listed = await restGet(`/v1/candidates/by-list/${publicListId}?limit=100`);
        const expectedList = await executorAnswer(
          BY_LIST,
          { publicListId, limit: 100 },
          (data) => (data.savedList as Record<string, unknown>).candidates,
          listPageJson,
        );
        const found = await restGet(`/v1/candidates?location=${location}&includeEmployed=true&limit=100`);
        const expectedSearch = await executorAnswer(
          FIND_CANDIDATES,
          { filter: { location: [location] }, includeEmployed: true, limit: 100 },
          (data) => data.candidates,
          pageJson,
        );

        expect(listed.status).toBe(expectedList.status);
        if (expectedList.status === 200) expect(listed.text).toBe(expectedList.text);
        expect(found.status).toBe(expectedSearch.status);
        if (expectedSearch.status === 200) expect(found.text).toBe(expectedSearch.text);
      }),
      fuzzParameters(60, 20_000),
    );
  });
});
