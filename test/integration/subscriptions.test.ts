import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Kind, OperationTypeNode } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * GraphQL subscriptions over WebSocket and Server-Sent Events (graphql-ws's and graphql-sse's own clients): `candidateChanged` delivers
 * every change after a cursor once, in commit order; a client that subscribes again with its
 * last cursor misses nothing and gets nothing twice; the key is checked on connect and before
 * every event, so a revoked key gets no later change.
 */

const CHANGED = `subscription Changed($after: String) {
  candidateChanged(after: $after) { cursor node { kind publicId candidate { publicId } } }
}`;

interface Changed {
  candidateChanged: {
    cursor: string;
    node: { kind: string; publicId: string; candidate: { publicId: string } | null };
  };
}

describe('subscriptions over WebSocket (graphql-transport-ws), then as Server-Sent Events', () => {
  let service: AppUnderTest;
  let reader: string;
  let registrar: string;
  let registered = 0;
  const clients: Client[] = [];

  beforeAll(async () => {
    service = await startAppUnderTest();
    [reader, registrar] = await Promise.all([service.key('READ_CANDIDATE_DATA'), service.key('REGISTER_CANDIDATES')]);
  });

  afterAll(async () => {
    await Promise.all(clients.map(async (client) => client.dispose()));
    await service?.stop();
  });

  const connect = (key: string | undefined): Client => {
    const client = createClient({
      url: service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: key === undefined ? {} : { 'x-api-key': key },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(client);
    return client;
  };

  const register = async (): Promise<string> => {
    const email = `subscriber-${++registered}-${process.pid}@example.org`;
    recordSecret(email);
    const { status, body } = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      body: { registrationData: { identity: { email } } },
    });
    expect(status).toBe(201);
    return body.publicId as string;
  };

  const position = async (): Promise<string> =>
    (await graphql<{ candidateChangesPosition: string }>(service.url, '{ candidateChangesPosition }', {}, reader)).body
      .data!.candidateChangesPosition;

  const next = async (events: AsyncIterator<{ data?: Changed | null; errors?: unknown }>) => {
    const { value, done } = await events.next();
    expect(done).toBe(false);
    return value!;
  };

  test('when a client subscribes again with the last cursor it received, then it gets every later change once, in commit order', async () => {
    const start = await position();
    const first = await register();
    const firstClient = connect(reader);
    const events = firstClient.iterate<Changed>({ query: CHANGED, variables: { after: start } });
    const received = (await next(events)).data!.candidateChanged;
    expect(received.node).toEqual({ kind: 'REGISTERED', publicId: first, candidate: { publicId: first } });
    await events.return?.();
    await firstClient.dispose();

    const missed = [await register(), await register()];
    const resumed = connect(reader).iterate<Changed>({ query: CHANGED, variables: { after: received.cursor } });
    const again = [(await next(resumed)).data!.candidateChanged, (await next(resumed)).data!.candidateChanged];
    expect(again.map((edge) => edge.node.publicId)).toEqual(missed);
    const live = await register();
    expect((await next(resumed)).data!.candidateChanged.node.publicId).toBe(live);
    await resumed.return?.();
  });

  test('when the key is revoked, then the subscription ends UNAUTHENTICATED before the next change', async () => {
    const key = await service.key('READ_CANDIDATE_DATA');
    const events = connect(key).iterate<Changed>({ query: CHANGED, variables: { after: await position() } });
    const before = await register();
    expect((await next(events)).data!.candidateChanged.node.publicId).toBe(before);

    const keys = new ApiKeyService(createApiKeyRepository(service.db));
    await keys.revokeKey((await keys.authenticate(key)).id);
    await register();

    await expect(events.next()).rejects.toEqual([
      expect.objectContaining({ message: 'A valid API key is required.', extensions: { code: 'UNAUTHENTICATED' } }),
    ]);
  });

  test('when a client connects without a valid key, then the connection is refused (4403)', async () => {
    const events = connect('cdk_not-a-key').iterate<Changed>({ query: CHANGED });
    await expect(events.next()).rejects.toMatchObject({ code: 4403 });
  });

  test('when a key that runs only published operations subscribes with another document, then it is refused', async () => {
    const { key } = await new ApiKeyService(createApiKeyRepository(service.db)).createKey({
      name: 'published only',
      permissions: ['READ_CANDIDATE_DATA'],
      operations: 'published',
    });
    recordSecret(key);
    const events = connect(key).iterate<Changed>({ query: CHANGED });
    await expect(events.next()).rejects.toEqual([
      expect.objectContaining({ extensions: { code: 'OPERATION_NOT_PUBLISHED' } }),
    ]);
  });

  test('when a query is sent over WebSocket, then it is refused: only subscriptions are served there', async () => {
    const events = connect(reader).iterate({ query: '{ candidateChangesPosition }' });
    await expect(events.next()).rejects.toEqual([expect.objectContaining({ extensions: { code: 'BAD_REQUEST' } })]);
  });

  test('when Apollo Client splits its link (queries over HTTP, subscriptions over graphql-ws), then it receives the change it subscribed to', async () => {
    const isSubscription = ({ query }: ApolloLink.Operation) => {
      const definition = getMainDefinition(query);
      return definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.SUBSCRIPTION;
    };
    const apollo = new ApolloClient({
      link: ApolloLink.split(
        isSubscription,
        new GraphQLWsLink(connect(reader)),
        new HttpLink({ uri: `${service.url}/graphql`, headers: { 'x-api-key': reader } }),
      ),
      cache: new InMemoryCache(),
    });
    const { data } = await apollo.query<{ candidateChangesPosition: string }>({
      query: gql`
        query Position {
          candidateChangesPosition
        }
      `,
    });

    const first = new Promise<Changed>((resolve, reject) => {
      const subscription = apollo
        .subscribe<Changed>({ query: gql(CHANGED), variables: { after: data!.candidateChangesPosition } })
        .subscribe({
          next: (result) => {
            subscription.unsubscribe();
            if (result.data) resolve(result.data);
            else reject(new Error(JSON.stringify(result.error)));
          },
          error: reject,
        });
    });
    const registeredNow = await register();
    expect((await first).candidateChanged.node).toMatchObject({ kind: 'REGISTERED', publicId: registeredNow });
    apollo.stop();
  });

  describe('as Server-Sent Events (POST /graphql/stream)', () => {
    const stream = (key: string, after: string) =>
      createSseClient({
        url: `${service.url}/graphql/stream`,
        headers: { 'x-api-key': key },
        retryAttempts: 0,
      }).iterate<Changed>({ query: CHANGED, variables: { after } });

    test('when a stream is opened after a cursor, then it gets the changes after it in order, then the live ones', async () => {
      const start = await position();
      const earlier = [await register(), await register()];
      const events = stream(reader, start);
      const got = [(await next(events)).data!.candidateChanged, (await next(events)).data!.candidateChanged];
      expect(got.map((edge) => edge.node.publicId)).toEqual(earlier);
      const live = await register();
      expect((await next(events)).data!.candidateChanged.node).toEqual({
        kind: 'REGISTERED',
        publicId: live,
        candidate: { publicId: live },
      });
      await events.return?.();
    });

    test('when the key is revoked, then the last event of the stream is UNAUTHENTICATED and no later change comes', async () => {
      const key = await service.key('READ_CANDIDATE_DATA');
      const events = stream(key, await position());
      const before = await register();
      expect((await next(events)).data!.candidateChanged.node.publicId).toBe(before);
      const keys = new ApiKeyService(createApiKeyRepository(service.db));
      await keys.revokeKey((await keys.authenticate(key)).id);
      await register();

      expect((await next(events)).errors).toEqual([
        expect.objectContaining({ message: 'A valid API key is required.', extensions: { code: 'UNAUTHENTICATED' } }),
      ]);
      expect((await events.next()).done).toBe(true);
    });

    test('when a stream is asked for without a valid key, then it is refused 401 before it opens', async () => {
      const response = await fetch(`${service.url}/graphql/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': 'cdk_not-a-key' },
        body: JSON.stringify({ query: CHANGED }),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        errors: [expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED' } })],
      });
    });
  });
});
