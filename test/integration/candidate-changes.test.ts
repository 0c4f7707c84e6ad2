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

/** A cursor of the feed as the service writes it, with the seq spelled `seq` (base64url of the JSON array). */
const changeCursor = (seq: string) => Buffer.from(JSON.stringify(['change', seq])).toString('base64url');

test.each([
  ['an exponent ("1e3")', changeCursor('1e3')],
  ['a hexadecimal number ("0x10")', changeCursor('0x10')],
  ['spaces around the number (" 3 ")', changeCursor(' 3 ')],
  ['an empty number ("")', changeCursor('')],
  ['a leading zero ("03")', changeCursor('03')],
  ['a fraction ("3.0")', changeCursor('3.0')],
  ['a negative zero ("-0")', changeCursor('-0')],
  ['JSON spaced differently', Buffer.from('["change", "3"]').toString('base64url')],
  ['base64 with padding', Buffer.from(JSON.stringify(['change', '3'])).toString('base64')],
])(
  'when the feed is asked after a cursor with %s, then BAD_USER_INPUT (only the canonical form is a cursor)',
  async (_label, after) => {
    const reader = await aKey('READ_CANDIDATE_DATA');

    const { body } = await feed(reader, { after });

    expect(body.data ?? null).toBeNull();
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  },
);

test('when the feed is read up to now, then the empty page repeats the cursor it was given as endCursor, and that cursor then yields the next change', async () => {
  const registrar = await aKey('REGISTER_CANDIDATES');
  const reader = await aKey('READ_CANDIDATE_DATA');
  await register(registrar, 'caught-up@example.org');
  let after: string | null = null;
  for (;;) {
    const page: Page['candidateChanges'] = (await feed(reader, { after, first: 100 })).body.data!.candidateChanges;
    after = page.pageInfo.endCursor;
    if (!page.pageInfo.hasNextPage) break;
  }

  const caughtUp = (await feed(reader, { after })).body.data!.candidateChanges;
  const next = await register(registrar, 'after-caught-up@example.org');
  const resumed = (await feed(reader, { after: caughtUp.pageInfo.endCursor })).body.data!.candidateChanges;

  expect(after).not.toBeNull();
  expect(caughtUp.edges).toEqual([]);
  expect(caughtUp.pageInfo).toEqual({ endCursor: after, hasNextPage: false });
  expect(resumed.edges.map((edge) => edge.node.publicId)).toEqual([next]);
});

test('when a partner takes candidateChangesPosition, then exports, then follows the feed from that position, then it receives every change made from the position on, and none before', async () => {
  const registrar = await aKey('REGISTER_CANDIDATES');
  const reader = await aKey('READ_CANDIDATE_DATA');
  const admin = await aKey('ADMIN');
  const before = await register(registrar, 'sync-before@example.org');

  const { body: positioned } = await graphql<{ candidateChangesPosition: string }>(
    service.url,
    '{ candidateChangesPosition }',
    {},
    reader,
  );
  const position = positioned.data!.candidateChangesPosition;
  const exported = await rest(service.url, 'GET', `/v1/candidates/${before}`, { key: reader });
  const during = await register(registrar, 'sync-during@example.org');
  const erased = await graphql(
    service.url,
    'mutation($id: PublicId!) { eraseCandidate(publicId: $id) { publicId } }',
    { id: before },
    admin,
  );
  const followed = await readAll(reader, position, 100);

  expect(exported.status).toBe(200);
  expect(erased.body.errors).toBeUndefined();
  expect(followed.map((edge) => [edge.node.kind, edge.node.publicId])).toEqual([
    ['REGISTERED', during],
    ['ERASED', before],
  ]);
});

test('when a key without READ_CANDIDATE_DATA asks candidateChangesPosition, then FORBIDDEN', async () => {
  const registrar = await aKey('REGISTER_CANDIDATES');

  const { body } = await graphql(service.url, '{ candidateChangesPosition }', {}, registrar);

  expect(body.data ?? null).toBeNull();
  expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});
