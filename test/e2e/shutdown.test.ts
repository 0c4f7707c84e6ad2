import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  portAcceptsConnections,
  socketAcceptsConnections,
  startServiceProcess,
  type ServiceProcess,
} from '../support/service-process';

/**
 * Graceful shutdown of `npm start` (from sources): on SIGTERM the service stops accepting
 * connections, lets the requests in flight finish within SHUTDOWN_GRACE_MS, cuts the ones still
 * open after it, closes everything and exits 0.
 *
 * A request is held in flight without any test hook: its body is sent in two parts, the
 * second only after the signal. `Expect: 100-continue` makes the server confirm it has read
 * the request head (and so counts the request as in flight) before the signal is sent.
 */

const DEMO_CANDIDATES = 20;
const SHUTDOWN_GRACE_MS = 4_000;
/** Bounds of a failure path, generous for a loaded machine: not a speed benchmark. */
const REFUSAL_BOUND_MS = 5_000;
const EXIT_BOUND_MS = SHUTDOWN_GRACE_MS + 15_000;

async function startService(dataDir: string): Promise<ServiceProcess & { key: string }> {
  const service = await startServiceProcess({
    DATA_DIR: dataDir,
    DEMO_CANDIDATES: String(DEMO_CANDIDATES),
    SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
    LOG_LEVEL: 'info',
  });
  if (service.key === undefined) throw new Error(`no demo key in the banner:\n${service.output()}`);
  return { ...service, key: service.key };
}

interface HeldRequest {
  /** sends the rest of the body */
  finish(): void;
  /** the answer, or the error the connection ended with */
  outcome: Promise<{ status: number; body: string } | { error: string }>;
}

/**
 * A GraphQL POST whose head the server has confirmed (100 Continue) and whose body has been
 * sent up to its middle. Resolves once the server has confirmed.
 */
function holdRequest(url: string, key: string, query: string): Promise<HeldRequest> {
  const body = Buffer.from(JSON.stringify({ query }));
  const half = Math.floor(body.length / 2);
  return new Promise((resolveHeld, rejectHeld) => {
    const request = http.request(`${url}/graphql`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': String(body.length),
        'x-api-key': key,
        expect: '100-continue',
      },
    });
    const outcome = new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
      request.once('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.once('error', (error) => resolve({ error: error.message }));
      });
      request.once('error', (error) => resolve({ error: error.message }));
    });
    request.once('error', rejectHeld);
    request.once('continue', () => {
      request.off('error', rejectHeld);
      request.write(body.subarray(0, half), () =>
        resolveHeld({ finish: () => request.end(body.subarray(half)), outcome }),
      );
    });
    request.flushHeaders();
  });
}

describe('graceful shutdown of the service', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-shutdown-'));

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('when SIGTERM arrives with requests in flight, then new connections are refused, a request finished within the grace period is answered 200, one still open after it is cut, and the process exits 0', async () => {
    // Arrange: two requests in flight, each with half a body sent.
    const service = await startService(dataDir);
    const port = Number(new URL(service.url).port);
    try {
      const finishing = await holdRequest(
        service.url,
        service.key,
        '{ candidates(includeEmployed: true) { totalElements } }',
      );
      const abandoned = await holdRequest(service.url, service.key, '{ countries { isoCode } }');

      // Act
      const signalled = performance.now();
      service.child.kill('SIGTERM');

      // Assert: no new connection is accepted (polled: the signal is handled asynchronously) ...
      let refused = false;
      while (!refused && performance.now() - signalled < REFUSAL_BOUND_MS) {
        refused = !(await portAcceptsConnections(port));
        if (!refused) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(refused).toBe(true);
      // ... the request finished within the grace period gets its whole answer ...
      finishing.finish();
      const finished = await finishing.outcome;
      expect(finished).toEqual({ status: 200, body: expect.any(String) });
      expect(JSON.parse((finished as { body: string }).body)).toEqual({
        data: { candidates: { totalElements: DEMO_CANDIDATES } },
      });
      // ... the one never finished is cut once the grace period is over, and the process exits 0.
      expect(await abandoned.outcome).toEqual({ error: expect.any(String) });
      expect(await service.exited).toBe(0);
      expect(performance.now() - signalled).toBeLessThan(EXIT_BOUND_MS);
      expect(await socketAcceptsConnections(service.storeSocket)).toBe(false);
    } finally {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    }
  }, 180_000);
});
