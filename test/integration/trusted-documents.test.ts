/**
 * Trusted documents: a key whose operation policy is `published` runs only the operations
 * published for it. The partner app of test/fixtures/trusted-client has its operations extracted
 * by @apollo/generate-persisted-query-manifest and sends them through Apollo Client 4 with
 * @apollo/persisted-query-lists (ids from the manifest, the document never sent).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, type DocumentNode } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { generatePersistedQueryManifest } from '@apollo/generate-persisted-query-manifest';
import { generatePersistedQueryIdsFromManifest } from '@apollo/persisted-query-lists';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { runKeysCli } from '../../src/cli/keys';
import { createLogger } from '../../src/logger';
import { runOperationsCli } from '../../src/cli/operations';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { createSchema } from '../../src/graphql/schema';
import { operationProblems } from '../../src/graphql/armor';
import { PublishedOperationRepository } from '../../src/operations/published-operation-repository';
import { PublishedOperationService } from '../../src/operations/published-operation-service';
import { ONE, SEARCH } from '../fixtures/trusted-client/src/operations';
import { UNPUBLISHED } from '../fixtures/trusted-client/src/unpublished';
import { LogCapture, recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';

const CLIENT_DIR = path.join(__dirname, '../fixtures/trusted-client');
const MANIFEST_FILE = path.join(CLIENT_DIR, 'persisted-query-manifest.json');
const manifest = JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as {
  operations: { id: string; name: string; type: string; body: string }[];
};

interface Sent {
  body: Record<string, any>;
  status: number;
  answer: Record<string, any>;
}

describe('trusted documents (operation policy `published`)', () => {
  let service: AppUnderTest;
  let second: CandidateDirectory;
  let secondUrl: string;
  const capture = new LogCapture();
  let sent: Sent[];

  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const text = await response.clone().text();
    sent.push({
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : {},
      status: response.status,
      answer: JSON.parse(text),
    });
    return response;
  };

  const keys = () => new ApiKeyService(createApiKeyRepository(service.db));
  const operations = () => new PublishedOperationService(new PublishedOperationRepository(service.db));
  const validator = () => operationProblems(service.app.config, createSchema());

  async function aKey(policy: 'any' | 'published'): Promise<{ key: string; id: string }> {
    const { key, record } = await keys().createKey({
      name: `trusted ${policy}`,
      permissions: ['READ_CANDIDATE_DATA'],
      operations: policy,
    });
    recordSecret(key);
    return { key, id: record.id };
  }

  /** Apollo Client as the partner app runs it: operation ids from the manifest, never the document. */
  const byId = (key: string, url = service.url) =>
    new ApolloClient({
      link: ApolloLink.from([
        new PersistedQueryLink(generatePersistedQueryIdsFromManifest({ loadManifest: () => manifest })),
        new HttpLink({ uri: `${url}/graphql`, headers: { 'x-api-key': key }, fetch: recordingFetch }),
      ]),
      cache: new InMemoryCache(),
    });
  /** Apollo Client sending whole documents. */
  const byText = (key: string) =>
    new ApolloClient({
      link: new HttpLink({ uri: `${service.url}/graphql`, headers: { 'x-api-key': key }, fetch: recordingFetch }),
      cache: new InMemoryCache(),
    });
  /** Apollo Client with automatic persisted queries (hash first, then registration). */
  const apq = (key: string) =>
    new ApolloClient({
      link: ApolloLink.from([
        new PersistedQueryLink({ sha256: (text: string) => createHash('sha256').update(text).digest('hex') }),
        new HttpLink({ uri: `${service.url}/graphql`, headers: { 'x-api-key': key }, fetch: recordingFetch }),
      ]),
      cache: new InMemoryCache(),
    });

  const run = async (client: ApolloClient, query: DocumentNode, variables?: Record<string, unknown>) => {
    try {
      return { data: (await client.query({ query, variables, fetchPolicy: 'no-cache' })).data as any };
    } catch (error) {
      return { error: error as Error };
    }
  };
  const codesOf = (answer: Record<string, any>) =>
    ((answer.errors ?? []) as { extensions?: { code?: string } }[]).map((e) => e.extensions?.code);

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 10, seed: 9, captureLogs: capture });
    const config = { ...service.app.config, logLevel: 'silent' as const };
    second = await createApp(config, createLogger(config));
    secondUrl = await second.start();
  });

  beforeEach(() => {
    sent = [];
  });

  afterAll(async () => {
    await second?.stop();
    await service?.stop();
  });

  test('when the client project is extracted again, then the committed manifest is current', async () => {
    const generated = await generatePersistedQueryManifest(
      { documents: [path.join(CLIENT_DIR, 'src/operations.ts')] },
      undefined,
    );

    expect(generated).toEqual(manifest);
  });

  test('when a published key runs every published operation by id, then each works and no document is sent', async () => {
    const { key, id } = await aKey('published');
    await operations().publish(id, manifest, validator());
    const client = byId(key);

    const search = await run(client, SEARCH);
    const publicId = search.data.candidates.content[0].publicId as string;
    const one = await run(client, ONE, { publicId });

    expect(search.data.candidates.content).toHaveLength(3);
    expect(one.data.candidate.publicId).toBe(publicId);
    expect(sent.map((s) => [s.status, s.body.query, s.body.extensions?.persistedQuery?.sha256Hash])).toEqual([
      [200, undefined, manifest.operations.find((o) => o.name === 'PartnerSearch')!.id],
      [200, undefined, manifest.operations.find((o) => o.name === 'PartnerCandidate')!.id],
    ]);
  });

  test('when a published key sends an unpublished document, then it is refused with OPERATION_NOT_PUBLISHED and 403, counted, and logged by hash without the text', async () => {
    const { key, id } = await aKey('published');
    await operations().publish(id, manifest, validator());
    const before = await refusedCount('not_published');

    const refused = await run(byText(key), UNPUBLISHED);

    expect(refused.error).toBeDefined();
    expect(sent.map((s) => [s.status, codesOf(s.answer)])).toEqual([[403, ['OPERATION_NOT_PUBLISHED']]]);
    expect(await refusedCount('not_published')).toBe(before + 1);
    const hash = createHash('sha256').update(sent[0].body.query).digest('hex');
    const logged = capture.lines().filter((line) => line.includes('operation refused') && line.includes(id));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(hash);
    expect(logged[0]).not.toContain('PartnerUnpublished');
  });

  test('when a published key sends a published operation as its exact text, then it runs', async () => {
    const { key, id } = await aKey('published');
    await operations().publish(id, manifest, validator());
    const body = manifest.operations.find((o) => o.name === 'PartnerSearch')!.body;

    const answer = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: body }),
    });

    expect(answer.status).toBe(200);
    expect((await answer.json()).data.candidates.content).toHaveLength(3);
  });

  test('when a published key sends a published operation by id in a GET, then it runs, and an unknown id is refused', async () => {
    const { key, id } = await aKey('published');
    await operations().publish(id, manifest, validator());
    const get = (sha256Hash: string) =>
      fetch(
        `${service.url}/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash } }))}`,
        { headers: { 'x-api-key': key } },
      );

    const published = await get(manifest.operations.find((o) => o.name === 'PartnerSearch')!.id);
    const unknown = await get('0'.repeat(64));

    expect(published.status).toBe(200);
    expect((await published.json()).data.candidates.content).toHaveLength(3);
    expect([unknown.status, codesOf((await unknown.json()) as Record<string, any>)]).toEqual([
      403,
      ['OPERATION_NOT_PUBLISHED'],
    ]);
  });

  test('when operations are published for one key, then another published key may not run them', async () => {
    const owner = await aKey('published');
    await operations().publish(owner.id, manifest, validator());
    const other = await aKey('published');

    const refused = await run(byId(other.key), SEARCH);

    expect(refused.error).toBeDefined();
    expect(sent.map((s) => [s.status, codesOf(s.answer)])).toEqual([[403, ['OPERATION_NOT_PUBLISHED']]]);
  });

  test('when the same key has policy any, then it runs the published and the unpublished operation', async () => {
    const { key, id } = await aKey('any');
    await operations().publish(id, manifest, validator());

    const published = await run(byText(key), SEARCH);
    const unpublished = await run(byText(key), UNPUBLISHED);

    expect(published.data.candidates.content).toHaveLength(3);
    expect(unpublished.data.candidates.totalElements).toBeGreaterThan(0);
  });

  test('when a key with policy any uses automatic persisted queries, then the hash is registered and then runs alone', async () => {
    const { key } = await aKey('any');

    const first = await run(apq(key), UNPUBLISHED);
    const again = await run(apq(key), UNPUBLISHED);

    expect(first.data.candidates.totalElements).toBeGreaterThan(0);
    expect(again.data.candidates.totalElements).toBeGreaterThan(0);
    expect(sent.map((s) => [s.status, s.body.query === undefined, codesOf(s.answer)])).toEqual([
      [200, true, ['PERSISTED_QUERY_NOT_FOUND']],
      [200, false, []],
      [200, true, []],
    ]);
  });

  test('when a published key tries to register an automatic persisted query, then the registration is refused and counted', async () => {
    const { key, id } = await aKey('published');
    await operations().publish(id, manifest, validator());
    const before = await refusedCount('registration');
    const query = 'query Free { candidates(limit: 1) { totalElements } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');

    const answer = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash } } }),
    });

    const json = (await answer.json()) as Record<string, any>;
    expect([answer.status, codesOf(json)]).toEqual([403, ['OPERATION_NOT_PUBLISHED']]);
    expect(await refusedCount('registration')).toBe(before + 1);
    expect(await service.db.collection('persistedQueries').countDocuments({ query })).toBe(0);
  });

  test('when a published key calls REST /v1, then it is served', async () => {
    const { key } = await aKey('published');

    const answer = await rest(service.url, 'GET', '/v1/candidates?limit=2', { key });

    expect(answer.status).toBe(200);
  });

  test('when the policy changes on one instance, then the other applies it at once, both ways', async () => {
    const { key, id } = await aKey('any');
    const unpublished = { query: 'query Anything { candidates(limit: 1) { totalElements } }' };
    const post = () =>
      fetch(`${secondUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(unpublished),
      }).then((answer) => answer.status);
    const asAny = await post();

    await keys().updateKey(id, { operations: 'published' });
    const asPublished = await post();
    await keys().updateKey(id, { operations: 'any' });
    const asAnyAgain = await post();

    expect([asAny, asPublished, asAnyAgain]).toEqual([200, 403, 200]);
  });

  test('when an operation is retired, then the key can no longer run it, on any instance', async () => {
    const { key, id } = await aKey('published');
    await operations().publish(id, manifest, validator());
    const search = manifest.operations.find((o) => o.name === 'PartnerSearch')!;
    const ranBefore = await run(byId(key, secondUrl), SEARCH);

    await operations().retire(id, search.id);
    const refused = await run(byId(key, secondUrl), SEARCH);

    expect(ranBefore.data.candidates.content).toHaveLength(3);
    expect(refused.error).toBeDefined();
    expect(sent.map((s) => s.status)).toEqual([200, 403]);
  });

  test('when the same manifest is published twice, then nothing changes the second time', async () => {
    const { id } = await aKey('published');

    const first = await operations().publish(id, manifest, validator());
    const listed = await operations().list(id);
    const second = await operations().publish(id, manifest, validator());

    expect(first).toEqual({ total: 2, added: 2 });
    expect(second).toEqual({ total: 2, added: 0 });
    expect(await operations().list(id)).toEqual(listed);
  });

  test('when a manifest holds an operation that breaks the schema or the cost limit, then nothing of it is published and the error names it', async () => {
    const { id } = await aKey('published');
    const op = (name: string, body: string) => ({
      id: createHash('sha256').update(body).digest('hex'),
      name,
      type: 'query',
      body,
    });
    const broken = op('NoSuchField', 'query NoSuchField { candidates { nope } }');
    const costly = op(
      'TooCostly',
      `query TooCostly { ${Array.from({ length: 60 }, (_, i) => `a${i}: candidates(limit: 100) { content { id city yearOfBirth } }`).join(' ')} }`,
    );
    const valid = manifest.operations[0];

    const outcomes = [];
    for (const bad of [broken, costly]) {
      try {
        await operations().publish(
          id,
          { format: 'apollo-persisted-query-manifest', version: 1, operations: [valid, bad] },
          validator(),
        );
        outcomes.push('published');
      } catch (error) {
        outcomes.push((error as Error).message);
      }
    }

    expect(outcomes[0]).toContain(`NoSuchField (${broken.id})`);
    expect(outcomes[0]).toContain('nope');
    expect(outcomes[1]).toContain(`TooCostly (${costly.id})`);
    expect(await operations().list(id)).toEqual([]);
  });

  describe('npm run operations and npm run keys', () => {
    const cliEnv = () => ({ MONGODB_URI: service.app.config.mongodbUri, MONGODB_DB: service.app.config.mongodbDb });
    const cli = async (run: typeof runOperationsCli | typeof runKeysCli, argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await run(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, cliEnv());
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const writeManifest = (operations: { id: string; name: string; type: string; body: string }[]) => {
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'manifest-')), 'manifest.json');
      writeFileSync(file, JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations }));
      return file;
    };

    test('when a key is created published by the CLI and the manifest published twice, then its operations run and are listed once, and retire --all ends them', async () => {
      const created = await cli(runKeysCli, [
        'create',
        '--name',
        'partner cli',
        '--permissions',
        'READ_CANDIDATE_DATA',
        '--operations',
        'published',
      ]);
      const key = created.out.split('\n').at(-1)!;
      recordSecret(key);
      const id = /key (key_\S+)/.exec(created.err)![1];

      const first = await cli(runOperationsCli, ['publish', MANIFEST_FILE, '--key', id]);
      const again = await cli(runOperationsCli, ['publish', MANIFEST_FILE, '--key', id]);
      const listed = await cli(runOperationsCli, ['list', '--key', id]);
      const ran = await run(byId(key), SEARCH);
      const retired = await cli(runOperationsCli, ['retire', '--key', id, '--all']);
      const refused = await run(byId(key), SEARCH);

      expect([created.code, first.code, again.code, listed.code, retired.code]).toEqual([0, 0, 0, 0, 0]);
      expect(created.err).toContain('operations published');
      expect(first.err).toContain('2 new');
      expect(again.err).toContain('0 new, 2 already published');
      expect(listed.out.split('\n')).toHaveLength(3);
      expect(listed.out).toContain('PartnerSearch');
      expect(listed.out).not.toContain('candidates');
      expect(ran.data.candidates.content).toHaveLength(3);
      expect(refused.error).toBeDefined();
    });

    test('when the CLI is given a manifest with an operation that breaks the schema, then it exits 2 naming it and publishes nothing', async () => {
      const { id } = await aKey('published');
      const body = 'query Broken { candidate { nope } }';
      const broken = { id: createHash('sha256').update(body).digest('hex'), name: 'Broken', type: 'query', body };

      const result = await cli(runOperationsCli, [
        'publish',
        writeManifest([manifest.operations[0], broken]),
        '--key',
        id,
      ]);

      expect(result.code).toBe(2);
      expect(result.err).toContain(`Broken (${broken.id})`);
      expect(await operations().list(id)).toEqual([]);
    });

    test('when keys update changes the policy, then the key is refused an unpublished operation at once', async () => {
      const { key, id } = await aKey('any');
      const before = await run(byText(key), UNPUBLISHED);

      const updated = await cli(runKeysCli, ['update', id, '--operations', 'published']);
      const after = await run(byText(key), UNPUBLISHED);

      expect(updated.code).toBe(0);
      expect(before.data.candidates.totalElements).toBeGreaterThan(0);
      expect(after.error).toBeDefined();
    });
  });

  async function refusedCount(reason: string): Promise<number> {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`graphql_operations_refused_total{reason="${reason}"}`));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  }
});
