import { randomBytes } from 'node:crypto';
import { startStoreUnderTest } from 'embedded-mongodb/test-support';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { connectDatabase, type Database } from '../../src/store/mongo';
import { parseWebhooksArgs, runWebhooksCli } from '../../src/cli/webhooks';
import { WebhookRepository } from '../../src/webhooks/webhook-repository';
import { recordSecret } from '../support/log-capture';

/** `npm run webhooks -- …` against the store under test (through MONGODB_URI), run in-process. */
let store: Awaited<ReturnType<typeof startStoreUnderTest>>;
let database: Database;
let env: Record<string, string>;
let keyId: string;

async function run(...argv: string[]) {
  return runWith(env, ...argv);
}

async function runWith(commandEnv: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runWebhooksCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, commandEnv);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  store = await startStoreUnderTest();
  const dbName = `webhooks_cli_${randomBytes(6).toString('hex')}`;
  database = await connectDatabase(store.uri, dbName);
  const { key, record } = await new ApiKeyService(createApiKeyRepository(database.db)).createKey({
    name: 'partner',
    permissions: ['READ_CANDIDATE_DATA'],
  });
  recordSecret(key);
  keyId = record.id;
  env = { MONGODB_URI: store.uri, MONGODB_DB: dbName, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'false' };
});

afterEach(async () => {
  await database.db.collection('webhooks').deleteMany({});
  await database.db.collection('webhookSettings').deleteMany({});
});

afterAll(async () => {
  await database?.db.dropDatabase().catch(() => undefined);
  await database?.close();
  await store?.stop();
});

describe('npm run webhooks', () => {
  test('when add is given a public https endpoint, then the secret alone is printed once, list shows the webhook without it, and remove removes it', async () => {
    // An IP literal: registration resolves nothing, and nothing is sent by registering.
    const added = await run(
      'add',
      '--key',
      keyId,
      '--url',
      'https://93.184.215.14/hook',
      '--events',
      'REGISTERED,ERASED',
    );
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    recordSecret(added.out);
    const id = /webhook (wh_[\w-]+)/.exec(added.err)![1];

    const listed = await run('list');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(id);
    expect(listed.out).toContain('REGISTERED,ERASED');
    expect(listed.out).not.toContain(added.out.slice(6));

    expect((await run('remove', id)).code).toBe(0);
    expect((await run('list')).out).toBe('No webhooks.');
  });

  test('when add names a loopback endpoint, then it is refused with exit code 2 and nothing is stored', async () => {
    const refused = await run('add', '--key', keyId, '--url', 'https://127.0.0.1/hook', '--events', 'REGISTERED');
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/non-public/);
    expect(await database.db.collection('webhooks').countDocuments()).toBe(0);
  });

  test('when no service has started on the store and this command does not allow http, then an http endpoint is refused naming WEBHOOK_ALLOW_HTTP and whose rules applied', async () => {
    const refused = await run('add', '--key', keyId, '--url', 'http://127.0.0.1:8081/hook', '--events', 'REGISTERED');

    expect(refused.code).toBe(2);
    expect(refused.err).toContain('WEBHOOK_ALLOW_HTTP=true');
    expect(refused.err).toMatch(/no service has started on this store/i);
    expect(await database.db.collection('webhooks').countDocuments()).toBe(0);
  });

  test("when the service on the store allows http and private addresses, then a local http endpoint is registered whatever this command's environment says", async () => {
    await new WebhookRepository(database.db).recordEndpointPolicy(
      { allowHttp: true, allowPrivateAddresses: true },
      new Date('2030-05-06T12:00:00.000Z'),
    );

    const added = await run('add', '--key', keyId, '--url', 'http://127.0.0.1:8081/hook', '--events', 'REGISTERED');

    expect(added.code).toBe(0);
    recordSecret(added.out);
    expect(await database.db.collection('webhooks').countDocuments({ url: 'http://127.0.0.1:8081/hook' })).toBe(1);
  });

  test("when this command's environment allows http but the service on the store does not, then the endpoint is refused by the service's rules, named", async () => {
    await new WebhookRepository(database.db).recordEndpointPolicy(
      { allowHttp: false, allowPrivateAddresses: false },
      new Date('2030-05-06T12:00:00.000Z'),
    );

    const refused = await runWith(
      { ...env, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' },
      'add',
      '--key',
      keyId,
      '--url',
      'http://127.0.0.1:8081/hook',
      '--events',
      'REGISTERED',
    );

    expect(refused.code).toBe(2);
    expect(refused.err).toContain('WEBHOOK_ALLOW_HTTP=true');
    expect(refused.err).toContain("the service's");
    expect(refused.err).toContain('2030-05-06T12:00:00.000Z');
    expect(await database.db.collection('webhooks').countDocuments()).toBe(0);
  });

  test.each([
    [[], /a command is required/],
    [['add', '--url', 'https://x.example/'], /--key is required/],
    [['add', '--key', 'key_x', '--url', 'https://x.example/'], /--events/],
    [['remove'], /exactly one webhook id/],
    [['frobnicate'], /unknown command/],
  ])('when the arguments are %j, then the usage error names the problem', (argv, message) => {
    expect(() => parseWebhooksArgs(argv)).toThrow(message);
  });
});
