import { MongoClient, type Db } from 'mongodb';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { spawnEmbeddedStore, type EmbeddedStoreProcess } from 'embedded-mongodb';
import { COLLECTIONS } from '../../src/app/indexes';
import { makeTempDir } from 'embedded-mongodb/test-support';
import { startCommandProxy, type CommandProxy } from '../support/command-proxy';
import { recordSecret } from '../support/log-capture';
import { rest, type RestResult } from '../support/rest-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

/**
 * kill -9 of the service during an offer to assist and during a job match, at every step of
 * each, with an Idempotency-Key. The service (`npm start` from sources) reaches the embedded
 * store (a child process) through a wire proxy that counts the request's store commands; at
 * command k (k = 1, 2, ...) the proxy lets the store apply it and kills the service, whose reply
 * never arrives. The service is started again and the request retried with the same key:
 *
 * - it is 201, with the id of the first answer when there was one, and one offer is stored;
 * - when the first attempt's write was stored before the kill, the first retry already gets it
 *   back (the answer kept for the key was stored with the write: no 409 while a lease runs out),
 *   and the first attempt's audit event is stored (it was written with the write).
 *
 * A kill before the write leaves the key in progress: the retry gets 409 until the lease
 * (WRITE_LEASE_MS, short here) has passed, then runs, with the same id.
 */
const MAX_STEPS = 20;
const DB = 'offer_crash_test';
const LEASE_MS = 1500;
/** About 11 starts of `npm start` from sources a kind: 74-92 s under a load of 11-18 on 2 cores. */
const TIMEOUT_MS = 300_000;

interface Kind {
  readonly label: string;
  readonly path: string;
  readonly idField: 'offerId' | 'jobMatchId';
  readonly operation: string;
  readonly body: (publicId: string, notes: string) => Record<string, unknown>;
}

const KINDS: readonly Kind[] = [
  {
    label: 'offer to assist',
    path: '/v1/candidates/offer-to-assist',
    idField: 'offerId',
    operation: 'offerToAssistCandidates',
    body: (publicId, notes) => ({ reason: 'EDUCATION_SERVICE', candidates: [{ publicId }], additionalNotes: notes }),
  },
  {
    label: 'job match',
    path: '/v1/candidates/job-match',
    idField: 'jobMatchId',
    operation: 'jobMatch',
    body: (publicId, notes) => ({ candidates: [{ publicId }], additionalNotes: notes }),
  },
];

interface Attempt {
  readonly notes: string;
  readonly killed: string;
  readonly first?: RestResult;
}

describe.each(KINDS)('$label under kill -9 of the service at every step', (kind) => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStoreProcess;
  let proxy: CommandProxy;
  let service: ServiceProcess;
  let apiKey: string;
  let candidate: string;

  const startService = () =>
    // As in registration-crash.test.ts: frequent heartbeats, and rate-limit units and audit
    // events written per request, so that a request's commands are one fixed sequence.
    startServiceProcess({
      MONGODB_URI: `${proxy.uri}&heartbeatFrequencyMS=500`,
      MONGODB_DB: DB,
      WRITE_LEASE_MS: String(LEASE_MS),
      MONGODB_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_FLUSH_MS: '0',
      AUDIT_FLUSH_MS: '0',
    });

  beforeAll(async () => {
    temp = makeTempDir('offer-crash');
    store = await spawnEmbeddedStore({ dbPath: temp.dir });
    proxy = await startCommandProxy(store.socketPath);
    await withStore(async (db) => {
      ({ key: apiKey } = await new ApiKeyService(createApiKeyRepository(db)).createKey({
        name: 'crash',
        permissions: ['REGISTER_CANDIDATES', 'OFFER_CANDIDATE_SERVICES', 'SUBMIT_JOB_MATCHES'],
      }));
    });
    recordSecret(apiKey);
    service = await startService();
    const email = `offer-crash-${kind.idField}@example.org`;
    recordSecret(email);
    const registered = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: apiKey,
      body: { registrarId: 'crash-test', registrationData: { identity: { email, lastName: 'Crash' }, city: 'Amman' } },
    });
    expect(registered.status).toBe(201);
    candidate = registered.body.publicId as string;
  }, 120_000);

  afterAll(async () => {
    service?.child.kill('SIGKILL');
    await service?.exited;
    await proxy?.close();
    await store?.kill('SIGKILL');
    temp?.remove();
  });

  /** A client of its own, straight to the store (not through the proxy). */
  async function withStore<T>(use: (db: Db) => Promise<T>): Promise<T> {
    const client = await MongoClient.connect(store.uri);
    try {
      return await use(client.db(DB));
    } finally {
      await client.close();
    }
  }

  function post(notes: string, requestId: string): Promise<RestResult | undefined> {
    const headers = { 'Idempotency-Key': `key-${notes}`, 'X-Request-Id': requestId };
    // A killed service answers nothing: the client sees a reset connection.
    return rest(service.url, 'POST', kind.path, { key: apiKey, body: kind.body(candidate, notes), headers }).catch(
      () => undefined,
    );
  }

  async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
    for (let attempt = 0; attempt < 300; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting until ${what}`);
  }

  const ready = async () => (await fetch(`${service.url}/readyz`).catch(() => undefined))?.status === 200;
  const auditedAs = (requestId: string, status: number) =>
    withStore((db) => db.collection(AUDIT_COLLECTION).countDocuments({ requestId, status }));
  const offersWith = (notes: string) =>
    withStore((db) =>
      db
        .collection(COLLECTIONS.offers)
        .find({ additionalNotes: notes }, { projection: { _id: 0, publicId: 1 } })
        .toArray(),
    );

  it(
    'when the service is killed after each store command of the request, then the retry with the key answers the same id, one copy is stored, and a stored write has its audit event',
    async () => {
      // Arrange: a first request fills the service's caches (API key, read epoch, transactions).
      proxy.arm();
      const warmUp = await post(`${kind.idField}-warm-up`, `${kind.idField}-warm-up`);
      expect(warmUp?.status).toBe(201);
      const commandsOfOne = [...proxy.counted];

      // Act: struck at command 1, 2, ... until a request ends before it is struck.
      const attempts: Attempt[] = [];
      for (let at = 1; at <= MAX_STEPS; at++) {
        const notes = `${kind.idField}-step-${at}`;
        proxy.arm({
          at,
          point: 'after',
          strike: async () => {
            service.child.kill('SIGKILL');
            await service.exited;
          },
        });
        const first = await post(notes, `${notes}-first`);
        await until(() => proxy.struck || first?.status === 201, 'the kill or the answer');
        if (!proxy.struck) {
          proxy.arm();
          break;
        }
        attempts.push({ notes, killed: `service after command ${at} (${proxy.counted.join(', ')})`, first });
        proxy.arm();
        service = await startService();
        await until(ready, 'the service reaches the store again');
      }

      // Assert: struck after each of its writes (the commit among them), then the retries.
      const writes = commandsOfOne.filter((name) => name !== 'find' && name !== 'delete');
      expect(writes).toEqual(expect.arrayContaining(['insert', 'update', 'commitTransaction']));
      expect(attempts.length).toBeGreaterThanOrEqual(writes.length);
      expect(attempts.length).toBeLessThan(MAX_STEPS);
      const storedAtKill = new Set<number>();
      for (const { notes, killed, first } of attempts) {
        const storedBefore = await offersWith(notes);
        storedAtKill.add(storedBefore.length);
        const answers: (number | undefined)[] = [];
        let retry: RestResult | undefined;
        for (let round = 0; round < 40; round++) {
          retry = await post(notes, `${notes}-retry-${round}`);
          answers.push(retry?.status);
          if (retry?.status !== 409) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const stored = await offersWith(notes);
        const outcome = { killed, first: first?.status, answers, stored: stored.length };
        expect(outcome).toEqual({ ...outcome, answers: [...answers.slice(0, -1), 201], stored: 1 });
        expect({ killed, id: retry?.body[kind.idField] }).toEqual({ killed, id: stored[0].publicId });
        if (first?.status === 201) expect(retry?.body).toEqual(first.body);
        if (storedBefore.length === 1) {
          // Stored before the kill: answered at once, and audited with the write.
          expect({ killed, answers }).toEqual({ killed, answers: [201] });
          expect({ killed, audited: await auditedAs(`${notes}-first`, 201) }).toEqual({ killed, audited: 1 });
        }
      }
      // Both sides of the commit were struck: some kills left the write stored, some did not.
      expect([...storedAtKill].sort()).toEqual([0, 1]);
    },
    TIMEOUT_MS,
  );
});
