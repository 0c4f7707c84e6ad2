import { MongoClient, type Db } from 'mongodb';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { spawnEmbeddedStore, type EmbeddedStoreProcess } from 'embedded-mongodb';
import { COLLECTIONS } from '../../src/app/indexes';
import { makeTempDir } from 'embedded-mongodb/test-support';
import { startCommandProxy, type CommandProxy } from '../support/command-proxy';
import { recordSecret } from '../support/log-capture';
import { expectWholeRegistrations } from '../support/registrations';
import { rest, type RestResult } from '../support/rest-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { registrationsOfEmail } from '../support/identities';

/**
 * kill -9 during a registration, at every step of it: the service (`npm start` from sources)
 * and the embedded store each run as a process, the service reaching the store through a wire
 * proxy that counts the registration's store commands. Before its first write, and at its write
 * k (k = 1, 2, ...), the proxy lets the store apply it and then kills, with SIGKILL, the store
 * (restarted on the same data directory) or, separately, the service (restarted); the reply of
 * write k never arrives. Killing after write k leaves the store exactly as killing before write
 * k + 1 would, and a read in between changes nothing, so every state a crash can leave is reached
 * (striking after each read as well would only reach these states again, at a restart each).
 *
 * Then, on what is on disk: no identity without its candidate, no registered candidate without
 * its identity, every 201 a client got still readable. The service is killed during
 * registrations with an Idempotency-Key: the retry with the same key is 201, with the publicId
 * of the first answer when there was one (also when the crash cost the client that answer).
 * The store is killed during registrations without a key: the retry by the same e-mail registers
 * the person, or finds the person registered (409) when the crash came after the commit.
 */
const MAX_STEPS = 16;
/**
 * The commands that may change what is stored about a registration: all but reads and the rate
 * limiter's clean-up of a key's ended windows (a `delete` once a minute, which varies).
 */
const READS_AND_CLEAN_UP = new Set(['find', 'aggregate', 'getMore', 'count', 'delete']);
const isWrite = (name: string) => !READS_AND_CLEAN_UP.has(name);
/**
 * The store struck at each of the 7 writes of a registration without a key (8 restarts of the
 * store child): 49-79 s under a load of 14-19 on 2 cores.
 */
const STORE_KILLS_TIMEOUT_MS = 240_000;
/**
 * The service struck at each of the 10 writes of a registration with a key: 11 starts of
 * `npm start` from sources (about 4 s of CPU each: loading the sources through tsx, connecting,
 * checking indexes), 175-250 s under a load of 14-19 on 2 cores.
 */
const SERVICE_KILLS_TIMEOUT_MS = 600_000;
const DB = 'crash_test';

interface Attempt {
  readonly email: string;
  readonly idempotencyKey?: string;
  readonly killed: string;
  readonly first?: RestResult;
}

describe('registration under kill -9 at every step', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStoreProcess;
  let proxy: CommandProxy;
  let service: ServiceProcess;
  let apiKey: string;
  let sequence = 0;

  const startService = () =>
    // Frequent heartbeats: the service finds a restarted store sooner (the test runs faster).
    // Rate-limit units and audit events written per request, not buffered: a registration's
    // commands are then one fixed sequence, so "after command k" is the same step in every run.
    startServiceProcess({
      MONGODB_URI: `${proxy.uri}&heartbeatFrequencyMS=500`,
      MONGODB_DB: DB,
      WRITE_LEASE_MS: '1',
      MONGODB_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_FLUSH_MS: '0',
      AUDIT_FLUSH_MS: '0',
    });

  beforeAll(async () => {
    temp = makeTempDir('registration-crash');
    store = await spawnEmbeddedStore({ dbPath: temp.dir });
    proxy = await startCommandProxy(store.socketPath);
    await withStore(async (db) => {
      ({ key: apiKey } = await new ApiKeyService(createApiKeyRepository(db)).createKey({
        name: 'crash',
        permissions: ['REGISTER_CANDIDATES'],
      }));
    });
    recordSecret(apiKey);
    service = await startService();
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

  function register(
    email: string,
    idempotencyKey: string | undefined,
    url = service.url,
  ): Promise<RestResult | undefined> {
    const body = {
      registrarId: 'crash-test',
      registrationData: { identity: { email, lastName: 'Crash' }, city: 'Amman' },
    };
    const headers: Record<string, string> = idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey };
    // A killed service answers nothing: the client sees a reset connection.
    return rest(url, 'POST', '/v1/candidates/register', { key: apiKey, body, headers }).catch(() => undefined);
  }

  function nextEmail(): string {
    const email = `crash-${++sequence}@example.org`;
    recordSecret(email);
    return email;
  }

  async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting until ${what}`);
  }

  const ready = async () => (await fetch(`${service.url}/readyz`).catch(() => undefined))?.status === 200;
  const audited = (answer: RestResult | undefined) => async () =>
    withStore(
      async (db) =>
        (await db
          .collection(AUDIT_COLLECTION)
          .countDocuments({ requestId: answer?.headers.get('x-request-id') ?? '' })) === 1,
    ).catch(() => false);

  /**
   * Registrations struck with `kill` before their first write, then after write 1, 2, ..., until
   * one ends before it is struck; all with an Idempotency-Key or all without (their commands differ).
   */
  async function crashAtEveryStep(
    victim: 'store' | 'service',
    withKey: boolean,
    kill: () => Promise<void>,
    restart: () => Promise<void>,
  ): Promise<{ attempts: Attempt[]; completed: string[] }> {
    const attempts: Attempt[] = [];
    /** the commands of the registration that ended before its strike */
    const completed: string[] = [];
    for (let at = 0; at <= MAX_STEPS; at++) {
      const email = nextEmail();
      const idempotencyKey = withKey ? `crash-${victim}-${at}` : undefined;
      proxy.arm({ at: Math.max(at, 1), among: isWrite, point: at === 0 ? 'before' : 'after', strike: kill });
      const first = await register(email, idempotencyKey);
      await until(() => proxy.struck || first?.status === 201, 'the kill or the answer');
      if (!proxy.struck) {
        // Answered: its audit record still follows. Struck there, or ended before command `at`.
        await until(
          async () => proxy.struck || proxy.counted.filter(isWrite).length >= at || (await audited(first)()),
          'the last registration is audited',
        );
        if (proxy.counted.filter(isWrite).length >= at) await until(() => proxy.struck, 'the kill');
        if (!proxy.struck) {
          completed.push(...proxy.counted);
          proxy.arm();
          break;
        }
      }
      attempts.push({
        email,
        idempotencyKey,
        killed: `${victim} ${at === 0 ? 'before the first write' : `after write ${at}`} (${proxy.counted.join(', ')})`,
        first,
      });
      await restart();
      proxy.arm();
      await until(ready, 'the service reaches the store again');
    }
    return { attempts, completed };
  }

  /**
   * The strikes went on until a registration ended before its step (not until MAX_STEPS), and
   * there was one before the first write and one after each write of that last registration,
   * made as the struck ones were (`completed`, its commit and audit insert included). The first
   * registration after a start writes more than later ones (the warm-up, `commandsOfOne`, is
   * the first with its key or its kind of key; the others come after a restart of the victim).
   */
  function expectEveryWriteStruck(
    { attempts, completed }: { attempts: readonly Attempt[]; completed: readonly string[] },
    commandsOfOne: readonly string[],
  ): void {
    const writes = completed.filter(isWrite);
    expect(commandsOfOne.filter(isWrite)).toEqual(expect.arrayContaining(['insert', 'commitTransaction']));
    expect(writes).toEqual(expect.arrayContaining(['insert', 'commitTransaction']));
    expect(attempts.length).toBeGreaterThanOrEqual(writes.length + 1);
    expect(attempts.length).toBeLessThan(MAX_STEPS);
  }

  async function expectRecovered(attempts: readonly Attempt[]): Promise<void> {
    await withStore(async (db) => {
      await expectWholeRegistrations(db);
      // No lost 201: what a client was told is registered is on disk.
      for (const { first, killed } of attempts) {
        if (first?.status !== 201) continue;
        const found = await db.collection(COLLECTIONS.candidates).countDocuments({ publicId: first.body.publicId });
        expect({ killed, found }).toEqual({ killed, found: 1 });
      }
    });
    for (const { email, idempotencyKey, killed, first } of attempts) {
      const retry = await register(email, idempotencyKey);
      const registered = await withStore((db) => registrationsOfEmail(db, email));
      const outcome = { killed, first: first?.status, retry: retry?.status, registered, answer: retry?.text };
      if (idempotencyKey !== undefined || first?.status === 201) {
        expect(outcome).toEqual({ ...outcome, retry: idempotencyKey === undefined ? 409 : 201, registered: 1 });
        if (idempotencyKey !== undefined && first?.status === 201)
          expect(retry?.body.publicId).toBe(first.body.publicId);
      } else {
        // Without a key: registered now, or already by the first attempt (the crash came after its commit).
        expect([201, 409]).toContain(retry?.status);
        expect(outcome).toEqual({ ...outcome, registered: 1 });
      }
    }
    await withStore((db) => expectWholeRegistrations(db));
  }

  it(
    'when the store is killed before and after each write of a registration without a key, then after its restart nothing is half-written or lost and a retry by e-mail registers',
    async () => {
      // Arrange: the first registration fills the service's caches (API key, read epoch).
      proxy.arm();
      const warmUp = await register(nextEmail(), undefined);
      expect(warmUp?.status).toBe(201);
      await until(audited(warmUp), 'the warm-up is audited');
      const commandsOfOne = [...proxy.counted];

      // Act
      const struck = await crashAtEveryStep(
        'store',
        false,
        () => store.kill('SIGKILL'),
        async () => {
          store = await spawnEmbeddedStore({ dbPath: temp.dir });
          proxy.retarget(store.socketPath);
        },
      );

      // Assert: struck after each write of a registration (before, at and after its commit) until one ended first
      expectEveryWriteStruck(struck, commandsOfOne);
      console.log(
        [...struck.attempts.map((attempt) => attempt.killed), `ended: ${struck.completed.join(', ')}`].join('\n'),
      );
      await expectRecovered(struck.attempts);
    },
    STORE_KILLS_TIMEOUT_MS,
  );

  it(
    'when the service is killed before and after each write of a registration with a key, then after its restart nothing is half-written or lost and the retry with the key registers',
    async () => {
      // Arrange
      proxy.arm();
      const warmUp = await register(nextEmail(), 'warm-up-service');
      expect(warmUp?.status).toBe(201);
      await until(audited(warmUp), 'the warm-up is audited');
      const commandsOfOne = [...proxy.counted];

      // Act
      const struck = await crashAtEveryStep(
        'service',
        true,
        async () => {
          service.child.kill('SIGKILL');
          await service.exited;
        },
        async () => {
          proxy.arm();
          service = await startService();
        },
      );

      // Assert: struck after each write of a registration (before, at and after its commit) until one ended first
      expectEveryWriteStruck(struck, commandsOfOne);
      console.log(
        [...struck.attempts.map((attempt) => attempt.killed), `ended: ${struck.completed.join(', ')}`].join('\n'),
      );
      await expectRecovered(struck.attempts);
    },
    SERVICE_KILLS_TIMEOUT_MS,
  );
});
