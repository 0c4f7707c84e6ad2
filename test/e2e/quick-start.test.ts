import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { portAcceptsConnections, startServiceProcess, type ServiceProcess } from '../support/service-process';

/** `npm start` on its own data directory, with a small demo store. */
function startService(dataDir: string): Promise<ServiceProcess> {
  return startServiceProcess({ DATA_DIR: dataDir, DEMO_CANDIDATES: '60', LOG_LEVEL: 'info' }, 60_000);
}

function stop(service: ServiceProcess): Promise<number | null> {
  service.child.kill('SIGTERM');
  return service.exited;
}

async function countCandidates(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: '{ candidates(includeEmployed: true) { totalElements } }' }),
  });
  const body = (await response.json()) as { data: { candidates: { totalElements: number } } };
  return body.data.candidates.totalElements;
}

describe('quick start: the service on its embedded store', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-quick-start-'));

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('when started on an empty data directory, then it serves health, demo data and a demo key, and keeps them across a restart', async () => {
    const first = await startService(dataDir);
    const { key, storePort } = first;

    const health = await fetch(`${first.url}/healthz`);
    expect(health.status).toBe(200);
    expect(key).toBeDefined();
    expect(await countCandidates(first.url, key!)).toBe(60);
    expect(first.output()).not.toMatch(new RegExp(`"msg":"[^"]*${key}`));

    expect(await stop(first)).toBe(0);
    expect(await portAcceptsConnections(storePort)).toBe(false);

    const second = await startService(dataDir);
    try {
      expect(second.output()).not.toContain('shown only now');
      expect(await countCandidates(second.url, key!)).toBe(60);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, 180_000);
});
