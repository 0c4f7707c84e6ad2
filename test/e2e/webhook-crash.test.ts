import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { spawnEmbeddedStore, type EmbeddedStoreProcess } from 'embedded-mongodb';
import { makeTempDir } from 'embedded-mongodb/test-support';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { graphql } from '../support/app-under-test';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * At least once, end to end: the service (`npm start` from sources, a child process) delivers
 * registrations to a receiver on 127.0.0.1 that verifies every signature with the
 * `standardwebhooks` library, while the receiver answers 500, is down, answers too slowly, and
 * while the service is killed with SIGKILL in the middle of a delivery and started again. Every
 * registration arrives, and every duplicate carries the id of the first delivery of its event.
 */
const DB = 'webhook_crash_test';
const LEASE_MS = 1500;
/** the same across restarts: secrets are stored sealed with it */
const SECRET_KEY = randomBytes(32).toString('base64');

describe('webhook deliveries across failures and kill -9 of the service', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStoreProcess;
  let service: ServiceProcess | undefined;
  let receiver: WebhookReceiver;
  let admin: string;
  let registrar: string;
  const registered: string[] = [];

  const startService = () =>
    startServiceProcess({
      MONGODB_URI: store.uri,
      MONGODB_DB: DB,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_BACKOFF_BASE_MS: '50',
      WEBHOOK_BACKOFF_MAX_MS: '200',
      WEBHOOK_TIMEOUT_MS: '500',
      WEBHOOK_LEASE_MS: String(LEASE_MS),
      WEBHOOK_MAX_ATTEMPTS: '100',
      WEBHOOK_SECRET_KEY: SECRET_KEY,
    });

  async function register(): Promise<string> {
    const email = `webhook-crash-${registered.length}@example.org`;
    recordSecret(email);
    const answer = await rest(service!.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      body: { registrarId: 'webhook-test', registrationData: { identity: { email, lastName: 'Hook' }, city: 'Amman' } },
    });
    expect(answer.status).toBe(201);
    registered.push(answer.body.publicId as string);
    return answer.body.publicId as string;
  }

  const arrived = () => new Set(receiver.received.map((r) => r.publicId));

  async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  beforeAll(async () => {
    temp = makeTempDir('webhook-crash');
    store = await spawnEmbeddedStore({ dbPath: temp.dir });
    const client = await MongoClient.connect(store.uri);
    try {
      const keys = new ApiKeyService(createApiKeyRepository(client.db(DB)));
      ({ key: admin } = await keys.createKey({ name: 'admin', permissions: ['ADMIN'] }));
      ({ key: registrar } = await keys.createKey({
        name: 'registrar',
        permissions: ['REGISTER_CANDIDATES', 'READ_CANDIDATE_DATA'],
      }));
    } finally {
      await client.close();
    }
    recordSecret(admin, registrar);
    receiver = new WebhookReceiver();
    await receiver.start();
    service = await startService();
  }, 120_000);

  afterAll(async () => {
    service?.child.kill('SIGKILL');
    await service?.exited;
    await receiver?.stop();
    await store?.kill('SIGKILL');
    temp?.remove();
  });

  test('when the receiver fails, is down, is slow, and the service is killed mid-delivery, then every event arrives and duplicates carry the same id', async () => {
    const created = await graphql<{ createWebhook: { secret: string; webhook: { id: string } } }>(
      service!.url,
      `
        mutation ($input: CreateWebhookInput!) {
          createWebhook(input: $input) {
            secret
            webhook {
              id
            }
          }
        }
      `,
      { input: { apiKeyId: await keyIdOfRegistrar(), url: receiver.url, eventTypes: ['REGISTERED'] } },
      admin,
    );
    expect(created.body.errors).toBeUndefined();
    const { secret, webhook } = created.body.data!.createWebhook;
    recordSecret(secret);
    receiver.setSecret(secret);

    // Answered 2xx.
    for (let i = 0; i < 3; i += 1) await register();
    await until(() => arrived().size === 3, 'the first three arrived');

    // Answering 500: retried until it answers 2xx.
    receiver.mode = 'fail';
    const before = receiver.requests;
    await register();
    await until(() => receiver.requests >= before + 3, 'three failed attempts');
    receiver.mode = 'ok';
    await until(() => arrived().size === 4, 'the fourth arrived after the 500s');

    // Down.
    await receiver.stop();
    await register();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await receiver.start();
    await until(() => arrived().size === 5, 'the fifth arrived once the receiver was back');

    // Too slow: the attempt times out and the retry is a duplicate with the same id.
    receiver.mode = 'slow';
    receiver.slowMs = 1000;
    const slow = await register();
    await until(() => receiver.received.some((r) => r.publicId === slow), 'the slow delivery was received');
    receiver.mode = 'ok';
    await until(
      () => receiver.received.filter((r) => r.publicId === slow).length >= 2,
      'the slow delivery was sent again',
    );

    // kill -9 of the service while the receiver holds a delivery.
    receiver.mode = 'slow';
    receiver.slowMs = 5000;
    receiver.onDelivery = () => {
      receiver.onDelivery = undefined;
      service!.child.kill('SIGKILL');
    };
    const inFlight = await register();
    await service!.exited;
    receiver.mode = 'ok';
    service = await startService();
    await register();
    await until(() => arrived().size === registered.length, 'every registration arrived after the restart', 30_000);

    expect(receiver.badSignatures).toBe(0);
    expect([...arrived()].sort()).toEqual([...registered].sort());
    expect(receiver.received.filter((r) => r.publicId === inFlight).length).toBeGreaterThanOrEqual(2);
    // One id per event, the same on every duplicate; different events, different ids.
    const idsByEvent = new Map<string, Set<string>>();
    for (const r of receiver.received) idsByEvent.set(r.publicId, (idsByEvent.get(r.publicId) ?? new Set()).add(r.id));
    for (const [, ids] of idsByEvent) expect(ids.size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(registered.length);
    for (const r of receiver.received) expect(r.id).toBe(`msg_${webhook.id}_${r.seq}`);
  }, 120_000);

  async function keyIdOfRegistrar(): Promise<string> {
    const client = await MongoClient.connect(store.uri);
    try {
      const doc = await client
        .db(DB)
        .collection<{ id: string; name: string }>('apiKeys')
        .findOne({ name: 'registrar' });
      return doc!.id;
    } finally {
      await client.close();
    }
  }
});
