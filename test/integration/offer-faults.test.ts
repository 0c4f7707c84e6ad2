import { MongoClient, type Db } from 'mongodb';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { startEmbeddedStore, type EmbeddedStore } from 'embedded-mongodb';
import { COLLECTIONS } from '../../src/app/indexes';
import { testDatabaseName } from '../support/builders';
import { startCommandProxy, type CommandProxy, type FaultPoint } from '../support/command-proxy';
import { appLogDestination, recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * A job match with an Idempotency-Key with a fault at each of its store commands, on a store
 * with transactions and on a standalone (no transactions): struck before the store gets it or
 * after the store applied it (the reply lost), the store then unreachable until "restarted".
 * The retry with the same key is 201, with the id of the first answer when there was one, and
 * one job match is stored: on a standalone too, where the write and the answer kept for its key
 * are separate writes (the id, derived from the request, is what refuses a second copy).
 */
async function eventually(check: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

describe.each([
  ['a store with transactions', false],
  ['a standalone store', true],
])('a job match struck at every step, on %s', (label, standalone) => {
  let store: EmbeddedStore;
  let proxy: CommandProxy;
  let app: CandidateDirectory;
  let url: string;
  let apiKey: string;
  let direct: MongoClient;
  let db: Db;
  let candidate: string;
  /** The commands of one job match, from a run without faults. */
  let steps: string[];

  beforeAll(async () => {
    store = await startEmbeddedStore({ memory: true, port: 0, standalone });
    proxy = await startCommandProxy(store.port);
    const mongodbDb = testDatabaseName('offerfaults');
    const logs = appLogDestination(mongodbDb);
    // As in registration-faults.test.ts: a short database timeout, and rate-limit units and audit
    // events written per request, so that a job match's commands are one fixed sequence.
    const config = loadConfig(
      {},
      {
        port: 0,
        mongodbUri: `${proxy.uri}&heartbeatFrequencyMS=500`,
        mongodbDb,
        logLevel: logs.level,
        writeLeaseMs: 1,
        mongodbTimeoutMs: 1000,
        rateLimitFlushMs: 0,
        auditFlushMs: 0,
      },
    );
    let last = Date.parse('2030-05-06T12:00:00.000Z');
    app = await createApp(config, createLogger(config, logs.destination), { now: () => new Date(++last) });
    url = await app.start();
    direct = await MongoClient.connect(store.uri);
    db = direct.db(mongodbDb);
    ({ key: apiKey } = await new ApiKeyService(createApiKeyRepository(db)).createKey({
      name: 'offer faults',
      permissions: ['REGISTER_CANDIDATES', 'SUBMIT_JOB_MATCHES'],
    }));
    recordSecret(apiKey);
    const email = `offer-faults-${standalone ? 'standalone' : 'transactions'}@example.org`;
    recordSecret(email);
    const registered = await rest(url, 'POST', '/v1/candidates/register', {
      key: apiKey,
      body: { registrarId: 'fault-test', registrationData: { identity: { email, lastName: 'Fault' } } },
    });
    expect(registered.status).toBe(201);
    candidate = registered.body.publicId as string;

    for (const run of ['first', 'second']) {
      proxy.arm();
      const clean = await match(`clean-${run}`);
      expect(clean.status).toBe(201);
    }
    steps = [...proxy.counted];
    process.stdout.write(`job match on ${label}: ${steps.join(', ')}\n`);
  });

  afterAll(async () => {
    await app?.stop();
    await direct?.close();
    await proxy?.close();
    await store?.close();
  });

  function match(notes: string, requestId = `${notes}-${standalone ? 'standalone' : 'transactions'}`) {
    return rest(url, 'POST', '/v1/candidates/job-match', {
      key: apiKey,
      body: { candidates: [{ publicId: candidate }], additionalNotes: notes },
      headers: { 'Idempotency-Key': `key-${label}-${notes}`, 'X-Request-Id': requestId },
    });
  }

  const offersWith = (notes: string) =>
    db
      .collection(COLLECTIONS.offers)
      .find({ additionalNotes: notes }, { projection: { _id: 0, publicId: 1 } })
      .toArray();

  it('when a job match runs without faults, then it writes the job match and its audit event', () => {
    expect(steps.filter((name) => name === 'insert').length).toBeGreaterThanOrEqual(2);
    if (!standalone) expect(steps).toContain('commitTransaction');
  });

  it.each<FaultPoint>(['before', 'after'])(
    'when the fault strikes %s each command, then the retry with the key answers the same id and one copy is stored',
    async (point) => {
      const missed: string[] = [];
      for (let step = 0; step < steps.length; step++) {
        // Arrange
        const name = steps[step];
        const at = steps.slice(0, step + 1).filter((seen) => seen === name).length;
        const notes = `${point}-${step}`;
        proxy.arm({ at, name, point, thenDown: true });

        // Act
        const first = await match(notes, `${notes}-first`);
        const reached = () => proxy.counted.filter((seen) => seen === name).length >= at;
        const struck = reached() ? await eventually(() => proxy.struck) : proxy.struck;
        const firstCommands = [...proxy.counted];
        proxy.arm();
        if (!struck) missed.push(`${name} #${at}`);
        if (!(await eventually(async () => (await fetch(`${url}/readyz`)).status === 200)))
          throw new Error('the service did not reach the store again');
        const storedBefore = await offersWith(notes);
        const retry = await match(notes, `${notes}-retry`);

        // Assert
        const where = `fault ${point} ${name} #${at} (${firstCommands.join(', ')}): first answer ${first.status}, retry ${retry.status} ${retry.text}`;
        expect({ where, status: retry.status }).toEqual({ where, status: 201 });
        if (first.status === 201) expect({ where, answer: retry.body }).toEqual({ where, answer: first.body });
        const stored = await offersWith(notes);
        expect({ where, stored }).toEqual({ where, stored: [{ publicId: retry.body.jobMatchId }] });
        if (!standalone && storedBefore.length === 1) {
          // Stored before the fault: with its audit event, written in its transaction.
          const audited = await db
            .collection(AUDIT_COLLECTION)
            .countDocuments({ requestId: `${notes}-first`, status: 201 });
          expect({ where, audited }).toEqual({ where, audited: 1 });
        }
      }

      // Every write was struck; at most a read a cached run no longer made was not.
      expect(missed.filter((step) => !step.startsWith('find'))).toEqual([]);
    },
    120_000,
  );
});
