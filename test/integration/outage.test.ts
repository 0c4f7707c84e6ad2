import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import type { OfferDoc } from 'candidate-documents';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { spawnEmbeddedStore, type EmbeddedStoreProcess } from 'embedded-mongodb';
import { COLLECTIONS } from '../../src/app/indexes';
import { testDatabaseName } from '../support/builders';
import { appLogDestination, recordSecret } from '../support/log-capture';
import { rest, type RestResult } from '../support/rest-client';

/**
 * The service through a database outage. The embedded store runs as a child process on a
 * temporary data directory (its socket in that directory); it is killed without warning
 * (SIGKILL) while the service runs, then started again on the same files and socket. The
 * service is never restarted.
 */

const PROBLEMS = 'https://candidate-directory.example/problems/';
/** Upper bound of any answer while the store is down (MONGODB_TIMEOUT_MS is 2 s): fail fast, never hang. */
const FAILURE_BOUND_MS = 5_000;
/** How long the service may take to notice the store is back. */
const RECOVERY_BOUND_MS = 30_000;
/** Well-formed but never issued: during an outage the service cannot tell, so it must not say 401. */
const UNKNOWN_KEY = `cdk_${'A'.repeat(43)}`;

async function timed<T>(call: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await call();
  return { result, ms: performance.now() - started };
}

interface GraphQLAnswer {
  status: number;
  retryAfter: string | null;
  body: { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] };
}

async function graphql(
  url: string,
  key: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GraphQLAnswer> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as GraphQLAnswer['body'],
  };
}

function registration(label: string) {
  const email = `outage-${label}-${randomBytes(4).toString('hex')}@example.org`;
  const lastName = `Outagetest${randomBytes(3).toString('hex')}`;
  recordSecret(email, lastName);
  return {
    registrarId: 'partner-outage',
    registrationData: {
      identity: { firstName: 'Amal', lastName, email },
      country: { isoCode: 'JO' },
      nationality: { isoCode: 'SY' },
      gender: 'FEMALE',
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 4 }],
    },
  };
}

const CANDIDATE_QUERY = 'query Candidate($id: PublicId!) { candidate(publicId: $id) { publicId status } }';

function expectServiceUnavailableProblem(answer: RestResult): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(answer.body).toMatchObject({ type: `${PROBLEMS}service-unavailable`, status: 503 });
  // Nothing of the driver's own message (hosts, ports, error names) reaches the caller.
  expect(answer.text).not.toMatch(/ECONNREFUSED|ENOENT|Mongo|127\.0\.0\.1|\.sock/);
}

describe('database outage: the store is killed and comes back while the service runs', () => {
  let dataDir: string;
  let store: EmbeddedStoreProcess | undefined;
  let app: CandidateDirectory;
  let url: string;
  let key: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-outage-'));
    store = await spawnEmbeddedStore({ dbPath: dataDir });
    const mongodbDb = testDatabaseName('outage');
    const logs = appLogDestination(mongodbDb);
    const config = loadConfig({}, { port: 0, mongodbUri: store.uri, mongodbDb, logLevel: logs.level });
    app = await createApp(config, createLogger(config, logs.destination));
    url = await app.start();
    const created = await new ApiKeyService(createApiKeyRepository(app.database.db)).createKey({
      name: 'outage test',
      permissions: ['READ_CANDIDATE_DATA', 'REGISTER_CANDIDATES', 'SUBMIT_JOB_MATCHES'],
    });
    key = created.key;
    recordSecret(key);
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await store?.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('when the store dies, then requests fail fast with 503 and readiness turns 503; when it returns, then the same service answers again and every acknowledged write is there', async () => {
    // Arrange: acknowledged writes, over REST, one of them under an Idempotency-Key.
    const registered: string[] = [];
    for (let i = 0; i < 4; i++) {
      const headers: Record<string, string> =
        i === 0 ? { 'idempotency-key': `outage-${randomBytes(4).toString('hex')}` } : {};
      const answer = await rest(url, 'POST', '/v1/candidates/register', {
        key,
        body: registration(`before-${i}`),
        headers,
      });
      expect(answer.status).toBe(201);
      registered.push(answer.body.publicId as string);
    }
    const match = await rest(url, 'POST', '/v1/candidates/job-match', {
      key,
      body: { candidates: registered.map((publicId) => ({ publicId })), additionalNotes: 'Before the outage' },
    });
    expect(match.status).toBe(201);
    const jobMatchId = match.body.jobMatchId as string;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    // Act: the store goes away without warning.
    await store!.kill('SIGKILL');
    store = undefined;

    // Assert: every kind of request fails with 503 within the bound, concurrently as well as alone.
    const during = await Promise.all([
      timed(() => rest(url, 'GET', `/v1/candidates/${registered[0]}`, { key })),
      timed(() => rest(url, 'GET', '/v1/candidates?location=JO&limit=5', { key })),
      timed(() => rest(url, 'GET', `/v1/candidates/${registered[1]}`, { key: UNKNOWN_KEY })),
      timed(() => rest(url, 'POST', '/v1/candidates/register', { key, body: registration('during') })),
      timed(() =>
        rest(url, 'POST', '/v1/candidates/job-match', {
          key,
          body: { candidates: [{ publicId: registered[2] }] },
          headers: { 'idempotency-key': `outage-during-${randomBytes(4).toString('hex')}` },
        }),
      ),
    ]);
    for (const { result, ms } of during) {
      expectServiceUnavailableProblem(result);
      expect(ms).toBeLessThan(FAILURE_BOUND_MS);
    }
    const query = await timed(() => graphql(url, key, CANDIDATE_QUERY, { id: registered[0] }));
    expect(query.result.status).toBe(503);
    expect(query.result.retryAfter).toMatch(/^\d+$/);
    expect(query.result.body.errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
    expect(query.ms).toBeLessThan(FAILURE_BOUND_MS);
    const mutation = await timed(() =>
      graphql(url, key, 'mutation Match($input: JobMatchInput!) { createJobMatch(input: $input) { jobMatchId } }', {
        input: { candidates: [{ publicId: registered[3] }] },
      }),
    );
    expect(mutation.result.status).toBe(503);
    expect(mutation.result.body.errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
    expect(mutation.ms).toBeLessThan(FAILURE_BOUND_MS);

    const readiness = await timed(() => fetch(`${url}/readyz`));
    expect(readiness.result.status).toBe(503);
    expect(readiness.result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await readiness.result.json()).toMatchObject({ type: `${PROBLEMS}service-unavailable`, status: 503 });
    expect(readiness.ms).toBeLessThan(FAILURE_BOUND_MS);
    const liveness = await fetch(`${url}/healthz`);
    expect(liveness.status).toBe(200);

    // Act: the store comes back on the same files and socket; the service is left as it is.
    store = await spawnEmbeddedStore({ dbPath: dataDir });

    // Assert: ready again within the bound, and every acknowledged write is readable.
    const deadline = Date.now() + RECOVERY_BOUND_MS;
    let ready = false;
    while (!ready && Date.now() < deadline) {
      ready = (await fetch(`${url}/readyz`)).status === 200;
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ready).toBe(true);
    for (const publicId of registered) {
      const answer = await rest(url, 'GET', `/v1/candidates/${publicId}`, { key });
      expect(answer.status).toBe(200);
      expect(answer.body.publicId).toBe(publicId);
    }
    const offer = await app.database.db.collection<OfferDoc>(COLLECTIONS.offers).findOne({ publicId: jobMatchId });
    expect(offer?.candidates).toEqual(registered.map((publicId) => ({ publicId })));
    const afterQuery = await graphql(url, key, CANDIDATE_QUERY, { id: registered[0] });
    expect(afterQuery.status).toBe(200);
    expect(afterQuery.body.data?.candidate).toEqual({ publicId: registered[0], status: 'PENDING' });
    const afterWrite = await rest(url, 'POST', '/v1/candidates/register', { key, body: registration('after') });
    expect(afterWrite.status).toBe(201);
  }, 120_000);
});
