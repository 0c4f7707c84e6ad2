import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoNetworkError } from 'mongodb';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import { AuditRepository } from '../../src/audit/audit-repository';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { spawnEmbeddedStore, type EmbeddedStoreProcess } from 'embedded-mongodb';
import { startAppUnderTest, graphql, type AppUnderTest } from '../support/app-under-test';
import { testDatabaseName } from '../support/builders';
import { appLogDestination, recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * The audit trail is complete: every request answered 2xx has its event. Writes store theirs
 * with the write (one transaction); the events of reads are held in a bounded buffer and written
 * again until stored; while the buffer is full, reads are refused (503) instead of served
 * unaudited.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function registration(label: string) {
  const email = `audit-${label}-${randomBytes(4).toString('hex')}@example.org`;
  recordSecret(email);
  return {
    registrarId: 'partner-audit',
    registrationData: {
      identity: { lastName: 'Audited', email },
      country: { isoCode: 'JO' },
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 4 }],
    },
  };
}

describe('audit completeness under three kill -9 of the store', () => {
  let dataDir: string;
  let store: EmbeddedStoreProcess | undefined;
  let app: CandidateDirectory;
  let url: string;
  let key: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-audit-complete-'));
    store = await spawnEmbeddedStore({ dbPath: dataDir });
    const mongodbDb = testDatabaseName('auditcomplete');
    const logs = appLogDestination(mongodbDb);
    const config = loadConfig(
      {},
      { port: 0, mongodbUri: store.uri, mongodbDb, logLevel: logs.level, mongodbTimeoutMs: 1000, auditFlushMs: 20 },
    );
    app = await createApp(config, createLogger(config, logs.destination));
    url = await app.start();
    ({ key } = await new ApiKeyService(createApiKeyRepository(app.database.db)).createKey({
      name: 'audit completeness',
      permissions: ['READ_CANDIDATE_DATA', 'REGISTER_CANDIDATES', 'SUBMIT_JOB_MATCHES'],
      unlimited: true,
    }));
    recordSecret(key);
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await store?.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('when writes and reads run through three kills of the store, then every 2xx answer has exactly one audit event', async () => {
    // Arrange: clients that write and read without pause, each request with its own id.
    const answers = new Map<string, number>();
    const registered: string[] = [];
    const load = { running: true };
    let sequence = 0;
    const client = async (role: number) => {
      while (load.running) {
        const requestId = `complete-${role}-${++sequence}`;
        const headers = { 'x-request-id': requestId };
        let status: number;
        if (role === 0) {
          const answer = await rest(url, 'POST', '/v1/candidates/register', {
            key,
            body: registration(requestId),
            headers,
          });
          if (answer.status === 201) registered.push(answer.body.publicId as string);
          status = answer.status;
        } else if (role === 1 && registered.length > 0) {
          const publicId = registered[sequence % registered.length];
          status = (
            await rest(url, 'POST', '/v1/candidates/job-match', { key, body: { candidates: [{ publicId }] }, headers })
          ).status;
        } else if (role === 2 && registered.length > 0) {
          status = (
            await rest(url, 'GET', `/v1/candidates/${registered[sequence % registered.length]}`, { key, headers })
          ).status;
        } else {
          status = (await rest(url, 'GET', '/v1/candidates?limit=5', { key, headers })).status;
        }
        answers.set(requestId, status);
      }
    };
    const clients = [0, 1, 2, 3, 3].map((role) => client(role));

    // Act: three times, the store is killed under load, then started again on the same files.
    for (let kill = 0; kill < 3; kill++) {
      await sleep(700);
      await store!.kill('SIGKILL');
      store = undefined;
      await sleep(500);
      store = await spawnEmbeddedStore({ dbPath: dataDir });
      for (let waited = 0; (await fetch(`${url}/readyz`)).status !== 200 && waited < 30_000; waited += 100)
        await sleep(100);
    }
    await sleep(500);
    load.running = false;
    await Promise.all(clients);
    await app.flushBookkeeping();

    // Assert: answers of both kinds, refusals during the outages, and an event for every 2xx.
    const statuses = [...answers.values()];
    const succeeded = [...answers].filter(([, status]) => status >= 200 && status < 300).map(([id]) => id);
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);
    const events = await app.database.db
      .collection(AUDIT_COLLECTION)
      .find({ requestId: { $in: succeeded } }, { projection: { _id: 0, requestId: 1, status: 1 } })
      .toArray();
    const eventsPerRequest = new Map<string, number>();
    for (const event of events) eventsPerRequest.set(event.requestId, (eventsPerRequest.get(event.requestId) ?? 0) + 1);
    const unaudited = succeeded.filter((requestId) => eventsPerRequest.get(requestId) !== 1);
    expect({ succeeded: succeeded.length, unaudited }).toEqual({ succeeded: succeeded.length, unaudited: [] });
  }, 90_000);
});

describe('a full audit buffer', () => {
  let service: AppUnderTest;
  let key: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 5, config: { auditBufferSize: 2, auditFlushMs: 0 } });
    key = await service.key('READ_CANDIDATE_DATA', 'SUBMIT_JOB_MATCHES');
  }, 60_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await service?.stop();
  });

  test('when audit events cannot be stored and the buffer is full, then reads are refused with 503 on both transports, writes still go with their events, and once events are stored again every held one is there and reads are served', async () => {
    // Arrange: the audit collection alone refuses (the rest of the store answers).
    const insertMany = jest
      .spyOn(AuditRepository.prototype, 'insertMany')
      .mockRejectedValue(new MongoNetworkError('audit writes fail'));
    const held = ['full-1', 'full-2'];
    for (const requestId of held) {
      const answer = await rest(service.url, 'GET', '/v1/candidates?limit=1', {
        key,
        headers: { 'x-request-id': requestId },
      });
      expect(answer.status).toBe(200);
    }

    // Act
    const refusedRest = await rest(service.url, 'GET', '/v1/candidates?limit=1', { key });
    const refusedGraphql = await graphql(service.url, '{ candidates(limit: 1) { content { publicId } } }', {}, key);
    const candidate = (await service.db.collection('candidates').findOne({}, { projection: { _id: 0, publicId: 1 } }))!;
    const write = await rest(service.url, 'POST', '/v1/candidates/job-match', {
      key,
      body: { candidates: [{ publicId: candidate.publicId as string }] },
      headers: { 'x-request-id': 'write-while-full' },
    });
    insertMany.mockRestore();
    await service.app.flushBookkeeping();
    const servedAgain = await rest(service.url, 'GET', '/v1/candidates?limit=1', { key });

    // Assert
    expect(refusedRest.status).toBe(503);
    expect(refusedRest.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refusedRest.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refusedGraphql.status).toBe(503);
    expect(refusedGraphql.body.errors?.map((error) => error.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
    expect(write.status).toBe(201);
    const stored = await service.db
      .collection(AUDIT_COLLECTION)
      .find({ requestId: { $in: [...held, 'write-while-full'] } }, { projection: { _id: 0, requestId: 1, status: 1 } })
      .toArray();
    expect(stored.map((event) => [event.requestId, event.status]).sort()).toEqual([
      ['full-1', 200],
      ['full-2', 200],
      ['write-while-full', 201],
    ]);
    expect(servedAgain.status).toBe(200);
  });
});
