/**
 * Apollo Client 4 (core, `InMemoryCache` without type policies), the client rich apps run,
 * against the real service: objects are normalised by `__typename` and `id` (Node.id) with no
 * configuration, and its persisted-query link works with the automatic persisted queries of
 * /graphql.
 */
import { createHash } from 'node:crypto';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { OperationTypeNode } from 'graphql';
import { PERSISTED_QUERY_COLLECTION } from '../../src/persisted-queries/persisted-query-indexes';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';

const SEARCH = gql`
  query Search {
    candidates(limit: 5) {
      totalElements
      content {
        id
        publicId
        city
      }
    }
  }
`;

const ONE = gql`
  query One($publicId: PublicId!) {
    candidate(publicId: $publicId) {
      id
      publicId
      city
      yearOfBirth
      country {
        id
        isoCode
        name
      }
    }
  }
`;

/** The search as it would read with the field only the second query fetched. */
const SEARCH_WITH_YEAR = gql`
  query Search {
    candidates(limit: 5) {
      totalElements
      content {
        id
        publicId
        city
        yearOfBirth
      }
    }
  }
`;

interface SearchData {
  candidates: {
    totalElements: number;
    content: {
      __typename: 'Candidate';
      id: string;
      publicId: string;
      city: string | null;
      yearOfBirth?: number | null;
    }[];
  };
}

describe('Apollo Client against the service', () => {
  let service: AppUnderTest;
  let reader: string;
  /** bodies of every request the clients sent, to see what went over the wire */
  let sent: Record<string, any>[];

  const recordingFetch: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
    return fetch(input, init);
  };

  const client = (...links: ApolloLink[]) =>
    new ApolloClient({
      link: ApolloLink.from([
        ...links,
        new HttpLink({ uri: `${service.url}/graphql`, headers: { 'x-api-key': reader }, fetch: recordingFetch }),
      ]),
      cache: new InMemoryCache(),
    });

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 30, seed: 4 });
    reader = await service.key('READ_CANDIDATE_DATA');
  });

  beforeEach(() => {
    sent = [];
  });

  afterAll(async () => {
    await service.stop();
  });

  test('when a search and then a candidate query run, then the cache holds one entry per candidate, and the field of the second is visible through the first', async () => {
    const apollo = client();

    const search = await apollo.query<SearchData>({ query: SEARCH });
    const picked = search.data!.candidates.content[2];
    const one = await apollo.query<{ candidate: { yearOfBirth: number | null } }>({
      query: ONE,
      variables: { publicId: picked.publicId },
    });

    const entries = apollo.cache.extract() as Record<string, Record<string, unknown>>;
    const candidateKeys = Object.keys(entries).filter((key) => key.startsWith('Candidate:'));
    expect(candidateKeys.sort()).toEqual(
      search.data!.candidates.content.map((candidate) => `Candidate:${candidate.id}`).sort(),
    );
    expect(entries[`Candidate:${picked.id}`]).toEqual(
      expect.objectContaining({ publicId: picked.publicId, yearOfBirth: one.data!.candidate.yearOfBirth }),
    );
    // The search's list holds references to those entries, not copies.
    const rootSearch = Object.entries(entries.ROOT_QUERY).find(([field]) => field.startsWith('candidates'))![1] as {
      content: { __ref: string }[];
    };
    expect(rootSearch.content.map((item) => item.__ref)).toEqual(
      search.data!.candidates.content.map((candidate) => `Candidate:${candidate.id}`),
    );
    // Read from the cache alone: the picked candidate of the search now carries yearOfBirth.
    const fromCache = apollo.readQuery<SearchData>({ query: SEARCH_WITH_YEAR, returnPartialData: true });
    expect(fromCache!.candidates.content[2]).toEqual(
      expect.objectContaining({ publicId: picked.publicId, yearOfBirth: one.data!.candidate.yearOfBirth }),
    );
    expect(sent).toHaveLength(2);
  });

  test('when the second query changes a candidate in the cache, then the first query sees the change', async () => {
    const apollo = client();
    const search = await apollo.query<SearchData>({ query: SEARCH });
    const picked = search.data!.candidates.content[0];
    await apollo.query({ query: ONE, variables: { publicId: picked.publicId } });

    apollo.cache.modify({
      id: apollo.cache.identify(picked),
      fields: { city: () => 'Changed through the second query' },
    });

    const first = apollo.readQuery<SearchData>({ query: SEARCH });
    expect(first!.candidates.content[0].city).toBe('Changed through the second query');
  });

  test('when the persisted-query link sends a query twice from two clients, then the first registers it and the second sends only its hash', async () => {
    const sha256 = (query: string) => createHash('sha256').update(query).digest('hex');
    const query = gql`
      query Levels {
        languageLevels {
          id
          level
          name
        }
      }
    `;

    const first = await client(new PersistedQueryLink({ sha256 })).query<{ languageLevels: unknown[] }>({ query });
    const second = await client(new PersistedQueryLink({ sha256 })).query<{ languageLevels: unknown[] }>({ query });

    expect(second.data).toEqual(first.data);
    // First client: the hash alone (unknown), then hash and query. Second client: the hash alone.
    expect(sent.map((body) => [typeof body.query, body.extensions?.persistedQuery?.version])).toEqual([
      ['undefined', 1],
      ['string', 1],
      ['undefined', 1],
    ]);
    expect(await service.db.collection(PERSISTED_QUERY_COLLECTION).countDocuments({})).toBe(1);
  });

  test('when mutations go around the persisted-query link (split on the operation type), then a registration runs with its input as variables and only queries are persisted; sent through the link, it is refused', async () => {
    const registrar = await service.key('REGISTER_CANDIDATES', 'READ_CANDIDATE_DATA');
    const sha256 = (query: string) => createHash('sha256').update(query).digest('hex');
    const http = new HttpLink({
      uri: `${service.url}/graphql`,
      headers: { 'x-api-key': registrar },
      fetch: recordingFetch,
    });
    const persisted = new PersistedQueryLink({ sha256 });
    const REGISTER = gql`
      mutation Register($input: RegisterCandidateInput!) {
        registerCandidate(input: $input) {
          publicId
        }
      }
    `;
    const QUERY = gql`
      query Countries {
        countries {
          id
          isoCode
        }
      }
    `;
    const split = new ApolloClient({
      link: ApolloLink.split(
        (operation) => operation.operationType === OperationTypeNode.MUTATION,
        http,
        ApolloLink.from([persisted, http]),
      ),
      cache: new InMemoryCache(),
    });
    const throughLink = new ApolloClient({
      link: ApolloLink.from([new PersistedQueryLink({ sha256 }), http]),
      cache: new InMemoryCache(),
    });
    const input = (email: string) => ({ registrationData: { identity: { email } } });

    const registered = await split.mutate({
      mutation: REGISTER,
      variables: { input: input('split.link@example.org') },
    });
    await split.query({ query: QUERY });
    const refused = await throughLink
      .mutate({ mutation: REGISTER, variables: { input: input('through.link@example.org') } })
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );

    expect((registered.data as { registerCandidate: { publicId: string } }).registerCandidate.publicId).toHaveLength(
      22,
    );
    expect(
      sent
        .slice(0, 3)
        .map((body) => [body.operationName, typeof body.query, body.extensions?.persistedQuery !== undefined]),
    ).toEqual([
      ['Register', 'string', false],
      ['Countries', 'undefined', true],
      ['Countries', 'string', true],
    ]);
    expect(refused?.message).toMatch(/only queries.*variables.*trusted documents/);
    const stored = (await service.db.collection(PERSISTED_QUERY_COLLECTION).find({}).toArray()).map(
      (doc) => doc.query as string,
    );
    expect(stored.some((query) => query.startsWith('query Countries'))).toBe(true);
    expect(stored.filter((query) => query.includes('mutation'))).toEqual([]);
  });
});
