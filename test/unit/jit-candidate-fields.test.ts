import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import fs from 'node:fs';
import path from 'node:path';
import { CANDIDATE_RESOLVER_SOURCES, candidateFieldsOf } from '../../src/graphql/execution/candidate-fields';
import { persistedOperationsDirectory } from '../../src/rest/persisted-operations';
import { Candidate } from '../../src/graphql/resolvers/Candidate';

/** What a resolver receives as `info`, for the first root field of `source`. */
function infoOf(source: string): { fieldNodes: FieldNode[]; fragments: Record<string, FragmentDefinitionNode> } {
  const document = parse(source);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const fragments = Object.fromEntries(
    document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])),
  );
  return { fieldNodes: [operation.selectionSet.selections[0] as FieldNode], fragments };
}

describe('the stored fields a selection of candidates needs', () => {
  test('when a page selects fields, nested lists and references, then it needs those fields, the sources of the references and the order keys', () => {
    const info = infoOf(
      `{ candidates(limit: 5) { totalElements content { __typename gender status country { name } partner { publicId nationality { isoCode } } candidateOccupations { occupation { name } } } } }`,
    );

    expect(candidateFieldsOf(info, ['content'])?.sort()).toEqual(
      [
        'publicId',
        'createdDate',
        'gender',
        'status',
        'countryIsoCode',
        'partnerPublicId',
        'candidateOccupations',
      ].sort(),
    );
  });

  test('when the selection comes through aliases, fragments and inline fragments, then every part counts', () => {
    const info = infoOf(`
      query { candidatesConnection(first: 3) { ...Edges edges { again: node { ... on Candidate { city @skip(if: true) } } } } }
      fragment Edges on CandidateConnection { edges { cursor node { ...Card } } }
      fragment Card on Candidate { maxEducationLevel { level } ...More }
      fragment More on Candidate { partnerOccupation { name } yearOfBirth }`);

    expect(candidateFieldsOf(info, ['edges', 'node'])?.sort()).toEqual(
      ['publicId', 'createdDate', 'maxEducationLevel', 'partnerOccupationIsco08Code', 'yearOfBirth', 'city'].sort(),
    );
  });

  test('when no candidate field is selected, then only the order keys are read', () => {
    expect(candidateFieldsOf(infoOf('{ candidates { totalElements } }'), ['content'])).toEqual([
      'publicId',
      'createdDate',
    ]);
  });

  test("when a selection is as wide as the REST contract's, then only its fields are read still (no limit on their number)", () => {
    const rest = persistedOperationsDirectory();
    const info = infoOf(
      `${fs.readFileSync(path.join(rest, 'find-candidates.graphql'), 'utf8')}\n${fs.readFileSync(path.join(rest, 'fragments.graphql'), 'utf8')}`,
    );

    const fields = candidateFieldsOf(info, ['content']);

    expect(fields?.length).toBeGreaterThan(50);
    expect(fields).toEqual(
      expect.arrayContaining([
        'publicId',
        'createdDate',
        'countryIsoCode',
        'candidateOccupations',
        'candidateVisaChecks',
      ]),
    );
    expect(fields).not.toContain('_id');
  });

  test('when Candidate has a resolver, then the table names the stored field it reads (else projection would hide it)', () => {
    expect(Object.keys(Candidate).sort()).toEqual(Object.keys(CANDIDATE_RESOLVER_SOURCES).sort());
  });

  test('when id resolves on a candidate holding only publicId, then it is the global id of that key', () => {
    const resolve = Candidate.id as (parent: unknown, args: unknown, context: unknown, info: unknown) => unknown;

    expect(resolve({ publicId: 'anqOhLMzRR6ENxcJTfvFfw' }, {}, {}, {})).toBe(
      Buffer.from('Candidate:anqOhLMzRR6ENxcJTfvFfw').toString('base64url'),
    );
  });

  // `id` reads its key without a lookup (above); every other resolver looks its key up.
  test.each(Object.entries(CANDIDATE_RESOLVER_SOURCES).filter(([field]) => field !== 'id'))(
    'when %s resolves on a candidate holding only %s, then it looks that key up',
    async (field, source) => {
      const loaded: unknown[] = [];
      const loader = { load: async (key: unknown) => (loaded.push(key), null) };
      // Reference fields read the snapshot (null and undefined keys name nothing), the others a loader.
      const reference = {
        find: (_collection: string, key: unknown) =>
          key === undefined || key === null ? null : (loaded.push(key), null),
      };
      const context = { loaders: new Proxy({}, { get: () => loader }), reference, audit: { addCandidates: () => {} } };
      const resolve = (
        Candidate as Record<string, (parent: unknown, args: unknown, context: unknown, info: unknown) => unknown>
      )[field];

      await resolve({ [source]: 'KEY' }, {}, context, {});
      await resolve({}, {}, context, {});

      expect(loaded).toEqual(['KEY']);
    },
  );
});
