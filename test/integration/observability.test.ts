import { register as globalRegistry } from 'prom-client';
import { hashApiKey } from '../../src/auth/api-key-format';
import { ROUTE_LABELS } from '../../src/app/http-app';
import { openApiOperations } from '../../src/rest/openapi-route';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, graphql, type AppUnderTest } from '../support/app-under-test';
import { LogCapture } from '../support/log-capture';
import { rest } from '../support/rest-client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One sample of the Prometheus text format: `name{label="value",…} number`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseMetrics(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** The value of the sample named `name` whose labels include `labels` (0 when there is none yet). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.reduce((sum, s) => sum + s.value, 0);
}

describe('request ids, request logs and metrics', () => {
  const capture = new LogCapture();
  let service: AppUnderTest;
  let reader: string;
  let readerId: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 40, seed: 5, captureLogs: capture });
    reader = await service.key('READ_CANDIDATE_DATA');
    readerId = (await service.db.collection(COLLECTIONS.apiKeys).findOne({ keyHash: hashApiKey(reader) }))!
      .id as string;
  });

  afterAll(async () => {
    await service.stop();
  });

  const requestLines = (requestId: string) =>
    capture.records().filter((record) => record.requestId === requestId && record.msg === 'request');
  const scrape = async (target = service) => {
    const response = await fetch(`${target.url}/metrics`);
    expect(response.status).toBe(200);
    return { contentType: response.headers.get('content-type'), text: await response.text() };
  };
  const someCandidateId = async () =>
    (await service.db.collection(COLLECTIONS.candidates).findOne({}))!.publicId as string;

  describe('X-Request-Id', () => {
    test('when the caller sends a plain token, then it is echoed and is the request id of the logs', async () => {
      const { status, headers } = await rest(service.url, 'GET', '/v1/candidates?limit=1', {
        key: reader,
        headers: { 'X-Request-Id': 'partner-7.trace:42_a' },
      });

      expect(status).toBe(200);
      expect(headers.get('x-request-id')).toBe('partner-7.trace:42_a');
      expect(requestLines('partner-7.trace:42_a')).toHaveLength(1);
    });

    test.each([
      ['absent', undefined],
      ['with a space', 'two words'],
      ['with an @', 'someone@example.org'],
      ['longer than 100 characters', 'x'.repeat(101)],
    ])('when it is %s, then a new UUID is the request id', async (_case, given) => {
      const response = await fetch(`${service.url}/healthz`, {
        headers: given === undefined ? {} : { 'X-Request-Id': given },
      });

      const id = response.headers.get('x-request-id');
      expect(id).toMatch(UUID);
      expect(requestLines(id!)).toHaveLength(1);
      if (given !== undefined) expect(capture.lines().some((line) => line.includes(given))).toBe(false);
    });

    test('when a GraphQL request is answered, then it carries the same request id as its log line', async () => {
      const response = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': reader, 'x-request-id': 'gql-request-1' },
        body: JSON.stringify({ query: '{ languageLevels { level } }' }),
      });

      expect(response.headers.get('x-request-id')).toBe('gql-request-1');
      expect(requestLines('gql-request-1')).toHaveLength(1);
    });
  });

  describe('request log', () => {
    test('when a REST request is answered, then ONE info line holds its id, method, route template, status, duration and key id, and nothing else of the request', async () => {
      const publicId = await someCandidateId();

      await rest(service.url, 'GET', `/v1/candidates/${publicId}`, {
        key: reader,
        headers: { 'X-Request-Id': 'rest-log-1' },
      });

      const lines = requestLines('rest-log-1');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toEqual({
        level: 30,
        time: expect.any(String),
        service: 'candidate-directory',
        requestId: 'rest-log-1',
        msg: 'request',
        method: 'GET',
        route: '/v1/candidates/:publicId',
        status: 200,
        durationMs: expect.any(Number),
        apiKeyId: readerId,
      });
      const text = JSON.stringify(lines[0]);
      expect(text).not.toContain(reader);
      expect(text).not.toContain(publicId);
    });

    test('when a search has a query string, then the line has the route template and not the query', async () => {
      await rest(service.url, 'GET', '/v1/candidates?location=JO&occupation=2221', {
        key: reader,
        headers: { 'X-Request-Id': 'rest-log-2' },
      });

      const [line] = requestLines('rest-log-2');
      expect(line).toMatchObject({ route: '/v1/candidates', status: 200 });
      expect(JSON.stringify(line)).not.toMatch(/location|2221/);
    });

    test('when a GraphQL operation runs, then its line names the operation and the key id, never the key or the document', async () => {
      await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': reader, 'x-request-id': 'gql-log-1' },
        body: JSON.stringify({ query: 'query CountryCodes { countries { isoCode } }' }),
      });

      const lines = requestLines('gql-log-1');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        method: 'POST',
        route: '/graphql',
        status: 200,
        apiKeyId: readerId,
        graphqlOperation: 'CountryCodes',
      });
      expect(JSON.stringify(lines[0])).not.toMatch(new RegExp(`${reader}|isoCode|countries`));
    });

    test('when no valid key is sent, then the line has no key id and not the presented key', async () => {
      const wrongKey = `cdk_${'A'.repeat(43)}`;

      const { status } = await rest(service.url, 'GET', '/v1/candidates', {
        key: wrongKey,
        headers: { 'X-Request-Id': 'rest-log-401' },
      });

      const [line] = requestLines('rest-log-401');
      expect(status).toBe(401);
      expect(line).toMatchObject({ status: 401, route: '/v1' });
      expect(line).not.toHaveProperty('apiKeyId');
      expect(capture.lines().some((l) => l.includes(wrongKey))).toBe(false);
    });

    test('when no route serves the path, then the route is `unmatched` and the path is not logged', async () => {
      await fetch(`${service.url}/no/such/place-zx81`, { headers: { 'x-request-id': 'unmatched-1' } });
      await rest(service.url, 'GET', '/v1/nowhere-zx82', { key: reader, headers: { 'X-Request-Id': 'unmatched-2' } });

      expect(requestLines('unmatched-1')).toEqual([expect.objectContaining({ route: 'unmatched', status: 404 })]);
      expect(requestLines('unmatched-2')).toEqual([expect.objectContaining({ route: 'unmatched', status: 404 })]);
      expect(capture.lines().some((line) => /zx81|zx82/.test(line))).toBe(false);
    });

    test('when the client writes a path in another casing, then the line names the route as the service defines it, whatever the casing', async () => {
      const publicId = await someCandidateId();
      const graphqlPost = { method: 'POST', body: JSON.stringify({ query: '{ __typename }' }) };
      const cases: [path: string, init: RequestInit, route: string][] = [
        ['/V1/candidates', {}, '/v1/candidates'],
        ['/v1/CANDIDATES', {}, '/v1/candidates'],
        [`/V1/Candidates/${publicId}`, {}, '/v1/candidates/:publicId'],
        ['/GRAPHQL', {}, '/graphql'],
        ['/GraphQL', graphqlPost, '/graphql'],
        ['/HEALTHZ', {}, '/healthz'],
        ['/Metrics', {}, '/metrics'],
      ];

      for (const [index, [path, init, route]] of cases.entries()) {
        const headers = {
          'x-api-key': reader,
          'x-request-id': `casing-${index}`,
          'content-type': 'application/json',
          'apollo-require-preflight': 'true',
        };
        await (await fetch(`${service.url}${path}`, { ...init, headers })).arrayBuffer();
        expect([path, requestLines(`casing-${index}`).map((line) => line.route)]).toEqual([path, [route]]);
      }
      const labels = new Set(
        parseMetrics((await scrape()).text)
          .filter((s) => s.name === 'http_requests_total')
          .map((s) => s.labels.route),
      );
      expect([...labels].filter((label) => label !== 'unmatched' && !ROUTE_LABELS.includes(label))).toEqual([]);
    });

    test('when each operation of the OpenAPI document is called, then its line names its path template, one of the fixed labels (a route missing from ROUTE_LABELS would be `unmatched`)', async () => {
      const publicId = await someCandidateId();
      const operations = openApiOperations();

      for (const [index, operation] of operations.entries()) {
        const path = operation.path.replace('{publicId}', publicId).replace(/\{\w+\}/g, 'A'.repeat(22));
        await rest(service.url, operation.method, path, {
          key: reader,
          headers: { 'X-Request-Id': `template-${index}` },
          ...(operation.method === 'POST' ? { body: {} } : {}),
        });
        const template = operation.path.replace(/\{(\w+)\}/g, ':$1');
        expect([operation.operationId, requestLines(`template-${index}`).map((line) => line.route)]).toEqual([
          operation.operationId,
          [template],
        ]);
        expect(ROUTE_LABELS).toContain(template);
      }
      expect(operations.length).toBeGreaterThanOrEqual(6);
    });

    test('when /graphql refuses malformed JSON, then the line still names the /graphql route', async () => {
      await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'gql-malformed' },
        body: '{"query": ',
      });

      expect(requestLines('gql-malformed')).toEqual([expect.objectContaining({ route: '/graphql', status: 400 })]);
    });
  });

  describe('GET /metrics', () => {
    test('when scraped, then it answers the Prometheus text format without a key, with every metric family of the service', async () => {
      const { contentType, text } = await scrape();

      expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      for (const family of [
        'http_requests_total',
        'http_request_duration_seconds',
        'mongodb_commands_total',
        'mongodb_command_duration_seconds',
        'dataloader_batch_size',
        'rate_limit_rejections_total',
        'process_cpu_user_seconds_total',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(text).toContain(`# TYPE ${family} `);
      }
    });

    test('when searches are made, then http_requests_total of the search route with status 200 grows by exactly their number, and their durations are observed', async () => {
      const labels = { route: '/v1/candidates', method: 'GET', status: '200' };
      const before = parseMetrics((await scrape()).text);

      for (const page of [0, 1, 2])
        await rest(service.url, 'GET', `/v1/candidates?page=${page}&limit=5`, { key: reader });

      const after = parseMetrics((await scrape()).text);
      expect(valueOf(after, 'http_requests_total', labels) - valueOf(before, 'http_requests_total', labels)).toBe(3);
      expect(
        valueOf(after, 'http_request_duration_seconds_count', labels) -
          valueOf(before, 'http_request_duration_seconds_count', labels),
      ).toBe(3);
      expect(valueOf(after, 'http_request_duration_seconds_sum', labels)).toBeGreaterThan(
        valueOf(before, 'http_request_duration_seconds_sum', labels),
      );
    });

    test('when requests are answered, then the route label is a template or `unmatched`, never a concrete path', async () => {
      const publicId = await someCandidateId();
      await rest(service.url, 'GET', `/v1/candidates/${publicId}`, { key: reader });
      await fetch(`${service.url}/no/such/place-zx83`);

      const samples = parseMetrics((await scrape()).text).filter((s) => s.name === 'http_requests_total');

      expect(
        valueOf(samples, 'http_requests_total', { route: '/v1/candidates/:publicId', status: '200' }),
      ).toBeGreaterThanOrEqual(1);
      expect(valueOf(samples, 'http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
      const routes = new Set(samples.map((s) => s.labels.route));
      for (const route of routes) expect(route).toMatch(/^(unmatched|\/[a-z0-9./:A-Z-]*)$/);
      expect([...routes].join(' ')).not.toMatch(new RegExp(`${publicId}|zx83`));
    });

    test('when the store is queried, then mongodb_commands_total and the command durations grow', async () => {
      const labels = { command: 'find', outcome: 'success' };
      const before = parseMetrics((await scrape()).text);

      await rest(service.url, 'GET', '/v1/candidates?limit=3', { key: reader });

      const after = parseMetrics((await scrape()).text);
      expect(valueOf(after, 'mongodb_commands_total', labels)).toBeGreaterThan(
        valueOf(before, 'mongodb_commands_total', labels),
      );
      expect(valueOf(after, 'mongodb_command_duration_seconds_count', { command: 'find' })).toBeGreaterThan(
        valueOf(before, 'mongodb_command_duration_seconds_count', { command: 'find' }),
      );
    });

    test('when a GraphQL search selects partners, then dataloader_batch_size observes one batch of the candidates loader', async () => {
      const labels = { loader: 'candidates' };
      const before = parseMetrics((await scrape()).text);

      const { body } = await graphql(
        service.url,
        '{ candidates(limit: 40) { content { partner { publicId } country { isoCode } } } }',
        {},
        reader,
      );

      const after = parseMetrics((await scrape()).text);
      expect(body.errors).toBeUndefined();
      // Every candidate of the data set: some of them have a registered partner to load.
      const content = (body.data as { candidates: { content: { partner: unknown }[] } }).candidates.content;
      expect(content.some((candidate) => candidate.partner !== null)).toBe(true);
      expect(
        valueOf(after, 'dataloader_batch_size_count', labels) - valueOf(before, 'dataloader_batch_size_count', labels),
      ).toBe(1);
      expect(
        valueOf(after, 'dataloader_batch_size_sum', labels) - valueOf(before, 'dataloader_batch_size_sum', labels),
      ).toBeGreaterThanOrEqual(1);
    });

    test('when the rate limiter counts a rejection, then rate_limit_rejections_total shows it by kind', async () => {
      service.app.metrics.rateLimitRejections.inc({ kind: 'read' });

      const samples = parseMetrics((await scrape()).text);

      expect(valueOf(samples, 'rate_limit_rejections_total', { kind: 'read' })).toBeGreaterThanOrEqual(1);
    });

    test('when two apps run in one process, then each has its own registry and neither uses the global one', async () => {
      const other = await startAppUnderTest();
      try {
        const labels = { route: '/healthz', method: 'GET', status: '200' };
        const before = valueOf(parseMetrics((await scrape(other)).text), 'http_requests_total', labels);

        await fetch(`${service.url}/healthz`);

        expect(valueOf(parseMetrics((await scrape(other)).text), 'http_requests_total', labels)).toBe(before);
        expect(globalRegistry.getSingleMetric('http_requests_total')).toBeUndefined();
      } finally {
        await other.stop();
      }
    });
  });
});
