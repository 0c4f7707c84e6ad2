import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedStore } from 'embedded-mongodb';
import { startServiceProcess } from '../support/service-process';

/**
 * What the service holds back between flushes (the queued audit events, the buffered rate-limit
 * units) is written when it is stopped: `npm start` (from sources) on an embedded store, with
 * flush intervals far longer than the test, so that every event and unit is still held back
 * when SIGTERM arrives; then the data directory is opened again and read.
 */

const DEMO_CANDIDATES = 20;
/** Intervals no flush timer reaches while the test runs: only the stop can write. */
const AUDIT_FLUSH_MS = 10_000;
const RATE_LIMIT_FLUSH_MS = 60_000;
const REST_REQUESTS = 30;
const GRAPHQL_REQUESTS = 5;

describe('bookkeeping at shutdown', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-bookkeeping-'));

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('when SIGTERM arrives while audit events and rate-limit units are held back, then every answered request has its event in the store and every unit is counted', async () => {
    // Arrange
    const service = await startServiceProcess({
      DATA_DIR: dataDir,
      DEMO_CANDIDATES: String(DEMO_CANDIDATES),
      AUDIT_FLUSH_MS: String(AUDIT_FLUSH_MS),
      RATE_LIMIT_FLUSH_MS: String(RATE_LIMIT_FLUSH_MS),
      LOG_LEVEL: 'info',
    });
    const key = service.key;
    if (key === undefined) throw new Error(`no demo key in the banner:\n${service.output()}`);
    let answered: { requestId: string; status: number }[];
    try {
      const page = (await (
        await fetch(`${service.url}/v1/candidates?limit=${DEMO_CANDIDATES}&includeEmployed=true`, {
          headers: { 'x-api-key': key },
        })
      ).json()) as {
        content: { publicId: string }[];
      };
      const ids = page.content.map((candidate) => candidate.publicId);
      const restRequests = Array.from({ length: REST_REQUESTS }, async (_, i) => {
        const requestId = `sigterm-rest-${i}`;
        const response = await fetch(`${service.url}/v1/candidates/${ids[i % ids.length]}`, {
          headers: { 'x-api-key': key, 'x-request-id': requestId },
        });
        await response.arrayBuffer();
        return { requestId, status: response.status };
      });
      const graphqlRequests = Array.from({ length: GRAPHQL_REQUESTS }, async (_, i) => {
        const requestId = `sigterm-graphql-${i}`;
        const response = await fetch(`${service.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-request-id': requestId },
          body: JSON.stringify({ query: '{ countries { isoCode } }' }),
        });
        await response.arrayBuffer();
        return { requestId, status: response.status };
      });
      answered = await Promise.all([...restRequests, ...graphqlRequests]);

      // Act
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    }

    // Assert
    expect(answered.map((answer) => answer.status)).toEqual(Array(REST_REQUESTS + GRAPHQL_REQUESTS).fill(200));
    const store = await startEmbeddedStore({ dbPath: dataDir, port: 0 });
    const client = new MongoClient(store.uri);
    try {
      const db = client.db('candidate_directory');
      const events = await db
        .collection('auditEvents')
        .find({ requestId: { $in: answered.map((answer) => answer.requestId) } })
        .toArray();
      expect(events.map((event) => [event.requestId, event.status]).sort()).toEqual(
        answered.map((answer) => [answer.requestId, 200]).sort(),
      );
      // One read per request, two for the page of 20 ids; all in one minute unless the test straddled two.
      const counters = await db
        .collection('rateLimits')
        .find({ apiKeyId: events[0].apiKeyId, kind: 'reads' })
        .toArray();
      expect(counters.reduce((sum, counter) => sum + (counter.count as number), 0)).toBe(
        Math.ceil(DEMO_CANDIDATES / 10) + REST_REQUESTS + GRAPHQL_REQUESTS,
      );
    } finally {
      await client.close();
      await store.close();
    }
  }, 180_000);
});
