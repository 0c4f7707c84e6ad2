import http from 'node:http';
import net from 'node:net';
import { PLAYGROUND_CONTENT_SECURITY_POLICY } from '../../src/graphql/playground';
import { API_CONTENT_SECURITY_POLICY, CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../../src/http/security';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { rest } from '../support/rest-client';

/**
 * The HTTP edge's protections on the real service: security headers (and the playground's own
 * policy), CORS for configured origins only, the body limit, and the timeouts of slow requests.
 */

const PROBLEMS = 'https://candidate-directory.example/problems/';
const PARTNER = 'https://partner.example';
const STRANGER = 'https://stranger.example';
/** REQUEST_TIMEOUT_MS of the configured service: short, so that the timeout tests wait little. */
const SHORT_TIMEOUT_MS = 1_000;
/** Upper bound of a timeout answer: the timeout itself plus Node's checking interval, with room for a loaded machine. */
const TIMEOUT_ANSWER_BOUND_MS = 5 * SHORT_TIMEOUT_MS;

const headerList = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');

/** Sends the headers and the start of a body whose end never comes, and resolves with the answer. */
function requestWithUnfinishedBody(
  url: string,
  path: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '1000' },
    });
    request.once('error', reject);
    request.once('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.once('end', () => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, ms: performance.now() - started });
        request.destroy();
      });
    });
    request.write('{"query":"{ __typename');
  });
}

/** Opens a connection, sends part of a request head, and resolves with whatever arrives until the server closes. */
function unfinishedHeaders(url: string): Promise<{ received: string; ms: number }> {
  const { port, hostname } = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve({ received, ms: performance.now() - started }));
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
  });
}

describe('HTTP hygiene', () => {
  let plain: AppUnderTest;
  let configured: AppUnderTest;
  let key: string;

  beforeAll(async () => {
    plain = await startAppUnderTest();
    configured = await startAppUnderTest({ config: { corsOrigins: [PARTNER], requestTimeoutMs: SHORT_TIMEOUT_MS } });
    key = await plain.key('READ_CANDIDATE_DATA');
  });

  afterAll(async () => {
    await plain?.stop();
    await configured?.stop();
  });

  describe('security headers', () => {
    test.each([
      ['GET', '/healthz'],
      ['GET', '/openapi.json'],
      ['GET', '/v1/candidates'],
      ['GET', '/no/such/path'],
      ['POST', '/graphql'],
    ])("when %s %s is answered, then it carries helmet's headers and the strict API policy", async (method, path) => {
      const response = await fetch(`${plain.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? JSON.stringify({ query: '{ __typename }' }) : undefined,
      });

      expect(response.headers.get('content-security-policy')).toBe(API_CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
      expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      expect(response.headers.get('x-powered-by')).toBeNull();
    });

    test('when a browser asks for the playground, then the page keeps its own policy, and only that one', async () => {
      const response = await fetch(`${plain.url}/graphql`, { headers: { accept: 'text/html' } });
      await response.arrayBuffer();

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      // Two policies would arrive joined by a comma, and the browser would enforce both.
      expect(response.headers.get('content-security-policy')).toBe(PLAYGROUND_CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    });
  });

  describe('errors of /graphql outside GraphQL execution', () => {
    test.each([
      ['GET', '/graphql/extra'],
      ['POST', '/graphql/extra'],
      ['POST', '/graphql/assets'],
      ['POST', '/graphql/assets/graphiql.js'],
    ])(
      'when %s %s is asked (a path /graphql does not serve), then the answer is a 404 problem+json',
      async (method, path) => {
        const response = await fetch(`${plain.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: method === 'POST' ? JSON.stringify({ query: '{ __typename }' }) : undefined,
        });
        const body = (await response.json()) as Record<string, unknown>;

        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(body).toEqual(expect.objectContaining({ type: `${PROBLEMS}not-found`, status: 404 }));
      },
    );

    test.each(['PUT', 'DELETE', 'PATCH'])(
      'when %s /graphql is asked, then the answer is a 405 problem+json whose Allow header lists GET and POST',
      async (method) => {
        const response = await fetch(`${plain.url}/graphql`, {
          method,
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
        const body = (await response.json()) as Record<string, unknown>;

        expect(response.status).toBe(405);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(headerList(response.headers.get('allow'))).toEqual(['get', 'post']);
        expect(body).toEqual(expect.objectContaining({ type: `${PROBLEMS}method-not-allowed`, status: 405 }));
      },
    );

    test('when HEAD /graphql is asked by a GraphQL client (not a browser), then the answer is a 405 problem+json with Allow', async () => {
      const response = await fetch(`${plain.url}/graphql`, { method: 'HEAD', headers: { 'x-api-key': key } });

      expect(response.status).toBe(405);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(headerList(response.headers.get('allow'))).toEqual(['get', 'post']);
    });
  });

  describe('CORS', () => {
    const preflight = (url: string, origin: string) =>
      fetch(`${url}/v1/candidates`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-api-key,idempotency-key',
        },
      });

    test("when an allowed origin sends a preflight, then it may send the API's request headers with GET and POST", async () => {
      const response = await preflight(configured.url, PARTNER);

      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(PARTNER);
      expect(headerList(response.headers.get('access-control-allow-headers')).sort()).toEqual(
        CORS_ALLOWED_HEADERS.map((h) => h.toLowerCase()).sort(),
      );
      expect(headerList(response.headers.get('access-control-allow-methods'))).toEqual(
        expect.arrayContaining(['get', 'post']),
      );
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    });

    test('when an allowed origin calls the API, then it may read the rate-limit, retry and request-id headers', async () => {
      const response = await rest(configured.url, 'GET', '/v1/candidates', { headers: { origin: PARTNER } });

      expect(response.status).toBe(401);
      expect(response.headers.get('access-control-allow-origin')).toBe(PARTNER);
      expect(headerList(response.headers.get('access-control-expose-headers')).sort()).toEqual(
        CORS_EXPOSED_HEADERS.map((h) => h.toLowerCase()).sort(),
      );
      expect(headerList(response.headers.get('vary'))).toContain('origin');
    });

    test('when another origin sends a preflight or a request, then no CORS header allows it', async () => {
      const check = await preflight(configured.url, STRANGER);
      const call = await fetch(`${configured.url}/healthz`, { headers: { origin: STRANGER } });

      expect(check.headers.get('access-control-allow-origin')).toBeNull();
      expect(check.headers.get('access-control-allow-headers')).toBeNull();
      expect(call.headers.get('access-control-allow-origin')).toBeNull();
      expect(headerList(call.headers.get('vary'))).toContain('origin');
    });

    test('when no origin is configured (the default), then no origin is allowed', async () => {
      const check = await preflight(plain.url, PARTNER);
      const call = await fetch(`${plain.url}/healthz`, { headers: { origin: PARTNER } });

      expect(check.headers.get('access-control-allow-origin')).toBeNull();
      expect(call.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('body limit', () => {
    const oversized = JSON.stringify({ query: '{ __typename }', variables: { padding: 'x'.repeat(101 * 1024) } });

    test('when a GraphQL request is over 100 kB, then it is refused with 413 before anything runs', async () => {
      const response = await fetch(`${plain.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: oversized,
      });

      expect(response.status).toBe(413);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await response.json()).toMatchObject({ type: `${PROBLEMS}payload-too-large` });
    });

    test('when a REST body is over 100 kB, then it is refused with 413', async () => {
      const registrar = await plain.key('REGISTER_CANDIDATES');

      const response = await rest(plain.url, 'POST', '/v1/candidates/register', {
        key: registrar,
        rawBody: oversized,
        headers: { 'content-type': 'application/json' },
      });

      expect(response.status).toBe(413);
      expect(response.body.type).toBe(`${PROBLEMS}payload-too-large`);
    });
  });

  describe('timeouts', () => {
    test('when nothing has been answered within REQUEST_TIMEOUT_MS, then the answer is 503 problem+json with Retry-After and the connection closes', async () => {
      const { status, headers, body, ms } = await requestWithUnfinishedBody(configured.url, '/graphql');

      expect(status).toBe(503);
      expect(headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(headers['retry-after']).toMatch(/^\d+$/);
      expect(headers.connection).toBe('close');
      expect(JSON.parse(body)).toMatchObject({
        type: `${PROBLEMS}service-unavailable`,
        status: 503,
        detail: expect.stringContaining(`${SHORT_TIMEOUT_MS} ms`),
      });
      expect(ms).toBeLessThan(TIMEOUT_ANSWER_BOUND_MS);
    });

    test('when a client never finishes its request head, then the server answers 408 and closes the connection', async () => {
      const { received, ms } = await unfinishedHeaders(configured.url);

      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(ms).toBeLessThan(TIMEOUT_ANSWER_BOUND_MS);
    });

    test('when requests are answered in time, then the timeout leaves them alone', async () => {
      const response = await fetch(`${configured.url}/healthz`);

      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    });
  });
});
