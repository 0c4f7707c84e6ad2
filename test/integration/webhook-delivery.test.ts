import { randomBytes } from 'node:crypto';
import { startStoreUnderTest } from 'embedded-mongodb/test-support';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import type { Permission } from '../../src/auth/permissions';
import { connectDatabase, type Database } from '../../src/store/mongo';
import { ensureIndexes } from '../../src/store/indexes';
import type { EndpointPolicy } from '../../src/webhooks/address-guard';
import { createDeliveryClient } from '../../src/webhooks/delivery-client';
import type { OutboxEvent, OutboxSource, WebhookEventType } from '../../src/webhooks/webhook-event';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/webhook-dispatcher';
import { webhookIndexes } from '../../src/webhooks/webhook-indexes';
import { WebhookRepository } from '../../src/webhooks/webhook-repository';
import { WebhookService } from '../../src/webhooks/webhook-service';
import { createSecretBox } from '../../src/webhooks/secret-box';
import { recordSecret } from '../support/log-capture';
import { TestClock } from '../support/test-clock';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The dispatcher against the real store and a real receiver on 127.0.0.1 that verifies every
 * signature with the `standardwebhooks` library. The outbox is an in-memory list here (the
 * change outbox's own tests cover how events are written); polls are run by hand and the
 * injected clock is moved by hand, so no test waits for a backoff.
 */
const ADMIN = { permissions: ['ADMIN' as const] };
const OPEN = { allowHttp: true, allowPrivateAddresses: true };
const BASE_MS = 1000;
const MAX_ATTEMPTS = 3;
/** secrets are stored sealed here, as with WEBHOOK_SECRET_KEY set */
const SECRET_KEY = randomBytes(32);

let store: Awaited<ReturnType<typeof startStoreUnderTest>>;
let database: Database;
let repository: WebhookRepository;
let receiver: WebhookReceiver;
let clock: TestClock;
let events: OutboxEvent[];
/** the keys' permissions by key id; absent: READ_CANDIDATE_DATA */
let permissions: Map<string, Permission[]>;
const dispatchers: WebhookDispatcher[] = [];
const receivers: WebhookReceiver[] = [];

const outbox: OutboxSource = {
  readAfter: (after, limit) => Promise.resolve(events.filter((e) => e.seq > after).slice(0, limit)),
  latestSeq: () => Promise.resolve(events.at(-1)?.seq ?? 0),
};

function append(kind: WebhookEventType = 'REGISTERED', publicId = `p${events.length + 1}`): OutboxEvent {
  const event = { seq: events.length + 1, kind, publicId, at: clock.now() };
  events.push(event);
  return event;
}

function dispatcher(
  options: Partial<DispatcherOptions> & { timeoutMs?: number; strict?: boolean; policy?: EndpointPolicy } = {},
) {
  const policy = options.policy ?? (options.strict ? { allowHttp: true, allowPrivateAddresses: false } : OPEN);
  const created = new WebhookDispatcher(
    repository,
    outbox,
    createDeliveryClient({ ...policy, timeoutMs: options.timeoutMs ?? 2000 }),
    clock,
    {
      maxAttempts: MAX_ATTEMPTS,
      backoffBaseMs: BASE_MS,
      backoffMaxMs: 60_000,
      pollMs: 50,
      leaseMs: 30_000,
      concurrency: 8,
      random: () => 1,
      ...options,
    },
    { warn: () => undefined },
    {
      findById: (id) =>
        Promise.resolve({
          permissions: permissions.get(id) ?? ['READ_CANDIDATE_DATA'],
          ...(id === 'key_revoked' ? { revokedAt: clock.now() } : {}),
        }),
    },
    createSecretBox(SECRET_KEY),
  );
  dispatchers.push(created);
  return created;
}

async function register(
  eventTypes: WebhookEventType[] = ['REGISTERED', 'UPDATED'],
  apiKeyId = 'key_partner',
  endpoint: WebhookReceiver = receiver,
) {
  const service = new WebhookService(
    repository,
    { findById: (id) => Promise.resolve({ id, permissions: permissions.get(id) ?? ['READ_CANDIDATE_DATA'] }) },
    outbox,
    OPEN,
    clock,
    createSecretBox(SECRET_KEY),
  );
  const created = await service.create(ADMIN, { apiKeyId, url: endpoint.url, eventTypes, fromBeginning: true });
  recordSecret(created.secret);
  endpoint.setSecret(created.secret);
  return { service, webhook: created.webhook };
}

beforeAll(async () => {
  store = await startStoreUnderTest();
  database = await connectDatabase(store.uri, `webhook_delivery_${randomBytes(6).toString('hex')}`);
  await ensureIndexes(database.db, webhookIndexes);
  repository = new WebhookRepository(database.db);
});

beforeEach(async () => {
  await database.db.collection('webhooks').deleteMany({});
  await database.db.collection('webhookDeliveries').deleteMany({});
  // Standard Webhooks receivers refuse timestamps more than 5 minutes from their own clock.
  clock = new TestClock(new Date());
  events = [];
  permissions = new Map();
  receiver = new WebhookReceiver();
  await receiver.start();
});

afterEach(async () => {
  // Endpoints first: an attempt a slow one holds is reset, and the dispatchers stop at once.
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
  await receiver.stop();
  await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
});

/** Another endpoint, stopped after the test. */
async function anotherReceiver(): Promise<WebhookReceiver> {
  const other = new WebhookReceiver();
  await other.start();
  receivers.push(other);
  return other;
}

/**
 * How long a test waits for a delivery it expects before it fails: a guard against a hang, never a
 * measure (the order of events is what the scheduling tests assert).
 */
const GUARD_MS = 10_000;

/** Milliseconds until `endpoint` gets its next delivery (then `onArrival` runs), or null when none comes within `withinMs`. */
function nextDelivery(endpoint: WebhookReceiver, withinMs: number, onArrival?: () => void): Promise<number | null> {
  const started = performance.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      endpoint.onDelivery = undefined;
      resolve(null);
    }, withinMs);
    endpoint.onDelivery = () => {
      endpoint.onDelivery = undefined;
      onArrival?.();
      clearTimeout(timer);
      resolve(performance.now() - started);
    };
  });
}

afterAll(async () => {
  await database?.db.dropDatabase().catch(() => undefined);
  await database?.close();
  await store?.stop();
});

describe('webhook delivery', () => {
  test('when the receiver answers 2xx, then every event arrives once, in order, signed, with an id derived from the webhook and the seq', async () => {
    const { webhook } = await register();
    append();
    append('UPDATED');
    append('ERASED'); // not asked for
    append();
    await dispatcher().pollOnce();

    expect(receiver.badSignatures).toBe(0);
    expect(receiver.received).toEqual([
      { id: `msg_${webhook.id}_1`, type: 'candidate.registered', seq: 1, publicId: 'p1' },
      { id: `msg_${webhook.id}_2`, type: 'candidate.updated', seq: 2, publicId: 'p2' },
      { id: `msg_${webhook.id}_4`, type: 'candidate.registered', seq: 4, publicId: 'p4' },
    ]);
    expect((await repository.findById(webhook.id))?.cursor).toBe(4);
    expect(await repository.signingSecret(webhook.id)).toMatch(/^enc:v1:/);
  });

  test('when the receiver answers 500, then the event is retried only after its backoff, with the same id, and later events wait for it', async () => {
    const { webhook, service } = await register();
    append();
    append();
    const sender = dispatcher();
    receiver.mode = 'fail';
    await sender.pollOnce();
    await sender.pollOnce(); // the retry is not due yet: nothing is sent
    expect(receiver.requests).toBe(1);
    const [retrying] = await service.deliveries(ADMIN, webhook.id, undefined, 10);
    expect(retrying).toMatchObject({ seq: 1, state: 'RETRYING', attempts: 1, lastStatus: 500 });
    expect(retrying.nextAttemptAt).toEqual(new Date(clock.now().getTime() + BASE_MS));

    receiver.mode = 'ok';
    clock.advance(BASE_MS);
    await sender.pollOnce();

    expect(receiver.requests).toBe(3);
    expect(receiver.received.map((r) => r.id)).toEqual([`msg_${webhook.id}_1`, `msg_${webhook.id}_2`]);
    const [delivered] = await service.deliveries(ADMIN, webhook.id, 'DELIVERED', 10);
    expect(delivered).toMatchObject({ seq: 1, attempts: 2, lastStatus: 204, nextAttemptAt: null });
  });

  test('when the receiver is down, then no event is lost: they all arrive once it is back', async () => {
    await register();
    append();
    append();
    const sender = dispatcher();
    await receiver.stop();
    await sender.pollOnce();
    clock.advance(BASE_MS);
    await sender.pollOnce();
    await receiver.start();
    clock.advance(4 * BASE_MS);
    await sender.pollOnce();

    expect(receiver.received.map((r) => r.seq)).toEqual([1, 2]);
  });

  test('when the receiver answers too slowly, then the attempt fails and the duplicate it gets carries the same id', async () => {
    const { webhook } = await register();
    append();
    const sender = dispatcher({ timeoutMs: 200 });
    receiver.mode = 'slow';
    await sender.pollOnce();
    receiver.mode = 'ok';
    clock.advance(BASE_MS);
    await sender.pollOnce();

    expect(receiver.received.map((r) => r.id)).toEqual([`msg_${webhook.id}_1`, `msg_${webhook.id}_1`]);
    expect((await repository.findDelivery(webhook.id, 1))?.state).toBe('DELIVERED');
  });

  test('when an event fails every allowed attempt, then it is dead-lettered, later events go on, and a replay delivers it with its id', async () => {
    const { webhook, service } = await register();
    append();
    append();
    const sender = dispatcher();
    receiver.mode = 'fail';
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      await sender.pollOnce();
      clock.advance(60_000);
    }
    receiver.mode = 'ok';
    await sender.pollOnce();

    expect(receiver.received.map((r) => r.seq)).toEqual([2]);
    const [dead] = await service.deliveries(ADMIN, webhook.id, 'DEAD_LETTER', 10);
    expect(dead).toMatchObject({ seq: 1, attempts: MAX_ATTEMPTS, lastStatus: 500, nextAttemptAt: null });
    expect((await service.list(ADMIN))[0]).toMatchObject({ cursor: 2, lag: 0 });

    await service.replay(ADMIN, webhook.id, 1);
    await sender.pollOnce();
    expect(receiver.received.map((r) => r.id)).toEqual([`msg_${webhook.id}_2`, `msg_${webhook.id}_1`]);
    expect((await repository.findDelivery(webhook.id, 1))?.state).toBe('DELIVERED');
    await expect(service.replay(ADMIN, webhook.id, 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  test('when the endpoint answers a redirect, then it is not followed and the attempt fails', async () => {
    const { webhook } = await register();
    append();
    receiver.mode = 'redirect';
    await dispatcher().pollOnce();

    expect(receiver.requests).toBe(1); // the redirect's target (the same server) got nothing more
    expect(await repository.findDelivery(webhook.id, 1)).toMatchObject({
      state: 'RETRYING',
      lastStatus: 307,
      lastError: 'redirect 307 not followed',
    });
  });

  test('when private addresses are not allowed at delivery time, then a loopback endpoint is never connected to', async () => {
    const { webhook } = await register();
    append();
    await dispatcher({ strict: true }).pollOnce();

    expect(receiver.requests).toBe(0);
    expect(await repository.findDelivery(webhook.id, 1)).toMatchObject({ state: 'RETRYING', lastStatus: null });
  });

  test('when the service does not allow http, then an http endpoint registered elsewhere is never sent anything', async () => {
    // Registered where http was allowed (a CLI with WEBHOOK_ALLOW_HTTP=true in its own environment).
    const { webhook } = await register();
    append();
    await dispatcher({ policy: { allowHttp: false, allowPrivateAddresses: true } }).pollOnce();

    expect(receiver.requests).toBe(0);
    expect(await repository.findDelivery(webhook.id, 1)).toMatchObject({
      state: 'RETRYING',
      lastStatus: null,
      lastError: expect.stringContaining('https') as unknown,
    });
  });

  test('when two instances poll the same webhook at once, then each event is sent once (the lease)', async () => {
    await register();
    for (let i = 0; i < 5; i += 1) append();
    await Promise.all([dispatcher().pollOnce(), dispatcher().pollOnce(), dispatcher().pollOnce()]);

    expect(receiver.received.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  test('when an instance dies holding the lease, then another takes over once it expires and resends the unconfirmed event with the same id', async () => {
    const { webhook } = await register();
    append();
    // The dead instance: its lease is stored, its cursor never moved.
    await repository.acquireLease(webhook.id, 'dispatcher_dead', clock.now(), new Date(clock.now().getTime() + 30_000));
    const survivor = dispatcher();
    await survivor.pollOnce();
    expect(receiver.requests).toBe(0);

    clock.advance(30_000);
    await survivor.pollOnce();
    expect(receiver.received.map((r) => r.id)).toEqual([`msg_${webhook.id}_1`]);
  });

  test('when a job match names a candidate, then only a webhook whose key registered or received that candidate is sent it', async () => {
    const knows = await register(['JOB_MATCH'], 'key_knows');
    await database.db
      .collection(AUDIT_COLLECTION)
      .insertOne({ apiKeyId: 'key_knows', candidatePublicIds: ['p_known'], status: 200, time: clock.now() });
    append('JOB_MATCH', 'p_other');
    append('JOB_MATCH', 'p_known');
    await dispatcher().pollOnce();

    expect(receiver.received).toEqual([
      { id: `msg_${knows.webhook.id}_2`, type: 'job_match.created', seq: 2, publicId: 'p_known' },
    ]);
    expect((await repository.findById(knows.webhook.id))?.cursor).toBe(2);
  });

  test('when the key loses READ_CANDIDATE_DATA, then candidate changes are skipped (not held) while job matches of its candidates still arrive', async () => {
    const { webhook } = await register(['REGISTERED', 'ERASED', 'JOB_MATCH'], 'key_registrar');
    await database.db
      .collection(AUDIT_COLLECTION)
      .insertOne({ apiKeyId: 'key_registrar', candidatePublicIds: ['p_own'], status: 201, time: clock.now() });
    append('REGISTERED', 'p_own');
    const sender = dispatcher();
    await sender.pollOnce();
    permissions.set('key_registrar', ['REGISTER_CANDIDATES']);
    append('REGISTERED', 'p_other');
    append('JOB_MATCH', 'p_own');
    append('ERASED', 'p_own');
    await sender.pollOnce();
    permissions.delete('key_registrar');
    append('REGISTERED', 'p_later');
    await sender.pollOnce();

    expect(receiver.received.map((r) => [r.type, r.publicId])).toEqual([
      ['candidate.registered', 'p_own'],
      ['job_match.created', 'p_own'],
      ['candidate.registered', 'p_later'],
    ]);
    expect((await repository.findById(webhook.id))?.cursor).toBe(5);
  });

  test("when the webhook's key is revoked, then nothing more is sent to it and its cursor stays", async () => {
    const { webhook } = await register(['REGISTERED'], 'key_revoked');
    append();
    await dispatcher().pollOnce();

    expect(receiver.requests).toBe(0);
    expect((await repository.findById(webhook.id))?.cursor).toBe(0);
  });
});

describe('webhook scheduling', () => {
  test('when one endpoint holds each attempt unanswered with a backlog of 30, then another endpoint gets each new event while that attempt is still open', async () => {
    // Arrange: the slow endpoint asked for registrations, 30 of them waiting; the fast one for updates.
    // The slow endpoint answers only when the test says so, each answer 1.5 s later on the clock.
    const slow = await anotherReceiver();
    slow.mode = 'hold';
    await register(['REGISTERED'], 'key_slow', slow);
    await register(['UPDATED'], 'key_fast', receiver);
    for (let i = 0; i < 30; i += 1) append('REGISTERED');
    const sender = dispatcher({ timeoutMs: 10_000 });
    const polls: Promise<void>[] = [];
    let slowArrived = nextDelivery(slow, GUARD_MS);
    polls.push(sender.pollOnce());
    expect(await slowArrived).not.toBeNull();

    // Act: each update is written, and polled for, while the slow endpoint holds an attempt.
    const slowHoldingAtUpdate: number[] = [];
    const clockLatencies: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const written = append('UPDATED');
      const arrived = nextDelivery(receiver, GUARD_MS, () => {
        slowHoldingAtUpdate.push(slow.holding);
        clockLatencies.push(clock.now().getTime() - written.at.getTime());
      });
      polls.push(sender.pollOnce());
      expect(await arrived).not.toBeNull();
      slowArrived = nextDelivery(slow, GUARD_MS);
      clock.advance(1500);
      slow.release();
      expect(await slowArrived).not.toBeNull();
    }
    slow.mode = 'ok';
    slow.release();
    await Promise.all(polls);

    // Assert: no update waited for a slow answer (0 ms on the clock, against a goal of 2 s), and
    // the slow endpoint still got its whole backlog, in order.
    expect(receiver.received.map((r) => r.type)).toEqual([
      'candidate.updated',
      'candidate.updated',
      'candidate.updated',
    ]);
    expect(slowHoldingAtUpdate).toEqual([1, 1, 1]);
    expect(clockLatencies).toEqual([0, 0, 0]);
    expect(receiver.received.map((r) => r.seq)).toEqual([31, 32, 33]);
    expect(slow.received.map((r) => r.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  test('when the instance may deliver to one webhook at a time, then a backlogged webhook yields after its attempt in progress to a webhook waiting for its turn', async () => {
    // Arrange
    const slow = await anotherReceiver();
    slow.mode = 'hold';
    await register(['REGISTERED'], 'key_slow', slow);
    // registered later: in line behind the backlogged webhook
    clock.advance(1);
    await register(['UPDATED'], 'key_fast', receiver);
    for (let i = 0; i < 10; i += 1) append('REGISTERED');
    const sender = dispatcher({ timeoutMs: 10_000, concurrency: 1 });
    const slowArrived = nextDelivery(slow, GUARD_MS);
    const polled = sender.pollOnce();
    expect(await slowArrived).not.toBeNull();

    // Act: an update is written while the backlog's first attempt is open, which is answered 1.5 s later.
    let slowAtUpdate = -1;
    let clockLatency = -1;
    const written = append('UPDATED');
    const updateArrived = nextDelivery(receiver, GUARD_MS, () => {
      slowAtUpdate = slow.received.length;
      clockLatency = clock.now().getTime() - written.at.getTime();
    });
    clock.advance(1500);
    slow.release();
    expect(await updateArrived).not.toBeNull();
    slow.mode = 'ok';
    slow.release();
    await polled;

    // Assert: the update went out right after the attempt in progress (1.5 s on the clock, within
    // the goal of 2 s), not after the backlog (15 s).
    expect(slowAtUpdate).toBe(1);
    expect(clockLatency).toBe(1500);
    expect(receiver.received.map((r) => r.seq)).toEqual([11]);
    expect(slow.received.map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  test('when a bulk import wrote many events a webhook did not ask for, then the next event it asked for is sent in the same poll', async () => {
    // Arrange: 25 imports, read 10 at a time, ahead of one registration.
    const { webhook } = await register(['REGISTERED']);
    for (let i = 0; i < 25; i += 1) append('IMPORTED');
    append('REGISTERED');

    // Act
    await dispatcher({ batchSize: 10 }).pollOnce();

    // Assert
    expect(receiver.received.map((r) => r.seq)).toEqual([26]);
    expect((await repository.findById(webhook.id))?.cursor).toBe(26);
  });

  test('when an endpoint keeps failing, then another webhook of the same instance is delivered at once and the failing one is retried after its backoff', async () => {
    // Arrange
    const failing = await anotherReceiver();
    failing.mode = 'fail';
    const { webhook } = await register(['REGISTERED'], 'key_failing', failing);
    await register(['UPDATED'], 'key_fast', receiver);
    append('REGISTERED');
    append('UPDATED');
    const sender = dispatcher();

    // Act
    await sender.pollOnce();
    await sender.pollOnce();

    // Assert
    expect(receiver.received.map((r) => r.seq)).toEqual([2]);
    expect(failing.requests).toBe(1);
    expect(await repository.findDelivery(webhook.id, 1)).toMatchObject({ state: 'RETRYING', attempts: 1 });
  });
});
