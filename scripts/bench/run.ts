import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { DemoGenerator } from 'demo-data';
import { BOOTSTRAP_SEED } from '../../src/app/demo-bootstrap';
import { forkChild, killAllSync, leftovers, startReaper, stopChild, stopReaper } from './children';
import { benchBackup, REGISTRATIONS_PER_S } from './backup';
import { benchImport } from './import';
import { DEEP_QUERY_PAGE } from './graphql-operations';
import { FOREIGN_CPU_NOTE, measure, stopLoad, type LoadSettings, type Measurement, type Target } from './load';
import { machine, commit } from './machine';
import { readCommandCounts } from './metrics';
import { peakRssOf, waitForQuietMachine } from './probe';
import { goals, markdown, resultsTable, type RunReport, type SizeRun } from './report';
import { coldCacheSettings, pagesOf, seededData, type CacheSettings, type Rotations } from './rotation';
import { differingAnswers, peerScenarios, startPeer, storeSocketOf } from './peer';
import { benchStoreEngine, STORE_ENGINE, type StoreEngineRun } from './store-engine';
import { storeEngineGoalsTable } from './store-engine-report';
import { baselineScenario, coldScenarios, serviceScenarios, type Scenario, type ScenarioContext } from './scenarios';
import {
  BENCH_KEY_BUDGETS,
  benchKeyBudget,
  compiledExecutionSwitch,
  createBenchKey,
  keysCliFeatures,
  readCacheDefaults,
  REPO,
  seed,
  startService,
  tail,
  timeCliStart,
  type RunningService,
} from './service';
import { startTraceSink, type TraceSink } from './trace-sink';
import { shippedDemoReference } from '../../src/app/demo-reference';

/**
 * `npm run bench`: seeds a fresh embedded store per size, starts the built service on it as a
 * child process, and loads it with autocannon from this process, scenario by scenario, next to
 * a bare node:http and a bare Express server answering a real by-id body. Writes BENCHMARKS.md.
 */

const USAGE = `Usage: npm run bench -- [options]

  --sizes <n,...>        store sizes in candidates (default 10000,100000)
  --duration <s>         measured seconds per scenario (default 10)
  --warmup <s>           warm-up seconds per scenario (default 3)
  --connections <n>      concurrent connections (default 50)
  --timeout <s>          autocannon request timeout (default 30, the service's REQUEST_TIMEOUT_MS)
  --quiet-wait <s>       before each scenario, wait up to this long for other processes to go quiet (default 10; 0: don't)
  --scenarios <key,...>  only these scenarios (keys: see scripts/bench/scenarios.ts, e.g. rest-by-id-cold,
                         rest-search-100-1c-deepest-caches-off; baseline-http, baseline-express, baseline-http-search-100;
                         cli-start: the wall time of npm run keys -- list on the seeded data directory;
                         import: npm run import of every candidate paged out of REST, beside the service;
                         backup: npm run backup to a .tar.gz beside the service, 3 times, alternating with
                         windows without one (one client's by-id latency in each, 50 registrations/s
                         throughout), then npm run restore of the last into a new directory, a service on
                         it, and its REST export compared with the original's;
                         store-engine: a part of its own, not in the default run: per size a fresh seed (timed),
                         the first start, npm run keys -- list beside the service, store CPU and memory over cold
                         pages of 100 after the start, after 10,000 registrations and after a restart)
  --backup-registrations <n>  registrations a second beside the backup row (default 50, the goal's)
  --no-baselines         skip the bare node:http and Express servers
  --compiled-off <ENV=VALUE>  the setting that switches compiled GraphQL execution off (default: found in src/config.ts)
  --env <NAME=VALUE>     an extra environment variable of the service (repeatable)
  --keep-data            keep the seeded data directories under .bench/
  --out <file>           the report to write (default BENCHMARKS.md; "-" writes none)
  --max-minutes <n>      abort (and kill every child) after this long (default 30)
`;

interface Options {
  sizes: number[];
  load: LoadSettings;
  scenarios?: Set<string>;
  baselines: boolean;
  compiledOff?: { env: string; off: string };
  /** extra environment of the service (--env K=V) */
  serviceEnv: Record<string, string>;
  keepData: boolean;
  out?: string;
  maxMinutes: number;
  backupRegistrations: number;
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${text}"`);
  return value;
}

function parseOptions(argv: string[]): Options | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      sizes: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      timeout: { type: 'string' },
      'quiet-wait': { type: 'string' },
      scenarios: { type: 'string' },
      'no-baselines': { type: 'boolean' },
      'compiled-off': { type: 'string' },
      env: { type: 'string', multiple: true },
      'keep-data': { type: 'boolean' },
      out: { type: 'string' },
      'max-minutes': { type: 'string' },
      'backup-registrations': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const sizes = (values.sizes ?? '10000,100000').split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1 || n > 1_000_000)
      throw new Error(`--sizes takes whole numbers from 1 to 1000000, got "${s}"`);
    return n;
  });
  let compiledOff: Options['compiledOff'];
  if (values['compiled-off'] !== undefined) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(values['compiled-off']);
    if (!match) throw new Error('--compiled-off takes ENV=VALUE');
    compiledOff = { env: match[1], off: match[2] };
  }
  const serviceEnv: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(pair);
    if (!match) throw new Error(`--env takes NAME=VALUE, got "${pair}"`);
    serviceEnv[match[1]] = match[2]!;
  }
  return {
    sizes,
    serviceEnv,
    load: {
      connections: Math.round(positive('--connections', values.connections, 50)),
      durationS: positive('--duration', values.duration, 10),
      warmupS: values.warmup === '0' ? 0 : positive('--warmup', values.warmup, 3),
      timeoutS: positive('--timeout', values.timeout, 30),
      quietWaitS: values['quiet-wait'] === '0' ? 0 : positive('--quiet-wait', values['quiet-wait'], 10),
    },
    scenarios: values.scenarios ? new Set(values.scenarios.split(',').map((s) => s.trim())) : undefined,
    baselines: !values['no-baselines'],
    compiledOff,
    keepData: values['keep-data'] ?? false,
    out: values.out === '-' ? undefined : path.resolve(REPO, values.out ?? 'BENCHMARKS.md'),
    maxMinutes: positive('--max-minutes', values['max-minutes'], 30),
    backupRegistrations: positive('--backup-registrations', values['backup-registrations'], REGISTRATIONS_PER_S),
  };
}

/** The --scenarios key of the CLI start row (not a load scenario: timed runs of the keys CLI). */
const CLI_START = 'cli-start';
/** The --scenarios key of the import row (not a load scenario: two timed runs of the import tool). */
const IMPORT = 'import';
/** The --scenarios key of the backup and restore rows (timed runs of the two CLIs). */
const BACKUP = 'backup';

const startedAt = Date.now();
function log(line: string): void {
  const s = Math.round((Date.now() - startedAt) / 1000);
  process.stdout.write(`[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${line}\n`);
}

function summary(m: Measurement): string {
  if (m.failed) return `${m.scenario.label}: NOT RUN`;
  const cmds = m.commandsPerRequest !== undefined ? `, ${m.commandsPerRequest.toFixed(2)} cmds/req` : '';
  const problems =
    m.non2xx + m.socketErrors + m.timeouts + m.mismatches > 0
      ? `, ⚠ ${m.non2xx} non-2xx, ${m.socketErrors} socket errors, ${m.timeouts} timeouts, ${m.mismatches} GraphQL errors`
      : '';
  const rss = Object.entries(m.rss.byLabel)
    .map(([label, bytes]) => `${label} ${Math.round(bytes / 2 ** 20)}`)
    .join(' + ');
  const latency = (v: number | undefined): string => (v === undefined ? '—' : v.toFixed(1));
  const warm = `warm-up ${(m.warmupMs / 1000).toFixed(0)} s, drain ${(m.drainMs / 1000).toFixed(0)} s`;
  return `${m.scenario.label}: ${m.reqPerS.toFixed(1)} req/s (${m.responses} answers), p50 ${latency(m.p50Ms)} ms, p99 ${latency(m.p99Ms)} ms${problems}${cmds}, RSS ${rss} MiB, ${warm}, other CPU ${m.foreignCores.toFixed(2)}`;
}

async function getJson(url: string, apiKey: string): Promise<{ status: number; text: string; json: unknown }> {
  const response = await fetch(url, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** publicIds of real candidates from pages spread over the whole store (every status). */
async function candidatePool(url: string, apiKey: string, pages = 10): Promise<string[]> {
  const page = async (n: number) => {
    const { status, text, json } = await getJson(
      `${url}/v1/candidates?limit=100&includeEmployed=true&page=${n}`,
      apiKey,
    );
    if (status !== 200)
      throw new Error(`fetching the id pool: GET /v1/candidates answered ${status}: ${text.slice(0, 200)}`);
    return json as { content: { publicId: string }[]; totalPages: number };
  };
  const first = await page(0);
  const ids = first.content.map((c) => c.publicId);
  for (let i = 1; i < pages && i < first.totalPages; i++) {
    const n = Math.floor((i * first.totalPages) / pages);
    ids.push(...(await page(n)).content.map((c) => c.publicId));
  }
  return [...new Set(ids)];
}

/** The by-id response of median size among the first ids: the body the baselines serve. */
async function typicalByIdBody(url: string, apiKey: string, ids: readonly string[]): Promise<Buffer> {
  const bodies: Buffer[] = [];
  for (const id of ids.slice(0, 21)) {
    const response = await fetch(`${url}/v1/candidates/${id}`, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status !== 200) throw new Error(`GET /v1/candidates/${id} answered ${response.status}`);
    bodies.push(Buffer.from(await response.arrayBuffer()));
  }
  bodies.sort((a, b) => a.length - b.length);
  return bodies[Math.floor(bodies.length / 2)];
}

/** The bodies the baseline servers answer with, taken from the service at the first size. */
interface BaselineBodies {
  /** a REST by-id answer of median size */
  file?: string;
  /** the REST search limit=100 answer */
  searchFile?: string;
  /** the same, gzip-compressed as the service sends it to a client accepting gzip */
  searchGzipFile?: string;
  context?: ScenarioContext;
}

async function runBaselines(
  bodies: Required<Pick<BaselineBodies, 'file' | 'context'>> & BaselineBodies,
  options: Options,
  runDir: string,
): Promise<Measurement[]> {
  const results: Measurement[] = [];
  const { context } = bodies;
  const servers = [
    { mode: 'http', key: 'baseline-http', label: 'Baseline: bare node:http, by-id body', body: bodies.file },
    { mode: 'express', key: 'baseline-express', label: 'Baseline: bare Express route, by-id body', body: bodies.file },
    // What this machine can serve of a body as large as a page of 100 candidates: the floor of the search-100 latency.
    ...(bodies.searchFile
      ? [
          {
            mode: 'http',
            key: 'baseline-http-search-100',
            label: 'Baseline: bare node:http, search limit=100 body',
            body: bodies.searchFile,
          },
        ]
      : []),
    ...(bodies.searchGzipFile
      ? [
          {
            mode: 'http',
            key: 'baseline-http-search-100-gzip',
            label: 'Baseline: bare node:http, search limit=100 body gzip-compressed',
            body: bodies.searchGzipFile,
          },
        ]
      : []),
  ];
  for (const server of servers) {
    if (options.scenarios && !options.scenarios.has(server.key)) continue;
    const child = forkChild(
      `baseline ${server.mode}`,
      path.join(__dirname, 'baseline-server.ts'),
      [server.mode, server.body],
      {
        cwd: REPO,
        logFile: path.join(runDir, `baseline-${server.mode}.log`),
      },
    );
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the ${server.mode} baseline did not start within 30 s`)),
          30_000,
        );
        child.process.once('message', (message: { port?: number }) => {
          clearTimeout(timer);
          if (typeof message.port === 'number') resolve(message.port);
          else reject(new Error(`the ${server.mode} baseline sent ${JSON.stringify(message)}`));
        });
        void child.exited().then(() => reject(new Error(`the ${server.mode} baseline exited`)));
      });
      const target: Target = {
        url: `http://127.0.0.1:${port}`,
        processes: [{ label: server.mode, pid: child.pid }],
        hasCommandMetric: false,
      };
      const m = await measure(target, baselineScenario(server.key, server.label, context), '—', options.load, log);
      log(summary(m));
      results.push(m);
    } finally {
      await stopChild(child, 5_000);
    }
  }
  return results;
}

/** A second start of the service with one setting changed, for the scenarios it applies to. */
interface Variant {
  /** appended to scenario keys */
  suffix: string;
  /** appended to row labels */
  label: string;
  env: Record<string, string>;
  applies(scenario: Scenario): boolean;
  /** the scenarios run by default (the goals need them); --scenarios can name others */
  byDefault: ReadonlySet<string>;
  /** what the row is, with this setting */
  heat(scenario: Scenario): Scenario['heat'];
}

/**
 * Compiled execution off (the deep-query goal compares against it) and the read caches off (the
 * same searches and fetches with every answer computed from the store: what the caches hide).
 */
function variantsOf(compiledSwitch: RunReport['features']['compiledSwitch'], traceSink: TraceSink): Variant[] {
  const variants: Variant[] = [];
  if (compiledSwitch) {
    variants.push({
      suffix: 'compiled-off',
      label: `${compiledSwitch.env}=${compiledSwitch.off}`,
      env: { [compiledSwitch.env]: compiledSwitch.off },
      applies: (s) => s.kind === 'GraphQL',
      byDefault: new Set(['graphql-deep']),
      heat: (s) => s.heat,
    });
  }
  variants.push({
    suffix: 'caches-off',
    label: 'read caches off',
    env: { READ_CACHE_ENTRIES: '0', READ_CACHE_MB: '0' },
    applies: (s) => s.kind !== 'baseline',
    // The 1-connection pair (first and deepest page) is the only way to make the first page cold;
    // limit 10 and 100 at 50 connections are the commands-per-request goal. The by-id, filter and
    // GraphQL rows with the caches off are left out: the cold rows measure the same paths with the
    // caches on, as deployed.
    byDefault: new Set(['rest-search-10', 'rest-search-100', 'rest-search-100-1c', 'rest-search-100-1c-deepest']),
    heat: () => 'cold, caches off',
  });
  // Traces on, exported over OTLP http/protobuf to a receiver that drops them: against the same
  // rows with traces off (the default), the cost of tracing every request.
  variants.push({
    suffix: 'traces-on',
    label: 'traces on (OTLP http/protobuf)',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: traceSink.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
    applies: (s) => s.kind !== 'baseline',
    byDefault: new Set(['rest-by-id', 'rest-search-100', 'graphql-deep']),
    heat: (s) => s.heat,
  });
  return variants;
}

/** Stops the size when the service died: every later scenario would only count refused connections. */
function assertRunning(service: RunningService, during: string): void {
  const exit = service.exit();
  if (!exit) return;
  throw new Error(
    `the service exited during ${during} (exit code ${exit.code}, signal ${exit.signal}); the rest of this size was not run. ` +
      `Last lines of ${path.relative(REPO, service.logFile)}:\n${tail(fs.readFileSync(service.logFile, 'utf8'), 12)}`,
  );
}

function targetOf(service: RunningService, apiKey: string, hasCommandMetric: boolean): Target {
  const processes = [{ label: 'service', pid: service.child.pid }];
  if (service.storePid !== undefined) processes.push({ label: 'store', pid: service.storePid });
  return { url: service.url, processes, metricsKey: apiKey, hasCommandMetric };
}

interface RunState {
  report: RunReport;
  service?: RunningService;
}

async function benchmarkSize(
  result: SizeRun,
  options: Options,
  state: RunState,
  runDir: string,
  runTag: string,
  baselineBody: BaselineBodies,
): Promise<void> {
  const { report } = state;
  const { size } = result;
  const sizeDir = path.join(runDir, `size-${size}`);
  const dataDir = path.join(sizeDir, 'data');
  fs.mkdirSync(sizeDir, { recursive: true });

  log(`size ${size}: seeding a fresh data directory`);
  result.seed = await seed(dataDir, size, path.join(sizeDir, 'seed.log'));
  log(
    `size ${size}: seeded in ${(result.seed.wallMs / 1000).toFixed(1)} s (${Math.round(result.seed.dataDirBytes / 2 ** 20)} MiB on disk)`,
  );

  // A key for this data directory, created with the keys CLI while no service holds the directory:
  // with its own (very large) budgets, so that its requests are counted as a partner's are; else
  // unlimited; else the demo key the service creates from DEMO_API_KEY at start.
  let apiKey: string;
  const env: Record<string, string> = { ...report.serviceEnv };
  const keysLog = path.join(sizeDir, 'keys.log');
  const budget = benchKeyBudget(report.features.keys);
  if (budget) {
    apiKey = await createBenchKey(dataDir, keysLog, budget);
  } else {
    apiKey = `cdk_${randomBytes(32).toString('base64url')}`;
    env.DEMO_API_KEY = apiKey;
  }
  // While no service holds the directory: how long an operator waits for `npm run keys -- list`.
  if (!options.scenarios || options.scenarios.has(CLI_START)) {
    result.cliStart = await timeCliStart(dataDir, path.join(sizeDir, 'cli-start.log'));
    const { npmMs, nodeMs, rebuilt } = result.cliStart;
    const runs = (list: number[]) => list.map((m) => (m / 1000).toFixed(2)).join(', ');
    log(
      `size ${size}: npm run keys -- list ${runs(npmMs)} s; node dist/src/cli/keys.js list ${runs(nodeMs)} s${rebuilt ? ' (the untimed first run built)' : ''}`,
    );
  }
  const savedListIds = new DemoGenerator({ candidates: size, seed: BOOTSTRAP_SEED, reference: shippedDemoReference() })
    .savedLists()
    .map((l) => l.publicId);
  const wanted = (s: Scenario): boolean => !options.scenarios || options.scenarios.has(s.key);
  // What the seed wrote, regenerated: every id, the listed count and the non-empty combined filters.
  const seeded = seededData(size, BOOTSTRAP_SEED);
  const searchPages = { of100: pagesOf(seeded.listed, 100), of20: pagesOf(seeded.listed, DEEP_QUERY_PAGE) };
  const deepestFullPageOf100 = Math.max(0, Math.floor(seeded.listed / 100) - 1);
  log(
    `size ${size}: ${seeded.listed} listed candidates (${searchPages.of100} pages of 100), ${seeded.combinedFilters.length} non-empty combined filters`,
  );

  const start = async (extraEnv: Record<string, string>, name: string): Promise<RunningService> => {
    log(`size ${size}: starting the service${name}`);
    const service = await startService({
      dataDir,
      env: { ...env, ...extraEnv },
      logFile: path.join(sizeDir, `service${name.replace(/\W+/g, '-')}.log`),
    });
    state.service = service;
    result.serviceStartMs ??= service.startMs;
    log(
      `size ${size}: service up in ${(service.startMs / 1000).toFixed(1)} s at ${service.url} (pid ${service.child.pid}, store pid ${service.storePid ?? 'not found'})`,
    );
    if (report.features.commandMetric === undefined) {
      report.features.commandMetric = (await readCommandCounts(service.url, apiKey)) !== undefined;
      log(`GET /metrics ${report.features.commandMetric ? 'has' : 'has no'} mongodb_commands_total`);
    }
    return service;
  };
  const stop = async (): Promise<void> => {
    const service = state.service;
    if (!service) return;
    state.service = undefined;
    result.lifetimePeak = {
      service: peakRssOf(service.child.pid) ?? 0,
      store: service.storePid ? (peakRssOf(service.storePid) ?? 0) : 0,
    };
    await service.stop();
  };

  // First, while the data is exactly as seeded: scenarios again with one setting changed.
  const traceSink = await startTraceSink();
  const variants = variantsOf(report.features.compiledSwitch, traceSink).map((variant) => ({
    variant,
    scenarios: serviceScenarios({
      apiKey,
      candidateIds: ['-'],
      savedListIds,
      runTag,
      searchPages,
      deepestFullPageOf100,
    })
      .filter((s) => !s.writes && variant.applies(s))
      // By default only what the goals need; --scenarios can ask for the others.
      .filter((s) =>
        options.scenarios
          ? wanted(s) || options.scenarios.has(`${s.key}-${variant.suffix}`)
          : variant.byDefault.has(s.key),
      ),
  }));
  for (const { variant, scenarios } of variants) {
    if (scenarios.length === 0) continue;
    const service = await start(variant.env, ` (${variant.label})`);
    try {
      // The id pool of this service's own answers (the by-id scenario rotates over it).
      const candidateIds = scenarios.some((s) => s.dynamic) ? await candidatePool(service.url, apiKey) : ['-'];
      const context: ScenarioContext = {
        apiKey,
        candidateIds,
        savedListIds,
        runTag: `${runTag}-${size}-${variant.suffix}`,
        searchPages,
        deepestFullPageOf100,
      };
      for (const scenario of serviceScenarios(context).filter((s) =>
        scenarios.some((chosen) => chosen.key === s.key),
      )) {
        const changed: Scenario = {
          ...scenario,
          key: `${scenario.key}-${variant.suffix}`,
          label: `${scenario.label}, ${variant.label}`,
          heat: variant.heat(scenario),
        };
        const m = await measure(
          targetOf(service, apiKey, report.features.commandMetric === true),
          changed,
          String(size),
          options.load,
          log,
        );
        log(summary(m));
        result.variants.push(m);
        assertRunning(service, `"${changed.label}"`);
      }
    } finally {
      await stop();
    }
    if (variant.suffix === 'traces-on') {
      const { exports, bytes } = traceSink.received();
      log(`size ${size}: the trace receiver got ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB`);
    }
  }
  await traceSink.stop();

  // Then the cold rows, on the data as seeded, with caches that cannot hold their rotations.
  const searchFilters = {
    locationPages: seeded.locationPages,
    locationOccupation: seeded.locationOccupationFilters,
    employer: seeded.employerFilters,
    keywords: seeded.keywords,
  };
  const cold = coldScenarios({
    apiKey,
    everyCandidateId: seeded.candidateIds,
    searchPages,
    combinedFilters: seeded.combinedFilters,
    searchFilters,
  }).filter(wanted);
  if (cold.length > 0) {
    const rotations: Rotations = {
      ids: seeded.candidateIds.length,
      listed: seeded.listed,
      pagesOf100: searchPages.of100,
      pagesOf20: searchPages.of20,
      combinedFilters: seeded.combinedFilters.length,
      searchFilters: {
        locationPages: searchFilters.locationPages.length,
        locationOccupation: searchFilters.locationOccupation.length,
        employer: searchFilters.employer.length,
        keywords: searchFilters.keywords.length,
      },
    };
    const defaults = readCacheDefaults();
    const caches = coldCacheSettings(defaults, rotations);
    result.coldCaches = { ...caches, defaults };
    const asDeployed = caches.entries === defaults.entries && caches.mb === defaults.mb;
    const service = await start(
      asDeployed ? {} : { READ_CACHE_ENTRIES: String(caches.entries), READ_CACHE_MB: String(caches.mb) },
      ` (cold rows, READ_CACHE_ENTRIES=${caches.entries} READ_CACHE_MB=${caches.mb})`,
    );
    try {
      // The rotations come from the regenerated seed: the store must agree, or deep pages would be empty.
      const { json } = await getJson(`${service.url}/v1/candidates?limit=1`, apiKey);
      const total = (json as { totalElements?: number } | undefined)?.totalElements;
      if (total !== seeded.listed) {
        report.problems.push(
          `Size ${size}: the store lists ${total} candidates, the regenerated seed ${seeded.listed}; the cold rows' pages and filters may not match the data.`,
        );
      }
      for (const scenario of cold) {
        const m = await measure(
          targetOf(service, apiKey, report.features.commandMetric === true),
          scenario,
          String(size),
          options.load,
          log,
        );
        const note = colderNote(scenario.key, m, rotations, caches);
        if (note) m.notes.push(note);
        log(summary(m));
        result.cold.push(m);
        assertRunning(service, `"${scenario.label}"`);
      }
      await measurePeer(
        service,
        apiKey,
        seeded.candidateIds,
        searchPages.of100,
        cold,
        result,
        report,
        sizeDir,
        options,
      );
    } finally {
      await stop();
    }
  }

  const service = await start({}, '');
  try {
    const candidateIds = await candidatePool(service.url, apiKey).catch(async (error: unknown) => {
      // A crash shows as a refused fetch a moment before the exit event.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assertRunning(service, 'the fetch of the id pool');
      throw error;
    });
    log(`size ${size}: ${candidateIds.length} candidate ids in the pool, ${savedListIds.length} saved lists`);
    const context: ScenarioContext = { apiKey, candidateIds, savedListIds, runTag: `${runTag}-${size}` };
    if (!baselineBody.file) {
      const body = await typicalByIdBody(service.url, apiKey, candidateIds);
      baselineBody.file = path.join(runDir, 'by-id-body.json');
      fs.writeFileSync(baselineBody.file, body);
      baselineBody.context = context;
      report.baselineBodyBytes = body.length;
      const search = await fetch(`${service.url}/v1/candidates?limit=100`, {
        headers: { 'x-api-key': apiKey },
        signal: AbortSignal.timeout(60_000),
      });
      if (search.status === 200) {
        const searchBody = Buffer.from(await search.arrayBuffer());
        baselineBody.searchFile = path.join(runDir, 'search-100-body.json');
        fs.writeFileSync(baselineBody.searchFile, searchBody);
        report.searchBodyBytes = searchBody.length;
        const searchGzip = gzipSync(searchBody);
        baselineBody.searchGzipFile = path.join(runDir, 'search-100-body.json.gz');
        fs.writeFileSync(baselineBody.searchGzipFile, searchGzip);
        report.searchGzipBodyBytes = searchGzip.length;
      }
    }
    const scenarios = serviceScenarios(context).filter(wanted);
    // Reads first, on the data exactly as seeded; writes last.
    const ordered = [...scenarios.filter((s) => !s.writes), ...scenarios.filter((s) => s.writes)];
    for (const scenario of ordered) {
      const m = await measure(
        targetOf(service, apiKey, report.features.commandMetric === true),
        scenario,
        String(size),
        options.load,
        log,
      );
      log(summary(m));
      result.measurements.push(m);
      assertRunning(service, `"${scenario.label}"`);
    }
    // Before the import, which doubles the candidates of the store.
    if (!options.scenarios || options.scenarios.has(BACKUP)) {
      result.backup = await benchBackup(
        service,
        apiKey,
        candidateIds,
        dataDir,
        sizeDir,
        env,
        options.load.durationS * 1000,
        options.backupRegistrations,
        (line) => log(`size ${size}: ${line}`),
      );
      assertRunning(service, 'the backup');
    }
    // Last: it doubles the candidates of the store.
    if (!options.scenarios || options.scenarios.has(IMPORT)) {
      result.import = await benchImport(service.url, apiKey, dataDir, sizeDir, (line) => log(`size ${size}: ${line}`));
      assertRunning(service, 'the import');
    }
  } finally {
    await stop();
  }
}

/**
 * The hand-written peer on the cold service's store: its answers to a sample of the cold rows'
 * requests (pages of 100 spread over the search, ids spread over the store) checked byte for
 * byte against the service's, then the same cold rotations measured against it. A peer that
 * answers otherwise is not measured (its rows say why).
 */
async function measurePeer(
  service: RunningService,
  apiKey: string,
  candidateIds: readonly string[],
  pagesOf100: number,
  cold: readonly Scenario[],
  result: SizeRun,
  report: RunReport,
  sizeDir: string,
  options: Options,
): Promise<void> {
  const rows = peerScenarios(
    coldScenarios({
      apiKey,
      everyCandidateId: candidateIds,
      searchPages: { of100: pagesOf100, of20: 1 },
      combinedFilters: ['-'],
      searchFilters: { locationPages: ['-'], locationOccupation: ['-'], employer: ['-'], keywords: ['-'] },
    }),
  ).filter((row) => cold.some((c) => PEER_ROW_OF[row.key] === c.key));
  if (rows.length === 0) return;
  const socket = service.storePid === undefined ? undefined : storeSocketOf(service.storePid);
  if (socket === undefined) {
    report.problems.push(`Size ${result.size}: the store's socket was not found; the peer rows were not run.`);
    return;
  }
  let peer: Awaited<ReturnType<typeof startPeer>>;
  try {
    peer = await startPeer(socket, 'candidate_directory', REPO, path.join(sizeDir, 'peer.log'));
  } catch (error) {
    // The service's rows stand without it.
    report.problems.push(`Size ${result.size}: the peer did not start (${String(error)}); its rows were not run.`);
    return;
  }
  try {
    const sample = [
      ...[0, 1, Math.floor(pagesOf100 / 2), Math.max(0, pagesOf100 - 1)].map(
        (page) => `/v1/candidates?limit=100&page=${page}`,
      ),
      ...Array.from(
        { length: 40 },
        (_, i) => `/v1/candidates/${candidateIds[Math.floor((i * candidateIds.length) / 40)]}`,
      ),
    ];
    const differing = await differingAnswers(service.url, peer.url, apiKey, sample);
    log(
      `size ${result.size}: the peer's answers to ${sample.length} requests: ${differing.length === 0 ? "byte-identical to the service's" : `${differing.length} differ`}`,
    );
    if (differing.length > 0) {
      report.problems.push(
        `Size ${result.size}: the peer's answers differ from the service's (${differing.length} of ${sample.length}, e.g. ${differing[0]}); its rows were not measured.`,
      );
      return;
    }
    const processes = [{ label: 'service', pid: peer.child.pid }];
    if (service.storePid !== undefined) processes.push({ label: 'store', pid: service.storePid });
    for (const row of rows) {
      const m = await measure(
        { url: peer.url, processes, hasCommandMetric: false },
        row,
        String(result.size),
        options.load,
        log,
      );
      m.notes.push(
        `the peer's answers to ${sample.length} of these requests were checked byte-identical to the service's`,
      );
      log(summary(m));
      result.cold.push(m);
    }
  } finally {
    await stopChild(peer.child, 5_000);
  }
}

const PEER_ROW_OF: Readonly<Record<string, string>> = {
  'peer-search-100-cold': 'rest-search-100-cold',
  'peer-by-id-cold': 'rest-by-id-cold',
};

/**
 * Why a cold row was cold, or a warning when it may not have been: its distinct answers, the
 * requests sent (the preflight included) and what the caches of its service could hold.
 */
function colderNote(key: string, m: Measurement, rotations: Rotations, caches: CacheSettings): string | undefined {
  if (m.failed) return undefined;
  const sent = m.sent + 1;
  const pages = Math.ceil(caches.entries / 10);
  const answers = Math.floor((caches.mb * 2 ** 20) / Math.max(1, m.responseBytes));
  const rest = m.scenario.kind === 'REST';
  const of = (distinct: number, entryCapacity: number, what: string): string => {
    const holds = entryCapacity >= distinct || (rest && answers >= distinct);
    const repeats =
      sent > distinct
        ? `; the rotation wrapped (${(sent / distinct).toFixed(1)} passes)`
        : '; no answer was asked twice';
    const capacity = `the caches hold ${entryCapacity} ${what}${rest ? ` and about ${answers} answers of ${m.responseBytes} bytes` : ''}`;
    return holds
      ? `⚠ not cold: ${distinct} distinct answers, ${sent} requests, and ${capacity}: repeated answers could come from them`
      : `cold: ${distinct} distinct answers, ${sent} requests${repeats}; ${capacity}, fewer than the rotation, so each answer is evicted before its next turn`;
  };
  switch (key) {
    case 'rest-by-id-cold':
      return of(rotations.ids, caches.entries, 'candidates');
    case 'rest-search-100-cold':
    case 'rest-search-100-stride-cold':
      return of(rotations.pagesOf100, pages, 'search pages');
    case 'rest-filter-combined-cold':
      return of(rotations.combinedFilters, pages, 'search pages');
    case 'rest-filter-location-cold':
      return of(rotations.searchFilters.locationPages, pages, 'search pages');
    case 'rest-filter-location-occupation-cold':
      return of(rotations.searchFilters.locationOccupation, pages, 'search pages');
    case 'rest-filter-employer-cold':
      return of(rotations.searchFilters.employer, pages, 'search pages');
    case 'rest-keyword-cold':
      return of(rotations.searchFilters.keywords, pages, 'search pages');
    case 'graphql-deep-cold': {
      // GraphQL search pages are not kept (README "Read caches"): only its candidates could be.
      const holds = caches.entries >= rotations.listed;
      const repeats =
        sent > rotations.pagesOf20
          ? `; the rotation wrapped (${(sent / rotations.pagesOf20).toFixed(1)} passes)`
          : '; no page was asked twice';
      return holds
        ? `⚠ not cold: the candidate cache holds ${caches.entries} candidates, every one of the ${rotations.listed} the pages return`
        : `cold: ${rotations.pagesOf20} distinct pages, ${sent} requests${repeats}; GraphQL search pages are not kept, and the candidate cache holds ${caches.entries} of the ${rotations.listed} candidates the pages return`;
    }
    default:
      return undefined;
  }
}

async function main(): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const opts = options;

  const abort = (reason: string, code: number): void => {
    process.stderr.write(`\nbench: ${reason}; killing every child process\n`);
    stopLoad();
    killAllSync();
    process.exit(code);
  };
  process.once('SIGINT', () => abort('interrupted', 130));
  process.once('SIGTERM', () => abort('terminated', 143));
  process.once('uncaughtException', (error) => abort(`uncaught ${error.stack ?? error.message}`, 1));
  process.once('exit', () => killAllSync());
  setTimeout(() => abort(`still running after --max-minutes ${opts.maxMinutes}`, 1), opts.maxMinutes * 60_000).unref();

  await startReaper();
  const runTag = `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
  const runDir = path.join(REPO, '.bench', `run-${runTag}`);
  fs.mkdirSync(runDir, { recursive: true });
  log(
    `benchmark run ${runTag}: sizes ${opts.sizes.join(', ')}, ${opts.load.connections} connections, ${opts.load.warmupS} s warm-up + ${opts.load.durationS} s per scenario; logs in ${path.relative(REPO, runDir)}`,
  );

  const idle = await waitForQuietMachine([], FOREIGN_CPU_NOTE, 3_000);
  if (!idle.quiet)
    log(
      `WARNING: other processes use ${idle.cores.toFixed(2)} of ${machine().cpus} cores right now; the figures will be disturbed (marked † where it happens)`,
    );

  const keys = await keysCliFeatures(path.join(runDir, 'keys-help.log'));
  const compiledSwitch = opts.compiledOff ?? compiledExecutionSwitch();
  const report: RunReport = {
    date: new Date(),
    machine: machine(),
    commit: commit(),
    settings: { ...opts.load, sizes: opts.sizes },
    serviceEnv: {
      // Only the demo key (no budgets of its own) needs the service-wide budgets raised.
      ...(keys.rateLimit || keys.unlimited ? {} : { RATE_LIMIT_READS: '1000000000', RATE_LIMIT_WRITES: '1000000000' }),
      // The persisted REST search has depth 16 and cost ~20,700; see BENCHMARKS.md.
      GRAPHQL_MAX_DEPTH: '20',
      GRAPHQL_MAX_COST: '100000',
      // The statistics rows send thousands of distinct queries: a privacy budget no run exhausts.
      STATISTICS_BUDGET: '1000000',
      ...opts.serviceEnv,
    },
    features: { commandMetric: undefined, keys, compiledSwitch },
    keyKind: keys.rateLimit
      ? `created per data directory with \`keys create --permissions ADMIN --rate-limit ${BENCH_KEY_BUDGETS}\` while the service is stopped: its own budgets per minute (reads/writes), far above what a run sends, so every request is counted by the rate limiter as a partner's is, and none is refused`
      : keys.unlimited
        ? 'created per data directory with `keys create --permissions ADMIN --unlimited` while the service is stopped (the keys CLI has no `--rate-limit`: the rate limiter counts nothing of this key)'
        : 'the demo key from `DEMO_API_KEY` (every permission; the keys CLI has neither `--rate-limit` nor `--unlimited`), with RATE_LIMIT_* raised',
    sizes: [],
    baselines: [],
    wallS: 0,
    leftovers: [],
    problems: [],
  };
  log(
    `keys CLI --rate-limit: ${keys.rateLimit ? 'yes' : 'no'}, --unlimited: ${keys.unlimited ? 'yes' : 'no'}; compiled-execution switch: ${compiledSwitch ? `${compiledSwitch.env}=${compiledSwitch.off}` : 'none'}`,
  );

  const state: RunState = { report };
  const baselineBody: BaselineBodies = {};
  // The store engine part seeds data directories of its own; the rest runs when anything else is asked for.
  const rest = !opts.scenarios || [...opts.scenarios].some((key) => key !== STORE_ENGINE);
  for (const [i, size] of (rest ? opts.sizes : []).entries()) {
    // Pushed first: what a size measured before a failure is still reported.
    const result: SizeRun = { size, measurements: [], variants: [], cold: [] };
    report.sizes.push(result);
    try {
      await benchmarkSize(result, opts, state, runDir, runTag, baselineBody);
    } catch (error) {
      result.failure = error instanceof Error ? error.message : String(error);
      log(`size ${size} failed: ${result.failure}`);
    }
    if (!opts.keepData) fs.rmSync(path.join(runDir, `size-${size}`, 'data'), { recursive: true, force: true });
    // The baselines run once, with nothing else running, after the first size gave them a real body.
    if (i === 0 && opts.baselines) {
      if (baselineBody.file && baselineBody.context) {
        try {
          report.baselines = await runBaselines(baselineBody as Required<BaselineBodies>, opts, runDir);
        } catch (error) {
          report.problems.push(`Baselines failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      } else {
        report.problems.push('Baselines not run: no by-id response could be fetched from the service.');
      }
    }
  }

  const storeEngineRuns: StoreEngineRun[] = [];
  if (opts.scenarios?.has(STORE_ENGINE)) {
    report.storeEngine = storeEngineRuns;
    for (const size of opts.sizes) {
      const run: StoreEngineRun = { size, loads: [], notes: [] };
      storeEngineRuns.push(run);
      const sizeDir = path.join(runDir, `store-engine-${size}`);
      try {
        await benchStoreEngine(
          run,
          {
            serviceEnv: report.serviceEnv,
            keyBudget: benchKeyBudget(keys),
            quietWaitS: opts.load.quietWaitS,
            runTag,
          },
          sizeDir,
          log,
        );
      } catch (error) {
        run.failure = error instanceof Error ? error.message : String(error);
        log(`store engine, size ${size} failed: ${run.failure}`);
      }
      // At a million candidates a data directory takes gigabytes.
      if (!opts.keepData) fs.rmSync(path.join(sizeDir, 'data'), { recursive: true, force: true });
    }
  }

  report.wallS = (Date.now() - startedAt) / 1000;
  report.leftovers = leftovers().map((p) => `pid ${p.pid} \`${p.command}\``);
  if (report.leftovers.length > 0) killAllSync();
  fs.writeFileSync(path.join(runDir, 'results.json'), JSON.stringify(report, null, 2));

  if (rest) process.stdout.write(`\n${resultsTable(report)}\n\nGoals:\n${goals(report).join('\n')}\n`);
  if (storeEngineRuns.length > 0)
    process.stdout.write(`\nStore engine goals:\n${storeEngineGoalsTable(storeEngineRuns)}\n`);
  if (opts.out) {
    fs.writeFileSync(opts.out, markdown(report));
    log(`wrote ${path.relative(REPO, opts.out)}`);
  }
  log(
    report.leftovers.length === 0
      ? 'no child process left running'
      : `LEFTOVER processes (killed now): ${report.leftovers.join('; ')}`,
  );
  const failed =
    report.sizes.some((s) => s.failure) || storeEngineRuns.some((s) => s.failure) || report.leftovers.length > 0;
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    killAllSync();
    stopReaper();
    process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    killAllSync();
    stopReaper();
    process.exit(1);
  },
);
