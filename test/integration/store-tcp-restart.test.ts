import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedStore, type EmbeddedStore } from 'embedded-mongodb';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { testDatabaseName } from '../support/builders';
import { appLogDestination, recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * A store reached over TCP (MONGODB_URI) that stops and starts again on the same port, as a
 * MongoDB restarted by its operator or replaced in a failover would: the service notices it is
 * back and serves again, within seconds, with nobody restarting the service. Three times over,
 * under a load of reads and writes (the bookkeeping's bulk writes among them).
 */

const RECOVERY_LIMIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a store on TCP stopped and started again on the same port', () => {
  let dataDir: string;
  let store: EmbeddedStore | undefined;
  let app: CandidateDirectory;
  let url: string;
  let key: string;
  let port: number;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-tcp-restart-'));
    store = await startEmbeddedStore({ dbPath: dataDir, port: 0 });
    port = store.port;
    const mongodbDb = testDatabaseName('tcprestart');
    const logs = appLogDestination(mongodbDb);
    const config = loadConfig(
      {},
      {
        port: 0,
        mongodbUri: `mongodb://127.0.0.1:${port}/?directConnection=true`,
        mongodbDb,
        logLevel: logs.level,
        mongodbTimeoutMs: 1000,
        auditFlushMs: 20,
        rateLimitFlushMs: 200,
      },
    );
    app = await createApp(config, createLogger(config, logs.destination));
    url = await app.start();
    ({ key } = await new ApiKeyService(createApiKeyRepository(app.database.db)).createKey({
      name: 'tcp restart',
      permissions: ['READ_CANDIDATE_DATA', 'REGISTER_CANDIDATES'],
    }));
    recordSecret(key);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    await store?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('when the store goes away and comes back three times under load, then each time the service serves again within 10 s and never answers 500', async () => {
    const statuses: number[] = [];
    const load = { on: true };
    const client = async (writer: boolean) => {
      while (load.on) {
        if (writer) {
          const email = `tcp-${randomBytes(4).toString('hex')}@example.org`;
          recordSecret(email);
          const body = { registrationData: { identity: { email }, country: { isoCode: 'JO' } } };
          statuses.push((await rest(url, 'POST', '/v1/candidates/register', { key, body })).status);
        } else {
          statuses.push((await rest(url, 'GET', '/v1/candidates?limit=5', { key })).status);
        }
        await sleep(20);
      }
    };
    const clients = [true, false, false].map((writer) => client(writer));
    const recoveries: number[] = [];
    try {
      for (let round = 0; round < 3; round++) {
        await sleep(800);
        await store!.close();
        store = undefined;
        await sleep(1_000);
        store = await startEmbeddedStore({ dbPath: dataDir, port });
        const back = Date.now();
        let served = false;
        while (!served && Date.now() - back < RECOVERY_LIMIT_MS + 5_000) {
          const ready = (await fetch(`${url}/readyz`)).status === 200;
          served = ready && (await rest(url, 'GET', '/v1/candidates?limit=1', { key })).status === 200;
          if (!served) await sleep(100);
        }
        recoveries.push(served ? Date.now() - back : Number.POSITIVE_INFINITY);
      }
      // Once back, every request is served: no connection of the old store is used again.
      const after: number[] = [];
      for (let i = 0; i < 20; i++) after.push((await rest(url, 'GET', '/v1/candidates?limit=1', { key })).status);
      expect(after.filter((status) => status !== 200)).toEqual([]);
    } finally {
      load.on = false;
      await Promise.all(clients);
    }
    await app.flushBookkeeping();

    expect(recoveries.filter((ms) => ms > RECOVERY_LIMIT_MS)).toEqual([]);
    expect(statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);
  }, 120_000);
});
