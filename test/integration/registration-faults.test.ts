import { MongoClient, type Db } from 'mongodb';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { startEmbeddedStore, type EmbeddedStore } from 'embedded-mongodb';
import { testDatabaseName } from '../support/builders';
import { startCommandProxy, type CommandProxy, type FaultPoint } from '../support/command-proxy';
import { appLogDestination, recordSecret } from '../support/log-capture';
import { expectWholeRegistrations } from '../support/registrations';
import { rest } from '../support/rest-client';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import { COLLECTIONS } from '../../src/app/indexes';
import { registrationsOfEmail } from '../support/identities';

/**
 * A registration with a fault at each of its steps: every store command a registration
 * sends, struck before the store gets it or after the store has applied it (the reply lost),
 * and the store then unreachable, as if it had crashed, until it is "restarted". After each:
 * no identity without its candidate or candidate without its identity, and a retry with the
 * same Idempotency-Key registers the person (or gets the registration already made back).
 *
 * On a store with transactions the two writes are one transaction; on a standalone they are
 * two writes, and what a fault between them leaves is cleared by the retry once the lease
 * (WRITE_LEASE_MS, 1 ms here so the retry finds it passed) is over.
 */
/** Polls `check` for up to five seconds; its last answer. */
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
])('a registration struck at every step, on %s', (label, standalone) => {
  let store: EmbeddedStore;
  let proxy: CommandProxy;
  let app: CandidateDirectory;
  let url: string;
  let apiKey: string;
  let direct: MongoClient;
  let db: Db;
  /** The commands of one registration, from a run without faults. */
  let steps: string[];
  let sequence = 0;

  beforeAll(async () => {
    store = await startEmbeddedStore({ memory: true, port: 0, standalone });
    proxy = await startCommandProxy(store.port);
    const mongodbDb = testDatabaseName('faults');
    const logs = appLogDestination(mongodbDb);
    // A short database timeout: a request during the "outage" fails fast (503).
    // Rate-limit counting per request (RATE_LIMIT_FLUSH_MS=0): a buffered flush would add its commands at any moment, not as steps of the registration.
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
      },
    );
    // A clock that moves 1 ms at every reading: with the 1 ms lease, the standalone's check after
    // its second write (has the lease passed?) then runs in every registration, so it is a step of
    // every run and is struck like the others (the wall clock may not have moved). It starts early
    // in a minute and stays in it (a few thousand readings): a new rate-limit window would add its
    // best-effort clean-up (a `delete`) to whichever request opens it, as the wall clock's next
    // minute did to the clean run now and then.
    let last = Date.parse('2030-05-06T12:00:00.000Z');
    const clock = { now: () => new Date(++last) };
    app = await createApp(config, createLogger(config, logs.destination), clock);
    url = await app.start();
    direct = await MongoClient.connect(store.uri);
    db = direct.db(mongodbDb);
    ({ key: apiKey } = await new ApiKeyService(createApiKeyRepository(db)).createKey({
      name: 'faults',
      permissions: ['REGISTER_CANDIDATES'],
    }));
    recordSecret(apiKey);

    // The second of two clean runs: the first also fills the caches (API key, read epoch).
    for (const run of ['first', 'second']) {
      proxy.arm();
      const clean = await register(nextEmail(), `clean-${label}-${run}`);
      await untilAudited(clean.headers.get('x-request-id'));
      expect(clean.status).toBe(201);
    }
    steps = [...proxy.counted];
    process.stdout.write(`registration on ${label}: ${steps.join(', ')}\n`);
  });

  afterAll(async () => {
    await app?.stop();
    await direct?.close();
    await proxy?.close();
    await store?.close();
  });

  function nextEmail(): string {
    const email = `fault-${standalone ? 'standalone' : 'transactions'}-${++sequence}@example.org`;
    recordSecret(email);
    return email;
  }

  function register(email: string, idempotencyKey: string) {
    const body = {
      registrarId: 'fault-test',
      registrationData: { identity: { email, firstName: 'Fault' }, candidateMessage: 'struck' },
    };
    return rest(url, 'POST', '/v1/candidates/register', {
      key: apiKey,
      body,
      headers: { 'Idempotency-Key': idempotencyKey },
    });
  }

  /** Waits until the service reaches the store again (the driver rediscovers it on its own). */
  async function untilReady(): Promise<void> {
    if (!(await eventually(async () => (await fetch(`${url}/readyz`)).status === 200)))
      throw new Error('the service did not reach the store again');
  }

  it('when a registration runs without faults, then it sends the writes of both documents', () => {
    expect(steps.filter((name) => name === 'insert').length).toBeGreaterThanOrEqual(2);
    if (!standalone) expect(steps).toContain('commitTransaction');
  });

  /** Waits for the audit record the answer `requestId` is followed by, so it cannot land in the next count. */
  async function untilAudited(requestId: string | null): Promise<void> {
    await eventually(
      async () => (await db.collection(AUDIT_COLLECTION).countDocuments({ requestId: requestId ?? '' })) === 1,
    );
  }

  it.each<FaultPoint>(['before', 'after'])(
    'when the fault strikes %s each command, then nothing is half-written and the retry registers the person',
    async (point) => {
      const missed: string[] = [];
      // Step i of the clean run is the n-th command of its name: struck as such, since how many
      // reads a registration makes depends on what is cached (a run with fewer finds is not
      // struck at a find it does not make, and must simply succeed); its writes are always there.
      for (let step = 0; step < steps.length; step++) {
        // Arrange
        const name = steps[step];
        const at = steps.slice(0, step + 1).filter((seen) => seen === name).length;
        const email = nextEmail();
        const idempotencyKey = `fault-${label}-${point}-${step}`;
        proxy.arm({ at, name, point, thenDown: true });

        // Act
        const first = await register(email, idempotencyKey);
        // The last step (the audit record) comes after the answer: struck there, or the run ended first.
        const requestId = first.headers.get('x-request-id') ?? '';
        const audited = async () => (await db.collection(AUDIT_COLLECTION).countDocuments({ requestId })) === 1;
        const reached = () => proxy.counted.filter((seen) => seen === name).length >= at;
        await eventually(async () => proxy.struck || (!reached() && (await audited())));
        const struck = reached() ? await eventually(() => proxy.struck) : proxy.struck;
        const firstCommands = [...proxy.counted];
        proxy.arm();
        if (!struck) {
          missed.push(`${name} #${at}`);
          expect(first.status).toBe(201);
        }
        await untilReady();
        // A standalone has no transactions: a fault between the two writes leaves an identity
        // alone until the retry clears it; with transactions there is never one.
        if (!standalone) await expectWholeRegistrations(db);
        const retry = await register(email, idempotencyKey);
        await untilAudited(retry.headers.get('x-request-id'));

        // Assert
        const where = `fault ${point} ${name} #${at} (${firstCommands.join(', ')}): first answer ${first.status}, retry ${retry.status} ${retry.text}`;
        expect({ where, status: retry.status }).toEqual({ where, status: 201 });
        if (first.status === 201)
          expect({ where, publicId: retry.body.publicId }).toEqual({ where, publicId: first.body.publicId });
        const identities = await registrationsOfEmail(db, email);
        const candidates = await db
          .collection(COLLECTIONS.candidates)
          .countDocuments({ publicId: retry.body.publicId });
        expect({ where, identities, candidates }).toEqual({ where, identities: 1, candidates: 1 });
        await expectWholeRegistrations(db);
      }

      // Every write was struck; at most a read a cached run no longer made was not.
      expect(missed.filter((step) => !step.startsWith('find'))).toEqual([]);
    },
    120_000,
  );
});
