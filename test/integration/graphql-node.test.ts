/**
 * Global Object Identification (schema/node.graphql): `Node.id` on every object with an
 * identity, `node` and `nodes` through the same permissions as the typed fields, over the real
 * transport and store. An unknown id and one the key may not read give the same answer (null).
 */
import { getNamedType, isLeafType, isObjectType, type GraphQLObjectType } from 'graphql';
import type { CandidateDoc, SavedListDoc } from 'candidate-documents';
import { toGlobalId } from '../../src/graphql/global-id';
import { createSchema } from '../../src/graphql/schema';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, graphql, type AppUnderTest } from '../support/app-under-test';
import { fullSelection } from '../support/full-selection';

const UNKNOWN_PUBLIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** Everything a client can read of a candidate through `node`, and the same through `candidate`. */
const CANDIDATE_SELECTION = fullSelection('Candidate');

describe('GraphQL node and nodes (Global Object Identification)', () => {
  let service: AppUnderTest;
  let reader: string;
  let registrar: string;
  let candidate: CandidateDoc;
  let savedList: SavedListDoc;
  let jobOppPublicId: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 60, seed: 11 });
    reader = await service.key('READ_CANDIDATE_DATA');
    registrar = await service.key('REGISTER_CANDIDATES');
    const withJob = await service.db
      .collection<CandidateDoc>(COLLECTIONS.candidates)
      .findOne({ 'candidateVisaChecks.candidateVisaJobChecks.jobOppPublicId': { $exists: true } });
    candidate = withJob!;
    jobOppPublicId = candidate
      .candidateVisaChecks!.flatMap((check) => check.candidateVisaJobChecks ?? [])
      .find((job) => job.jobOppPublicId)!.jobOppPublicId!;
    savedList = (await service.db.collection<SavedListDoc>(COLLECTIONS.savedLists).findOne({}, { sort: { name: 1 } }))!;
  });

  afterAll(async () => {
    await service.stop();
  });

  const node = (id: string, key = reader, selection = '__typename id') =>
    graphql<{ node: Record<string, any> | null }>(
      service.url,
      `query($id: ID!) { node(id: $id) { ${selection} } }`,
      { id },
      key,
    );
  const nodes = (ids: string[], key = reader) =>
    graphql<{ nodes: (Record<string, any> | null)[] }>(
      service.url,
      'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
      { ids },
      key,
    );

  describe('ids', () => {
    test('when a candidate is searched, then its id is the base64url of "Candidate:<publicId>", and publicId stays as it is', async () => {
      const { body } = await graphql<{ candidates: { content: { id: string; publicId: string }[] } }>(
        service.url,
        '{ candidates(limit: 5) { content { id publicId } } }',
        {},
        reader,
      );

      const content = body.data!.candidates.content;
      expect(content).toHaveLength(5);
      for (const item of content) {
        expect(item.publicId).toMatch(/^[A-Za-z0-9_-]{22}$/);
        expect(Buffer.from(item.id, 'base64url').toString()).toBe(`Candidate:${item.publicId}`);
      }
    });

    test('when objects of every Node type are read, then no two share an id, and each id is read back by node as the same object', async () => {
      const { body } = await graphql<{
        candidate: any;
        savedList: any;
        countries: any[];
        languages: any[];
        languageLevels: any[];
        occupations: any[];
        educationLevels: any[];
      }>(
        service.url,
        `
          query ($c: PublicId!, $l: PublicId!) {
            candidate(publicId: $c) {
              id
              candidateVisaChecks {
                candidateVisaJobChecks {
                  jobOpp {
                    id
                  }
                }
              }
            }
            savedList(publicId: $l) {
              id
            }
            countries {
              id
            }
            languages {
              id
            }
            languageLevels {
              id
            }
            occupations(limit: 20) {
              id
            }
            educationLevels {
              id
            }
          }
        `,
        { c: candidate.publicId, l: savedList.publicId },
        reader,
      );
      expect(body.errors).toBeUndefined();
      const data = body.data!;
      const jobOpp = data.candidate.candidateVisaChecks
        .flatMap((check: any) => check.candidateVisaJobChecks ?? [])
        .find((job: any) => job.jobOpp).jobOpp;
      const ids: string[] = [
        data.candidate.id,
        data.savedList.id,
        jobOpp.id,
        ...[data.countries, data.languages, data.languageLevels, data.occupations, data.educationLevels].flatMap(
          (list) => list.map((item: any) => item.id),
        ),
      ];

      expect(new Set(ids).size).toBe(ids.length);
      expect(jobOpp.id).toBe(toGlobalId('JobOpportunity', jobOppPublicId));
      // nodes takes at most 100 ids at once.
      const found: (Record<string, any> | null)[] = [];
      for (let start = 0; start < ids.length; start += 100) {
        const { body: again } = await nodes(ids.slice(start, start + 100));
        expect(again.errors).toBeUndefined();
        found.push(...again.data!.nodes);
      }
      expect(found.map((item) => item?.id)).toEqual(ids);
      expect(new Set(found.map((item) => item?.__typename))).toEqual(
        new Set([
          'Candidate',
          'SavedList',
          'JobOpportunity',
          'Country',
          'Language',
          'LanguageLevel',
          'Occupation',
          'EducationLevel',
        ]),
      );
    });
  });

  describe('node answers what the typed field answers', () => {
    test('when a candidate is fetched by node, then every field equals what candidate(publicId:) gives, through compiled execution too', async () => {
      const typed = await graphql<{ candidate: Record<string, unknown> }>(
        service.url,
        `query($id: PublicId!) { candidate(publicId: $id) { ${CANDIDATE_SELECTION} } }`,
        { id: candidate.publicId },
        reader,
      );
      // Three runs: the same operation is compiled by graphql-jit from its second run on.
      const runs = [];
      for (let run = 0; run < 3; run++)
        runs.push(
          await node(
            toGlobalId('Candidate', candidate.publicId),
            reader,
            `... on Candidate { ${CANDIDATE_SELECTION} }`,
          ),
        );

      expect(typed.body.errors).toBeUndefined();
      for (const { body } of runs) {
        expect(body.errors).toBeUndefined();
        expect(body.data!.node).toEqual(typed.body.data!.candidate);
      }
    });

    test('when a saved list and a country are fetched by node, then their own fields come with them', async () => {
      const list = await node(
        toGlobalId('SavedList', savedList.publicId),
        reader,
        '... on SavedList { publicId name candidates(limit: 1) { totalElements } }',
      );
      const country = await node(toGlobalId('Country', 'SY'), reader, '... on Country { isoCode name }');

      expect(list.body.data!.node).toEqual({
        publicId: savedList.publicId,
        name: savedList.name,
        candidates: { totalElements: expect.any(Number) },
      });
      expect(country.body.data!.node).toEqual({ isoCode: 'SY', name: expect.any(String) });
    });
  });

  describe('nodes over every type at once', () => {
    test('when nodes is sent one id of every Node type with every scalar field of each type selected, then it validates and each object comes with its own scalar fields, as node answers it alone', async () => {
      const schema = createSchema();
      const nodeTypes = Object.values(schema.getTypeMap())
        .filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'))
        .map((type) => type.name)
        .sort();
      const ids: Record<string, string> = {
        Candidate: toGlobalId('Candidate', candidate.publicId),
        SavedList: toGlobalId('SavedList', savedList.publicId),
        JobOpportunity: toGlobalId('JobOpportunity', jobOppPublicId),
        Country: toGlobalId('Country', 'SY'),
        Language: toGlobalId('Language', 'ar'),
        LanguageLevel: toGlobalId('LanguageLevel', '3'),
        Occupation: toGlobalId('Occupation', '2211'),
        EducationLevel: toGlobalId('EducationLevel', '3'),
      };
      // Every scalar and enum field of the type (what two fragments on one field can conflict on;
      // nested objects are checked by their own type, and all of them would pass the cost limit).
      // A candidate's status is another type (CandidateStatus) than reference data's (Status):
      // fields of different types never merge, so a client aliases it. Same type, same
      // nullability is what lets every other field be selected as it is.
      const selection = (type: string) =>
        Object.values((schema.getType(type) as GraphQLObjectType).getFields())
          .filter((field) => isLeafType(getNamedType(field.type)) && field.args.length === 0)
          .map((field) => (type === 'Candidate' && field.name === 'status' ? 'candidateStatus: status' : field.name))
          .join(' ');
      const fragments = nodeTypes.map((type) => `... on ${type} { __typename ${selection(type)} }`).join(' ');

      const all = await graphql<{ nodes: (Record<string, any> | null)[] }>(
        service.url,
        `query($ids: [ID!]!) { nodes(ids: $ids) { ${fragments} } }`,
        { ids: nodeTypes.map((type) => ids[type]) },
        reader,
      );
      const alone = [];
      for (const type of nodeTypes)
        alone.push((await node(ids[type], reader, `... on ${type} { __typename ${selection(type)} }`)).body);

      expect(Object.keys(ids).sort()).toEqual(nodeTypes);
      expect(all.body.errors).toBeUndefined();
      expect(all.body.data!.nodes.map((item) => item?.__typename)).toEqual(nodeTypes);
      expect(all.body.data!.nodes).toEqual(alone.map((body) => body.data!.node));
      expect(all.body.data!.nodes.find((item) => item?.__typename === 'Candidate')?.candidateStatus).toEqual(
        expect.any(String),
      );
    });
  });

  describe('permissions: an id the key may not read answers as an unknown one', () => {
    test('when a key without READ_CANDIDATE_DATA asks node for a candidate, a saved list or a job opportunity, then each is null without an error, as for unknown ids', async () => {
      const readable = [
        toGlobalId('Candidate', candidate.publicId),
        toGlobalId('SavedList', savedList.publicId),
        toGlobalId('JobOpportunity', jobOppPublicId),
      ];
      const unknown = [
        toGlobalId('Candidate', UNKNOWN_PUBLIC_ID),
        toGlobalId('SavedList', UNKNOWN_PUBLIC_ID),
        toGlobalId('JobOpportunity', UNKNOWN_PUBLIC_ID),
      ];

      const forbidden = await nodes(readable, registrar);
      const missing = await nodes(unknown, registrar);
      const single = await node(readable[0], registrar);
      const typed = await graphql(
        service.url,
        'query($id: PublicId!) { candidate(publicId: $id) { publicId } }',
        { id: candidate.publicId },
        registrar,
      );

      expect(forbidden.body).toEqual({ data: { nodes: [null, null, null] } });
      expect(missing.body).toEqual(forbidden.body);
      expect(single.body).toEqual({ data: { node: null } });
      // The typed field refuses outright: node reveals no more than it does.
      expect(typed.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    });

    test('when the same key asks node for reference data, then it gets it (the reference lists need only a valid key)', async () => {
      const { body } = await node(
        toGlobalId('LanguageLevel', 1),
        registrar,
        '__typename ... on LanguageLevel { level }',
      );

      expect(body).toEqual({ data: { node: { __typename: 'LanguageLevel', level: 1 } } });
    });

    test('when a key with READ_CANDIDATE_DATA asks for an unknown id of a known type, then the answer is null', async () => {
      const { body } = await nodes([
        toGlobalId('Candidate', UNKNOWN_PUBLIC_ID),
        toGlobalId('Country', 'ZZ'),
        toGlobalId('EducationLevel', 999),
      ]);

      expect(body).toEqual({ data: { nodes: [null, null, null] } });
    });

    test('when an id names an existing key under another type, then the answer is null (a candidate id is not a saved list)', async () => {
      const { body } = await nodes([
        toGlobalId('SavedList', candidate.publicId),
        toGlobalId('Candidate', savedList.publicId),
        toGlobalId('Language', 'SY'),
      ]);

      expect(body).toEqual({ data: { nodes: [null, null, null] } });
    });

    test('when no API key is sent, then node is refused as every query is (401)', async () => {
      const { status, body } = await node(toGlobalId('Country', 'SY'), '');

      expect(status).toBe(401);
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('malformed ids', () => {
    test.each([
      ['a publicId instead of a global id', () => candidate.publicId],
      ['not base64url', () => 'Q2FuZGlkYXRlOg=='],
      ['an unknown type', () => Buffer.from(`Person:${UNKNOWN_PUBLIC_ID}`).toString('base64url')],
      ['a key that is no public id', () => Buffer.from('Candidate:abc').toString('base64url')],
      ['no type at all', () => Buffer.from(UNKNOWN_PUBLIC_ID).toString('base64url')],
      ['empty', () => ''],
    ])('when the id is %s, then node fails with BAD_USER_INPUT naming the argument', async (_case, id) => {
      const { status, body } = await node(id());

      expect(status).toBe(200);
      expect(body.data).toEqual({ node: null });
      expect(body.errors).toEqual([
        expect.objectContaining({ path: ['node'], extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }),
      ]);
    });

    test('when nodes is given 101 ids, or one malformed id among good ones, then it fails with BAD_USER_INPUT and reads nothing', async () => {
      const tooMany = await nodes(Array.from({ length: 101 }, () => toGlobalId('Country', 'SY')));
      const oneBad = await nodes([toGlobalId('Country', 'SY'), 'nope!']);

      for (const { body } of [tooMany, oneBad]) {
        expect(body.data ?? null).toBeNull();
        expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      }
      expect(oneBad.body.errors?.[0]?.message).toMatch(/ids\[1\]/);
    });
  });
});
