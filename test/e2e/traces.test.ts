import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

/**
 * Traces as an operator gets them: the service started as `npm start` is, with only the standard
 * OTEL_* variables pointing it at a collector (here an OTLP/HTTP receiver of this test, protocol
 * http/json). Requests over REST and GraphQL, registrations with identity included, then every
 * span received is searched for every identity value, the API key, the filter values and the
 * bodies; each request must yield one trace, and a caller's `traceparent` must be continued.
 */

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  events?: { name: string; attributes?: { key: string; value: OtlpValue }[] }[];
  status?: { message?: string };
}
interface OtlpExport {
  resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

/** An OTLP/HTTP receiver for http/json: keeps every span exported to it. */
class Collector {
  readonly spans: OtlpSpan[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) this.spans.push(...(scope.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves once `done` holds for the spans received (the exporter sends them in batches). */
  async until(done: (spans: OtlpSpan[]) => boolean, what: string): Promise<void> {
    for (let attempt = 0; attempt < 300; attempt++) {
      if (done(this.spans)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the collector never received ${what}; it has ${this.spans.length} spans`);
  }
}

/** Every text a span shows: its name, its attributes' and events' values, its status message. */
function textsOf(span: OtlpSpan): string[] {
  const values = (value: OtlpValue): string[] =>
    value.arrayValue
      ? (value.arrayValue.values ?? []).flatMap(values)
      : [String(value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue ?? '')];
  const attributes = [...(span.attributes ?? []), ...(span.events ?? []).flatMap((event) => event.attributes ?? [])];
  return [
    span.name,
    span.status?.message ?? '',
    ...(span.events ?? []).map((event) => event.name),
    ...attributes.flatMap((attribute) => [attribute.key, ...values(attribute.value)]),
  ];
}

function attribute(span: OtlpSpan, key: string): string | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : String(value.stringValue ?? value.intValue ?? value.boolValue);
}

const REGISTER =
  'mutation Register($input: RegisterCandidateInput!) { registerCandidate(input: $input) { message publicId } }';

describe('traces', () => {
  const collector = new Collector();
  let dataDir: string;
  let service: ServiceProcess;
  let key: string;
  /** the requests sent, each answered: the test's count of the traces expected */
  let requests = 0;
  /** the caller's trace context sent with one request */
  const callerTraceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');

  const identities = [
    {
      firstName: 'Yasmeen Rahaf',
      lastName: 'Khattabiyeh',
      email: 'yasmeen.khattabiyeh@example.org',
      dob: '1979-11-03',
      phone: '+962 77 314 1592',
      refugeeAgencyNumber: 'UNHCR-981-44217',
      messagingAppNumber: '+962 79 271 8281',
    },
    {
      firstName: 'Tariq Samer',
      lastName: 'Mahfouzani',
      email: 'tariq.mahfouzani@example.org',
      dob: '1983-06-21',
      phone: '+961 3 845 126',
      refugeeAgencyNumber: 'UNHCR-552-90813',
      messagingAppNumber: '+961 71 906 533',
    },
  ];
  const registration = ({ firstName, lastName, email, ...contact }: (typeof identities)[number]) => ({
    registrarId: 'traces-test-org',
    registrationData: {
      identity: { firstName, lastName, email },
      ...contact,
      country: { isoCode: 'JO' },
      nationality: { isoCode: 'SY' },
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 4 }],
    },
  });
  /** a text search's value, written as a literal into a GraphQL document */
  const searchedText = 'ophthalmic zqxv';

  const send = async (route: string, init: RequestInit & { headers?: Record<string, string> } = {}) => {
    const response = await fetch(`${service.url}${route}`, {
      ...init,
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...init.headers },
    });
    requests++;
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const graphql = (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    send('/graphql', { method: 'POST', body: JSON.stringify({ query, variables }), headers });

  beforeAll(async () => {
    const collectorUrl = await collector.start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-traces-'));
    service = await startServiceProcess({
      DATA_DIR: path.join(dataDir, 'cd.data'),
      // A few demo candidates, not 2,000: seeding them (traced, too) took most of the file's minute.
      DEMO_CANDIDATES: '20',
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    key = service.key!;

    const overRest = await send('/v1/candidates/register', {
      method: 'POST',
      body: JSON.stringify(registration(identities[0])),
    });
    expect(overRest.status).toBe(201);
    const overGraphQL = await graphql(REGISTER, { input: registration(identities[1]) });
    expect(overGraphQL.body.errors).toBeUndefined();
    expect((await send(`/v1/candidates/${overRest.body.publicId as string}`)).status).toBe(200);
    expect((await send('/v1/candidates?location=JO&nationality=SY&occupation=2221&limit=50')).status).toBe(200);
    const search = await graphql(
      'query Search($filter: CandidateFilter) { candidates(filter: $filter, limit: 5) { content { publicId } } }',
      { filter: { location: ['JO'], occupation: ['2221'] } },
    );
    expect(search.body.errors).toBeUndefined();
    const occupations = await graphql(`query Occupations { occupations(search: "${searchedText}") { isco08Code } }`);
    expect(occupations.body.errors).toBeUndefined();
    const continued = await graphql(
      'query Continued($id: PublicId!) { candidate(publicId: $id) { publicId } }',
      { id: overGraphQL.body.data.registerCandidate.publicId as string },
      { traceparent: `00-${callerTraceId}-${callerSpanId}-01` },
    );
    expect(continued.body.errors).toBeUndefined();

    await collector.until(
      (spans) => spans.filter((span) => span.kind === SPAN_KIND_SERVER).length >= requests,
      `one server span per request (${requests})`,
    );
  }, 120_000);

  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    await collector.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('when requests are traced, then no span holds an identity value, the API key, a filter value or a body', () => {
    const texts = collector.spans.flatMap(textsOf);
    const secrets = [
      ...identities.flatMap((identity) => Object.values(identity)),
      key,
      key.slice(4, 20),
      searchedText,
      'registerCandidate(',
      'traces-test-org',
    ];
    for (const secret of secrets) expect(texts.filter((text) => text.includes(secret))).toEqual([]);
    // Filter values are short codes: no text holds them as a value of a query or a document.
    expect(texts.filter((text) => /\b(JO|SY|2221)\b/.test(text))).toEqual([]);
    const search = collector.spans.find(
      (span) => span.kind === SPAN_KIND_SERVER && attribute(span, 'url.path') === '/v1/candidates',
    );
    expect(attribute(search!, 'url.query')).toBe(
      'location=REDACTED&nationality=REDACTED&occupation=REDACTED&limit=REDACTED',
    );
  });

  test('when requests are served, then each yields one trace, with spans for HTTP, GraphQL and each store command', () => {
    const servers = collector.spans.filter((span) => span.kind === SPAN_KIND_SERVER);
    expect(servers).toHaveLength(requests);
    expect(new Set(servers.map((span) => span.traceId)).size).toBe(requests);
    const inTrace = (span: OtlpSpan) => collector.spans.filter((other) => other.traceId === span.traceId);

    // The GraphQL registration: its operation named, its store commands named by command and collection.
    const registration = collector.spans.find((span) => span.name === 'mutation Register')!;
    expect(attribute(registration, 'graphql.operation.name')).toBe('Register');
    expect(attribute(registration, 'graphql.operation.type')).toBe('mutation');
    const commands = inTrace(registration).filter((span) => span.kind === SPAN_KIND_CLIENT);
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) {
      const collection = attribute(command, 'db.collection.name');
      const operation = attribute(command, 'db.operation.name');
      expect(command.name).toBe(collection === undefined ? operation : `${operation} ${collection}`);
    }
    expect(commands.map((span) => span.name)).toEqual(
      expect.arrayContaining(['insert candidateIdentities', 'insert candidates']),
    );
    // The operation's commands are children of its GraphQL span.
    expect(commands.filter((span) => span.parentSpanId === registration.spanId).length).toBeGreaterThan(0);
    // ... and the REST search's store commands are in its trace.
    const search = servers.find((span) => attribute(span, 'url.path') === '/v1/candidates')!;
    expect(
      inTrace(search)
        .filter((span) => span.kind === SPAN_KIND_CLIENT)
        .map((span) => attribute(span, 'db.collection.name')),
    ).toContain('candidates');
  });

  test('when a caller sends a traceparent, then its trace is continued', () => {
    const continued = collector.spans.filter((span) => span.traceId === callerTraceId);
    const server = continued.find((span) => span.kind === SPAN_KIND_SERVER);
    expect(server?.parentSpanId).toBe(callerSpanId);
    expect(continued.map((span) => span.name)).toContain('query Continued');
    expect(continued.some((span) => span.kind === SPAN_KIND_CLIENT)).toBe(true);
  });
});
