import path from 'node:path';
import { MongoClient } from 'mongodb';
import { z } from 'zod';

/**
 * An ε (or a budget of ε) as written in the environment: a plain decimal number with at most three
 * decimals within [min, max]. Privacy costs are counted in thousandths (statistics-service.ts), so
 * a value with a fourth decimal would make every default query fail instead of the start.
 */
function epsilonSetting(min: number, max: number) {
  const rule = `must be a number from ${min} to ${max} with at most 3 decimals`;
  return z
    .string()
    .trim()
    .regex(/^\d+(\.\d{1,3})?$/, rule)
    .transform(Number)
    .pipe(z.number().min(min, rule).max(max, rule));
}

/**
 * Every setting of the service: its environment variable, default and meaning.
 * Nothing else in the code base reads `process.env`.
 */
export const settings = {
  port: {
    env: 'PORT',
    default: '8080',
    description: 'TCP port the HTTP server listens on (0 picks a free port).',
    schema: z.coerce.number().int().min(0).max(65535),
  },
  host: {
    env: 'HOST',
    default: '127.0.0.1',
    description: 'Interface the HTTP server binds to (0.0.0.0 inside a container).',
    schema: z.string().min(1),
  },
  mongodbUri: {
    env: 'MONGODB_URI',
    default: '',
    description:
      'MongoDB connection string. Unset: an embedded MongoDB-wire-compatible store is started on DATA_DIR and filled with demo data.',
    secret: true,
    schema: z.string().superRefine((v, context) => {
      const problem = v === '' ? undefined : connectionStringProblem(v);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }),
  },
  mongodbDb: {
    env: 'MONGODB_DB',
    default: 'candidate_directory',
    description: 'Name of the MongoDB database holding every collection.',
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1-63 letters, digits, _ or -'),
  },
  dataDir: {
    env: 'DATA_DIR',
    default: '.data/',
    description: 'Directory of the embedded store (its LMDB files). Ignored when MONGODB_URI is set.',
    schema: z.string().min(1),
  },
  erasureLog: {
    env: 'ERASURE_LOG',
    default: '',
    description:
      'File every erasure is appended to (a public id and a time per line, no identity), re-applied at start and by npm run restore so that a restored backup never brings an erased candidate back. Unset: DATA_DIR/erasures.log on the embedded store, none with MONGODB_URI. Keep it on storage that outlives the data (docs/operators.md).',
    schema: z.string(),
  },
  logLevel: {
    env: 'LOG_LEVEL',
    default: 'info',
    description: 'Minimum level of the JSON logs: fatal, error, warn, info, debug, trace or silent.',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  },
  demoApiKey: {
    env: 'DEMO_API_KEY',
    default: '',
    description:
      'Fixes the value of the demo API key created on an empty embedded store (random when unset), in the form `npm run keys -- create` prints. Never used with MONGODB_URI.',
    secret: true,
    schema: z
      .string()
      .regex(
        /^$|^cdk_[A-Za-z0-9_-]{43}$/,
        'must be an API key as `npm run keys -- create` prints it: cdk_ and 43 base64url characters',
      ),
  },
  environment: {
    env: 'NODE_ENV',
    default: 'production',
    description:
      'production or development. Development adds stack traces and schema hints to GraphQL errors; never use it with real data.',
    schema: z.enum(['production', 'development', 'test']),
  },
  graphqlMaxDepth: {
    env: 'GRAPHQL_MAX_DEPTH',
    default: '12',
    description: 'Deepest field nesting a GraphQL operation may select (the recursive `partner` field needs a bound).',
    schema: z.coerce.number().int().min(1).max(100),
  },
  graphqlMaxCost: {
    env: 'GRAPHQL_MAX_COST',
    default: '5000',
    description: 'Highest static cost (graphql-armor cost limit) of a GraphQL operation.',
    schema: z.coerce.number().int().min(1),
  },
  graphqlMaxAliases: {
    env: 'GRAPHQL_MAX_ALIASES',
    default: '15',
    description: 'Most aliases a GraphQL operation may use.',
    schema: z.coerce.number().int().min(0),
  },
  graphqlMaxTokens: {
    env: 'GRAPHQL_MAX_TOKENS',
    default: '2000',
    description: 'Most lexical tokens a GraphQL document may have (bounds parsing work).',
    schema: z.coerce.number().int().min(1),
  },
  graphqlApqMaxEntries: {
    env: 'GRAPHQL_APQ_MAX_ENTRIES',
    default: '10000',
    description:
      'Most automatic persisted queries kept in the store, shared by every instance; past it the earliest to expire are dropped (0: automatic persisted queries are off, answered PERSISTED_QUERY_NOT_SUPPORTED).',
    schema: z.coerce.number().int().min(0).max(1_000_000),
  },
  graphqlApqTtlSeconds: {
    env: 'GRAPHQL_APQ_TTL_SECONDS',
    default: '86400',
    description:
      'Seconds an automatic persisted query is kept after it was last registered; a client then registers it again.',
    schema: z.coerce.number().int().min(1).max(31_536_000),
  },
  graphqlJit: {
    env: 'GRAPHQL_JIT',
    default: 'true',
    description:
      'true or false. Runs GraphQL operations (and the persisted operations of /v1) compiled by graphql-jit; false runs them with graphql-js, for comparison. Results are the same.',
    schema: z.enum(['true', 'false']).transform((v) => v === 'true'),
  },
  readCacheEntries: {
    env: 'READ_CACHE_ENTRIES',
    default: '10000',
    description:
      'How many candidates, job opportunities and API key records each instance keeps between requests (0: none). A kept value serves a request only if no write changed the store since it was read (docs/operators.md, "Read caches").',
    schema: z.coerce.number().int().min(0).max(1_000_000),
  },
  readCacheMb: {
    env: 'READ_CACHE_MB',
    default: '64',
    description:
      'Megabytes of serialised /v1 GET answers each instance keeps (0: none), served under the same rule as READ_CACHE_ENTRIES.',
    schema: z.coerce.number().int().min(0).max(4096),
  },
  rateLimitReads: {
    env: 'RATE_LIMIT_READS',
    default: '600',
    description:
      'Read budget per API key per minute (a page of candidates costs ceil(size / 10), any other read 1; see "Operations: rate limits and audit"), shared by every instance. A key may carry its own.',
    schema: z.coerce.number().int().min(1),
  },
  rateLimitWrites: {
    env: 'RATE_LIMIT_WRITES',
    default: '60',
    description:
      'Write budget per API key per minute (each REST POST and each GraphQL mutation field costs 1), shared by every instance. A key may carry its own.',
    schema: z.coerce.number().int().min(1),
  },
  rateLimitFlushMs: {
    env: 'RATE_LIMIT_FLUSH_MS',
    default: '200',
    description:
      'Rate-limit counting is buffered: each instance decides from the shared count plus its own units and writes them in one bulk write per this many milliseconds. Across instances a budget may be overspent by what the others admitted in the last 3 intervals; a crash loses at most the last interval of counts (0: every request counted in the store at once; see "Operations: rate limits and audit").',
    schema: z.coerce.number().int().min(0).max(60_000),
  },
  auditFlushMs: {
    env: 'AUDIT_FLUSH_MS',
    default: '100',
    description:
      'Audit events are written in batches: the first event of a batch waits this many milliseconds for others (a batch of 500 goes at once). A stop (SIGTERM) writes every event before exiting; a crash or kill -9 loses at most the events of the last interval.',
    schema: z.coerce.number().int().min(0).max(10_000),
  },
  auditBufferSize: {
    env: 'AUDIT_BUFFER_SIZE',
    default: '10000',
    description:
      'Audit events of reads (and of refused requests) held in memory until stored; a failed write is retried until it is. While this many are held, reads are refused (503, Retry-After) rather than served unaudited. A kill -9 loses the events held, at most this many. Events of writes are stored with the write.',
    schema: z.coerce.number().int().min(1).max(1_000_000),
  },
  auditRetentionDays: {
    env: 'AUDIT_RETENTION_DAYS',
    default: '400',
    description:
      'Days an audit event is kept; a TTL index on its time removes older ones (0: kept until an operator removes them). The default covers a year of data-protection requests and erasure notices, which rely on the trail to name every recipient, plus a month of margin.',
    schema: z.coerce.number().int().min(0).max(36_500),
  },
  statisticsEpsilon: {
    env: 'STATISTICS_EPSILON',
    default: '1',
    description:
      'The ε (privacy cost) of a candidateStatistics query that names none: the noise of every published count is scaled to it (docs/analysts.md). From 0.001 to 10 with at most 3 decimals, as the `epsilon` a query may pass.',
    schema: epsilonSetting(0.001, 10),
  },
  statisticsBudget: {
    env: 'STATISTICS_BUDGET',
    default: '5',
    description:
      'The ε each API key may spend on statistics per budget period, unless the key has its own (`npm run keys -- create --statistics-budget`), from 0 to 1000000 with at most 3 decimals. With the default ε of 1: five new queries per period; repeats are free.',
    schema: epsilonSetting(0, 1_000_000),
  },
  statisticsBudgetPeriodHours: {
    env: 'STATISTICS_BUDGET_PERIOD_HOURS',
    default: '24',
    description:
      'Length of a statistics budget period in hours, counted from 1970-01-01T00:00Z (24: budgets renew at midnight UTC). A repeated query is answered from the stored answer within its period.',
    schema: z.coerce.number().int().min(1).max(8760),
  },
  corsOrigins: {
    env: 'CORS_ORIGINS',
    default: '',
    description: 'Comma-separated origins allowed to call the API from a browser (CORS); unset: none.',
    schema: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter((o) => o !== ''),
      )
      .refine(
        (origins) => origins.every((o) => /^https?:\/\/[^\s/]+$/.test(o)),
        'each origin must be scheme://host[:port]',
      ),
  },
  requestTimeoutMs: {
    env: 'REQUEST_TIMEOUT_MS',
    default: '30000',
    description:
      'Longest time a request may take before it is answered 503 (and the socket timeout of the HTTP server).',
    schema: z.coerce.number().int().min(100),
  },
  mongodbTimeoutMs: {
    env: 'MONGODB_TIMEOUT_MS',
    default: '2000',
    description:
      'How long a request waits for an unreachable database before it fails with 503 (server selection and connect timeout).',
    schema: z.coerce.number().int().min(100),
  },
  shutdownGraceMs: {
    env: 'SHUTDOWN_GRACE_MS',
    default: '10000',
    description: 'On SIGTERM, how long in-flight requests may finish before connections are closed.',
    schema: z.coerce.number().int().min(0),
  },
  writeLeaseMs: {
    env: 'WRITE_LEASE_MS',
    default: '60000',
    description:
      'Crash recovery of writes: how long a write that has not finished (an Idempotency-Key in progress, a registration whose profile is missing on a standalone MongoDB) holds its place before a retry may take it over. Keep it above REQUEST_TIMEOUT_MS.',
    schema: z.coerce.number().int().min(1),
  },
  storeRestartBackoffMs: {
    env: 'STORE_RESTART_BACKOFF_MS',
    default: '500',
    description:
      'Embedded store only: delay before restarting a store child that died; it doubles with each further death within STORE_RESTART_WINDOW_MS (at most 30 s).',
    schema: z.coerce.number().int().min(0),
  },
  storeMaxRestarts: {
    env: 'STORE_MAX_RESTARTS',
    default: '5',
    description:
      'Embedded store only: restarts allowed within STORE_RESTART_WINDOW_MS; one more death makes the service exit with code 1, for its supervisor to restart it.',
    schema: z.coerce.number().int().min(0),
  },
  storeRestartWindowMs: {
    env: 'STORE_RESTART_WINDOW_MS',
    default: '60000',
    description: "Embedded store only: the window in which STORE_MAX_RESTARTS counts the store child's deaths.",
    schema: z.coerce.number().int().min(1),
  },
  demoCandidates: {
    env: 'DEMO_CANDIDATES',
    default: '2000',
    description: 'Number of demo candidates seeded into an empty embedded store at start.',
    schema: z.coerce.number().int().min(0).max(1_000_000),
  },
  webhookAllowHttp: {
    env: 'WEBHOOK_ALLOW_HTTP',
    default: 'false',
    description:
      'true or false. Allows webhook endpoints with plain http:// URLs (local testing only); false: https only. Checked at registration and at every delivery; `npm run webhooks -- add` applies the value of the service that started last on the store.',
    schema: z.enum(['true', 'false']).transform((v) => v === 'true'),
  },
  webhookAllowPrivateAddresses: {
    env: 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES',
    default: 'false',
    description:
      'true or false. Allows webhook endpoints on loopback, private, link-local and other non-public addresses (local testing, closed networks); checked at registration and at every connection. `npm run webhooks -- add` applies the value of the service that started last on the store.',
    schema: z.enum(['true', 'false']).transform((v) => v === 'true'),
  },
  webhookSecretKey: {
    env: 'WEBHOOK_SECRET_KEY',
    default: '',
    description:
      'base64 of 32 random bytes (e.g. `openssl rand -base64 32`). When set, webhook signing secrets are stored sealed with it (AES-256-GCM), so a copy of the database cannot forge deliveries; keep it set once used. Unset: secrets are stored as they are.',
    secret: true,
    schema: z
      .string()
      .superRefine((v, context) => {
        if (v === '' || /^[A-Za-z0-9+/]{43}=$/.test(v)) return;
        context.addIssue({
          code: 'custom',
          message: /^[0-9a-fA-F]{64}$/.test(v)
            ? 'must be the base64 of 32 bytes, and this is hexadecimal: give the same bytes in base64 (`xxd -r -p | base64`), or a new key (`openssl rand -base64 32`)'
            : 'must be the base64 of 32 bytes, 44 characters ending in = (`openssl rand -base64 32`)',
        });
      })
      .transform((v) => (v === '' ? undefined : Buffer.from(v, 'base64'))),
  },
  webhookMaxAttempts: {
    env: 'WEBHOOK_MAX_ATTEMPTS',
    default: '10',
    description:
      "Attempts of one webhook delivery (the first and its retries) before it is dead-lettered and the webhook's later events go on.",
    schema: z.coerce.number().int().min(1).max(100),
  },
  webhookBackoffBaseMs: {
    env: 'WEBHOOK_BACKOFF_BASE_MS',
    default: '5000',
    description:
      'Delay before the first retry of a failed webhook delivery; it doubles with each further failure (with jitter) up to WEBHOOK_BACKOFF_MAX_MS.',
    schema: z.coerce.number().int().min(1),
  },
  webhookBackoffMaxMs: {
    env: 'WEBHOOK_BACKOFF_MAX_MS',
    default: '3600000',
    description: 'Longest delay between two attempts of a webhook delivery.',
    schema: z.coerce.number().int().min(1),
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    default: '10000',
    description: 'How long a webhook endpoint has to answer an attempt; no answer in time is a failed attempt.',
    schema: z.coerce.number().int().min(100).max(600_000),
  },
  webhookPollMs: {
    env: 'WEBHOOK_POLL_MS',
    default: '1000',
    description: 'How often each instance looks for new change events and due retries to deliver to webhooks.',
    schema: z.coerce.number().int().min(10).max(600_000),
  },
  webhookConcurrency: {
    env: 'WEBHOOK_CONCURRENCY',
    default: '8',
    description:
      'Webhooks each instance delivers to at once, each one attempt at a time (in order). While more webhooks have events to send, each gets turns of one attempt, so a slow or backlogged endpoint delays only itself.',
    schema: z.coerce.number().int().min(1).max(256),
  },
  webhookLeaseMs: {
    env: 'WEBHOOK_LEASE_MS',
    default: '60000',
    description:
      'How long an instance delivering for a webhook holds it (renewed at every delivery) before another instance may take it over after a crash. Keep it above WEBHOOK_TIMEOUT_MS.',
    schema: z.coerce.number().int().min(100),
  },
} as const;

/**
 * Why `uri` is no connection string the driver accepts, or undefined when it is one. The driver's
 * own reason is kept unless it repeats a part of the string (a user, a password, an option's
 * value): a configuration error names the variable and the rule, never the value.
 */
function connectionStringProblem(uri: string): string | undefined {
  if (!/^mongodb(\+srv)?:\/\//.test(uri)) return 'must start with mongodb:// or mongodb+srv://';
  try {
    // Parses the string and its options; connects to nothing.
    new MongoClient(uri);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : '';
    const fragments = connectionStringFragments(uri);
    const safe = reason !== '' && !fragments.some((fragment) => reason.includes(fragment));
    return `must be a MongoDB connection string the driver accepts${safe ? ` (${reason})` : ''}`;
  }
}

/** The parts of a connection string that may be secret: its credentials and its options' values, as written and decoded. */
function connectionStringFragments(uri: string): string[] {
  const afterScheme = uri.slice(uri.indexOf('://') + 3);
  const at = afterScheme.lastIndexOf('@');
  const credentials = at === -1 ? '' : afterScheme.slice(0, at);
  const query = uri.includes('?') ? uri.slice(uri.indexOf('?') + 1) : '';
  const values = query.split('&').map((pair) => pair.slice(pair.indexOf('=') + 1));
  const raw = [credentials, ...credentials.split(':'), ...values].filter((fragment) => fragment !== '');
  return [...raw, ...raw.map(decoded)];
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

type Settings = typeof settings;
export type Config = { [K in keyof Settings]: z.output<Settings[K]['schema']> };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * A rule's message, never its value: the rules do not repeat what they were given, and should
 * a message ever do so, the value is cut out of it (a value long enough to be a secret).
 */
function withoutValue(message: string, raw: string): string {
  return raw.length >= 6 ? message.split(raw).join('(the value)') : message;
}

/**
 * Reads and validates the configuration; throws a ConfigError naming every bad variable and the
 * rule it breaks, never its value (a connection string holds a password, a key is a secret).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<Config> = {},
): Config {
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    if (key in overrides) {
      config[key] = (overrides as Record<string, unknown>)[key];
      continue;
    }
    const raw = env[setting.env] ?? setting.default;
    const parsed = (setting.schema as z.ZodType).safeParse(raw);
    if (parsed.success) config[key] = parsed.data;
    else problems.push(`${setting.env}: ${withoutValue(parsed.error.issues.map((i) => i.message).join('; '), raw)}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const result = config as Config;
  return { ...result, dataDir: path.resolve(result.dataDir) };
}

/** The settings as a markdown table (the configuration section of docs/operators.md is generated from it). */
export function settingsTable(): string {
  const rows = Object.values(settings).map(
    (s) => `| \`${s.env}\` | ${s.default === '' ? '(unset)' : `\`${s.default}\``} | ${s.description} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/**
 * Whether the service exports traces: configured only by OpenTelemetry's standard variables,
 * read by its SDK (endpoint, protocol `http/json` or `http/protobuf`, headers, sampler, service
 * name; docs/operators.md#traces). Off unless `OTEL_TRACES_EXPORTER` names an exporter other
 * than `none` or an OTLP endpoint is set; `OTEL_SDK_DISABLED=true` turns it off.
 */
export function tracingRequested(env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (exporters.length > 0) return !exporters.includes('none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}
