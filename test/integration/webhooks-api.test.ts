import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';
import { WebhookReceiver } from '../support/webhook-receiver';
import { WebhookRepository } from '../../src/webhooks/webhook-repository';

/**
 * The ADMIN API of webhooks over GraphQL on the real service: who may use it, which endpoints
 * are refused by default (https only; no loopback, private or link-local address) and allowed by
 * the settings, and that the signing secret is shown once.
 */
const CREATE = /* GraphQL */ `
  mutation Create($input: CreateWebhookInput!) {
    createWebhook(input: $input) {
      secret
      webhook {
        id
        apiKeyId
        url
        eventTypes
        cursor
        lag
      }
    }
  }
`;
const LIST = /* GraphQL */ `
  query {
    webhooks {
      id
      apiKeyId
      url
      eventTypes
      createdDate
      cursor
      lag
    }
  }
`;

async function keyIdOf(app: AppUnderTest, ...permissions: string[]): Promise<string> {
  const doc = await app.db.collection<{ id: string; permissions: string[] }>('apiKeys').findOne({ permissions });
  return doc!.id;
}

describe('webhooks over GraphQL, with the default settings', () => {
  let app: AppUnderTest;
  let admin: string;
  let reader: string;
  let readerId: string;

  beforeAll(async () => {
    app = await startAppUnderTest();
    admin = await app.key('ADMIN');
    reader = await app.key('READ_CANDIDATE_DATA');
    readerId = await keyIdOf(app, 'READ_CANDIDATE_DATA');
  });
  afterAll(() => app?.stop());

  test('when a key without ADMIN registers a webhook, then it is FORBIDDEN', async () => {
    const { body } = await graphql(
      app.url,
      CREATE,
      { input: { apiKeyId: readerId, url: 'https://hooks.example.org/x', eventTypes: ['REGISTERED'] } },
      reader,
    );
    expect(body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await graphql(app.url, LIST, {}, reader)).body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  test.each([
    ['http://hooks.example.org/x', /https/],
    ['https://127.0.0.1/x', /non-public/],
    ['https://localhost/x', /non-public/],
    ['https://[::1]:8443/x', /non-public/],
    ['https://10.0.0.8/x', /non-public/],
    ['https://192.168.1.20/x', /non-public/],
    ['https://169.254.169.254/latest/meta-data/', /non-public/],
    ['https://[fe80::1]/x', /non-public/],
    ['https://[64:ff9b:1::7f00:1]/x', /non-public/],
    ['https://[::ffff:0:7f00:1]/x', /non-public/],
    ['https://[2001::7f00:1]/x', /non-public/],
  ])('when an ADMIN registers %s, then it is refused as BAD_USER_INPUT', async (url, reason) => {
    const { body } = await graphql(
      app.url,
      CREATE,
      { input: { apiKeyId: readerId, url, eventTypes: ['REGISTERED'] } },
      admin,
    );
    expect(body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0].message).toMatch(reason);
    expect(await app.db.collection('webhooks').countDocuments()).toBe(0);
  });

  test('when the key named does not exist, then the webhook is refused', async () => {
    const { body } = await graphql(
      app.url,
      CREATE,
      { input: { apiKeyId: 'key_nobodyatall', url: 'https://127.0.0.1/x', eventTypes: ['REGISTERED'] } },
      admin,
    );
    expect(body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('webhooks over GraphQL, with http and private addresses allowed', () => {
  let app: AppUnderTest;
  let admin: string;
  let readerId: string;

  beforeAll(async () => {
    app = await startAppUnderTest({ config: { webhookAllowHttp: true, webhookAllowPrivateAddresses: true } });
    admin = await app.key('ADMIN');
    await app.key('READ_CANDIDATE_DATA');
    readerId = await keyIdOf(app, 'READ_CANDIDATE_DATA');
  });
  afterAll(() => app?.stop());

  test('when an ADMIN registers a loopback http endpoint, then it gets the secret once, and no read returns it again', async () => {
    const created = await graphql<{ createWebhook: { secret: string; webhook: { id: string } } }>(
      app.url,
      CREATE,
      {
        input: {
          apiKeyId: readerId,
          url: 'http://127.0.0.1:9/hook',
          eventTypes: ['REGISTERED', 'ERASED', 'REGISTERED'],
        },
      },
      admin,
    );
    expect(created.body.errors).toBeUndefined();
    const { secret, webhook } = created.body.data!.createWebhook;
    recordSecret(secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook).toMatchObject({
      apiKeyId: readerId,
      url: 'http://127.0.0.1:9/hook',
      eventTypes: ['REGISTERED', 'ERASED'],
    });

    const listed = await graphql<{ webhooks: Record<string, unknown>[] }>(app.url, LIST, {}, admin);
    expect(listed.body.data?.webhooks).toEqual([expect.objectContaining({ id: webhook.id, cursor: 0, lag: 0 })]);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(6));

    const deliveries = await graphql(
      app.url,
      `
        query ($id: ID!) {
          webhookDeliveries(webhookId: $id) {
            seq
            state
            attempts
          }
        }
      `,
      { id: webhook.id },
      admin,
    );
    expect(deliveries.body).toEqual({ data: { webhookDeliveries: [] } });

    const removed = await graphql(
      app.url,
      `
        mutation ($id: ID!) {
          removeWebhook(id: $id) {
            id
          }
        }
      `,
      { id: webhook.id },
      admin,
    );
    expect(removed.body).toEqual({ data: { removeWebhook: { id: webhook.id } } });
    expect((await graphql(app.url, LIST, {}, admin)).body).toEqual({ data: { webhooks: [] } });
  });

  test('when the key may not read candidates, then a webhook for candidate changes is refused naming READ_CANDIDATE_DATA, and one for job matches only is accepted', async () => {
    await app.key('READ_STATISTICS');
    await app.key('REGISTER_CANDIDATES');
    const statisticsId = await keyIdOf(app, 'READ_STATISTICS');
    const registrarId = await keyIdOf(app, 'REGISTER_CANDIDATES');
    const create = (apiKeyId: string, eventTypes: string[]) =>
      graphql<{ createWebhook: { secret: string } }>(
        app.url,
        CREATE,
        { input: { apiKeyId, url: 'http://127.0.0.1:9/hook', eventTypes } },
        admin,
      );

    const refused = [await create(statisticsId, ['REGISTERED']), await create(registrarId, ['JOB_MATCH', 'ERASED'])];
    const accepted = await create(registrarId, ['JOB_MATCH', 'OFFER']);

    for (const { body } of refused) {
      expect(body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(body.errors?.[0].message).toMatch(/READ_CANDIDATE_DATA/);
    }
    expect(refused[1].body.errors?.[0].message).toContain('ERASED');
    expect(accepted.body.errors).toBeUndefined();
    recordSecret(accepted.body.data!.createWebhook.secret);
    expect(await app.db.collection('webhooks').countDocuments({ apiKeyId: statisticsId })).toBe(0);
  });

  test('when the service has started, then the store holds its endpoint rules for the webhooks command', async () => {
    const recorded = await new WebhookRepository(app.db).recordedEndpointPolicy();

    expect(recorded?.policy).toEqual({ allowHttp: true, allowPrivateAddresses: true });
  });

  test('when a dead letter that does not exist is replayed, then it is NOT_FOUND', async () => {
    const { body } = await graphql(
      app.url,
      `
        mutation {
          replayWebhookDelivery(webhookId: "wh_none", seq: 1) {
            seq
          }
        }
      `,
      {},
      admin,
    );
    expect(body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });
});

describe('webhooks of the running service', () => {
  let app: AppUnderTest;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    app = await startAppUnderTest({
      config: { webhookAllowHttp: true, webhookAllowPrivateAddresses: true, webhookPollMs: 50 },
    });
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
  });

  test("when a job match names a candidate the partner's key registered, then the partner's webhook is sent the registration and the job match, signed", async () => {
    const admin = await app.key('ADMIN');
    const partner = await app.key('REGISTER_CANDIDATES', 'READ_CANDIDATE_DATA');
    const matcher = await app.key('SUBMIT_JOB_MATCHES');
    const partnerId = await keyIdOf(app, 'REGISTER_CANDIDATES', 'READ_CANDIDATE_DATA');
    const created = await graphql<{ createWebhook: { secret: string; webhook: { id: string } } }>(
      app.url,
      CREATE,
      { input: { apiKeyId: partnerId, url: receiver.url, eventTypes: ['REGISTERED', 'JOB_MATCH'] } },
      admin,
    );
    const { secret, webhook } = created.body.data!.createWebhook;
    recordSecret(secret);
    receiver.setSecret(secret);

    const email = 'webhook-partner@example.org';
    recordSecret(email);
    const registered = await rest(app.url, 'POST', '/v1/candidates/register', {
      key: partner,
      body: { registrarId: 'hooks', registrationData: { identity: { email, lastName: 'Hook' }, city: 'Amman' } },
    });
    expect(registered.status).toBe(201);
    const publicId = registered.body.publicId as string;
    const matched = await rest(app.url, 'POST', '/v1/candidates/job-match', {
      key: matcher,
      body: { candidates: [{ publicId }] },
    });
    expect(matched.status).toBe(201);

    const deadline = Date.now() + 10_000;
    while (receiver.received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(receiver.badSignatures).toBe(0);
    expect(receiver.received).toEqual([
      expect.objectContaining({ type: 'candidate.registered', publicId }),
      expect.objectContaining({ type: 'job_match.created', publicId }),
    ]);
    for (const r of receiver.received) expect(r.id).toBe(`msg_${webhook.id}_${r.seq}`);
  });
});
