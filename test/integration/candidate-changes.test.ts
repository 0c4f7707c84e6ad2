/**
 * The change feed (candidateChanges) over GraphQL: registrations appear once each, in commit
 * order, with the current candidate; any cursor resumes after its change, also on a service
 * restarted over the same store.
 */
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import type { Permission } from '../../src/auth/permissions';
import { loadConfig, type Config } from '../../src/config';
import { seedDemoData } from '../../src/app/seed-demo-data';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { graphql } from '../support/app-under-test';
import { testDatabaseName } from '../support/builders';
import { rest } from '../support/rest-client';
import { startStoreUnderTest, type StoreUnderTest } from 'embedded-mongodb/test-support';

interface Instance {
  app: CandidateDirectory;
  url: string;
}

interface Page {
  candidateChanges: {
    edges: {
      cursor: string;
      node: { kind: string; publicId: string; at: string; candidate: { publicId: string } | null };
    }[];
    pageInfo: { endCursor: string | null; hasNextPage: boolean };
  };
}

const FEED = `query Feed($after: String, $first: Int) {
  candidateChanges(after: $after, first: $first) {
    edges { cursor node { kind publicId at candidate { publicId } } }
    pageInfo { endCursor hasNextPage }
  }
}`;

let store: StoreUnderTest;
let config: Config;
let service: Instance;

async function startInstance(): Promise<Instance> {
  const app = await createApp(config, createLogger(config));
  return { app, url: await app.start() };
}

async function aKey(...permissions: [Permission, ...Permission[]]): Promise<string> {
  const apiKeys = new ApiKeyService(createApiKeyRepository(service.app.database.db));
  return (await apiKeys.createKey({ name: 'feed test', permissions })).key;
}

async function register(key: string, email: string): Promise<string> {
  const { status, body } = await rest(service.url, 'POST', '/v1/candidates/register', {
    key,
    body: { registrationData: { identity: { email } } },
  });
  expect(status).toBe(201);
  return body.publicId as string;
}

async function feed(key: string, variables: { after?: string | null; first?: number } = {}) {
  return graphql<Page>(service.url, FEED, variables, key);
}

/** Every change after `after`, paging `first` at a time; the cursors of each change too. */
async function readAll(key: string, after: string | null, first: number) {
  const changes: Page['candidateChanges']['edges'] = [];
  for (;;) {
    const { body } = await feed(key, { after, first });
    const page = body.data!.candidateChanges;
    changes.push(...page.edges);
    if (!page.pageInfo.hasNextPage) return changes;
    after = page.pageInfo.endCursor;
  }
}

beforeAll(async () => {
  store = await startStoreUnderTest();
  config = loadConfig(
    {},
    { port: 0, mongodbUri: store.uri, mongodbDb: testDatabaseName('changes'), logLevel: 'silent' },
  );
  service = await startInstance();
  // Reference data only: the feed starts empty.
  await seedDemoData(service.app.database.db, { candidates: 0, seed: 1 });
});

afterAll(async () => {
  await service?.app.stop();
  await store?.stop();
});

test('when candidates register, then the feed lists each once, in order, resumable from every cursor, also after a restart', async () => {
  const registrar = await aKey('REGISTER_CANDIDATES');
  const reader = await aKey('READ_CANDIDATE_DATA');
  const before = [];
  for (let i = 0; i < 5; i++) before.push(await register(registrar, `changes-${i}@example.org`));

  const all = await readAll(reader, null, 2);

  expect(all.map((edge) => [edge.node.kind, edge.node.publicId])).toEqual(before.map((id) => ['REGISTERED', id]));
  expect(all.map((edge) => edge.node.candidate?.publicId)).toEqual(before);
  for (const [i, edge] of all.entries()) {
    expect((await readAll(reader, edge.cursor, 3)).map((e) => e.node.publicId)).toEqual(before.slice(i + 1));
  }

  await service.app.stop();
  service = await startInstance();
  const after = [await register(registrar, 'changes-after-restart@example.org')];

  for (const [i, edge] of all.entries()) {
    expect((await readAll(reader, edge.cursor, 100)).map((e) => e.node.publicId)).toEqual([
      ...before.slice(i + 1),
      ...after,
    ]);
  }
});

test('when a key without READ_CANDIDATE_DATA reads the feed, then FORBIDDEN', async () => {
  const registrar = await aKey('REGISTER_CANDIDATES');

  const { body } = await feed(registrar);

  expect(body.data ?? null).toBeNull();
  expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});

test.each([
  ['first 0', { first: 0 }],
  ['first 101', { first: 101 }],
  ['a cursor of another connection', { after: Buffer.from('[1700000000000,"x"]').toString('base64url') }],
  ['a cursor that is not base64 JSON', { after: '%%%' }],
])('when the feed is asked with %s, then BAD_USER_INPUT', async (_label, variables) => {
  const reader = await aKey('READ_CANDIDATE_DATA');

  const { body } = await feed(reader, variables);

  expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
});
