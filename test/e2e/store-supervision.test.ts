import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { logRecords, startServiceProcess, type ServiceProcess } from '../support/service-process';

/**
 * The service's embedded store child is killed without warning (SIGKILL) under `npm start`:
 * the service restarts it and serves again, and exits non-zero when it keeps dying.
 * Waiting is by polling (each poll bounded by the test's timeout), never a fixed sleep.
 */

const KEY = `cdk_${randomBytes(32).toString('base64url')}`;

async function until<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The pids of the stores the service logged as started or restarted, in order. */
function storePids(service: ServiceProcess): number[] {
  return logRecords(service.output())
    .filter((r) => typeof r.msg === 'string' && /^embedded MongoDB-compatible store (started|restarted)$/.test(r.msg))
    .map((r) => r.pid as number);
}

async function candidatesStatus(url: string): Promise<number> {
  try {
    return (await fetch(`${url}/v1/candidates?limit=1`, { headers: { 'x-api-key': KEY } })).status;
  } catch {
    return 0;
  }
}

describe('a store child that dies under the service', () => {
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-supervision-'))));
  afterEach(async () => {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    service = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('when the store child is killed with SIGKILL, then the service restarts it, logs it, counts it, and answers again', async () => {
    service = await startServiceProcess({
      DATA_DIR: dataDir,
      DEMO_CANDIDATES: '5',
      DEMO_API_KEY: KEY,
      LOG_LEVEL: 'info',
      STORE_RESTART_BACKOFF_MS: '100',
    });
    expect(await candidatesStatus(service.url)).toBe(200);
    const [first] = storePids(service);

    // Act
    process.kill(first, 'SIGKILL');

    // Assert: a new store child, and requests succeed again (polled).
    const second = await until(() => storePids(service!)[1]);
    expect(second).not.toBe(first);
    await until(async () => ((await candidatesStatus(service!.url)) === 200 ? true : undefined));
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/^embedded_store_restarts_total 1$/m);
    const logged = logRecords(service.output()).filter(
      (r) => r.msg === 'embedded store exited unexpectedly; restarting it',
    );
    expect(logged).toEqual([expect.objectContaining({ signal: 'SIGKILL', level: 50 })]);
  }, 120_000);

  test('when the store keeps dying, then the service exits with a non-zero code', async () => {
    service = await startServiceProcess({
      DATA_DIR: dataDir,
      DEMO_CANDIDATES: '5',
      DEMO_API_KEY: KEY,
      LOG_LEVEL: 'info',
      STORE_RESTART_BACKOFF_MS: '100',
      STORE_MAX_RESTARTS: '1',
    });

    // Act: the store dies, comes back once, and dies again.
    process.kill(storePids(service)[0], 'SIGKILL');
    const second = await until(() => storePids(service!)[1]);
    process.kill(second, 'SIGKILL');

    // Assert
    expect(await service.exited).not.toBe(0);
    expect(logRecords(service.output()).some((r) => r.msg === 'embedded store keeps dying; exiting')).toBe(true);
  }, 120_000);
});
