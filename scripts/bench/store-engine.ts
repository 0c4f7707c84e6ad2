import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FOREIGN_CPU_NOTE, percentile } from './load';
import {
  cpuMsOf,
  foreignCpu,
  foreignCpuAroundChild,
  sampleMemory,
  waitForQuietMachine,
  waitUntilIdle,
  type MemoryPeaks,
} from './probe';
import { shuffled } from './rotation';
import { registration } from './scenarios';
import {
  createBenchKey,
  numericDefault,
  seed,
  startService,
  tail,
  timeCliStart,
  type CliStartResult,
  type RunningService,
  type SeedResult,
} from './service';

/**
 * The store engine part of `npm run bench` (`--scenarios store-engine`): per size, a fresh data
 * directory seeded, the service started on it for the first time, the keys CLI beside it, the
 * store child's CPU and memory over cold pages of 100 right after that start, after 10,000
 * registrations and after a restart. What an engine that opens its data without loading it
 * should keep flat as the store grows.
 */

/** The --scenarios key of this part. */
export const STORE_ENGINE = 'store-engine';

/** Registrations between the first and the second cold page load. */
export const REGISTRATIONS = 10_000;
/** Concurrent registrations: enough to keep service and store busy on 2 cores. */
export const REGISTRATION_CONCURRENCY = 8;
/**
 * Distinct pages of 100 per cold page load, spread over the whole search; the same at every size
 * that has three times as many. A hundred count the store's CPU to a tenth of a millisecond.
 */
export const PAGES_PER_LOAD = 100;
/** Below this many pages per load, each load asks for every page instead (pages then repeat across loads). */
const FEWEST_DISJOINT_PAGES = 50;
/**
 * A load stops sending after this long (its pages are asked in a shuffled order, so those sent
 * are still spread over the store): a store that is slow at a size must not take the run's hour.
 */
export const LOAD_BUDGET_MS = 120_000;
/** Timed runs of `npm run keys -- list` (and of the CLI alone), after one untimed run. */
export const KEYS_LIST_RUNS = 5;
/** How long the store's CPU is read while idle before each load. */
const IDLE_SAMPLE_MS = 2_000;
/** Clock ticks of /proc/<pid>/stat (USER_HZ): the resolution of a CPU time, in ms. */
export const CPU_TICK_MS = 10;

export const LOADS = [
  'after the seed and first start',
  `after ${REGISTRATIONS.toLocaleString('en-GB')} registrations`,
  'after a restart',
] as const;
export type LoadState = (typeof LOADS)[number];

/** One cold page load: distinct pages of 100, one at a time (1 connection). */
export interface ColdPageLoad {
  state: LoadState;
  /** pages requested, each once */
  pages: number;
  /** the load stopped after LOAD_BUDGET_MS, before this many pages it meant to ask for */
  cutShortOf?: number;
  /** pages of 100 the search had then */
  totalPages: number;
  /** the store's pages were too few for each load to have its own: every load asked for every page */
  repeatsEarlierLoads: boolean;
  /** utime + stime of the store child (/proc/<pid>/stat) from before the first request until idle after the last */
  storeCpuMs?: number;
  /** the same of the service process */
  serviceCpuMs: number;
  /** latency of each request as the harness saw it (sent to body read), ms */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  wallMs: number;
  /** peaks of the store child's RssAnon and VmRSS, sampled every 200 ms from the first request until idle */
  storeMemory?: MemoryPeaks;
  /** CPU cores other processes of the machine used meanwhile */
  foreignCores: number;
  /** the store child's CPU per second of an idle second before the load: what the waits around it add */
  storeIdleCpuMsPerS?: number;
  /** requests sent again after their connection failed before any answer (the page stayed cold) */
  retried: number;
}

export interface RegistrationRun {
  sent: number;
  /** answers 201 */
  created: number;
  /** other answers by status ('error' for a failed request) */
  failures: Record<string, number>;
  wallMs: number;
}

/** A start of the service: spawn of `node dist/src/app/main.js` to its first /healthz 200. */
export interface ServiceStart {
  ms: number;
  /** CPU cores other processes of the machine used meanwhile */
  foreignCores: number;
}

export interface StoreEngineRun {
  size: number;
  seed?: SeedResult;
  /** wall time of a seed command that failed */
  seedFailedMs?: number;
  /** on the data directory as seeded */
  firstStart?: ServiceStart;
  /** `npm run keys -- list` beside the running service */
  keysList?: CliStartResult & { foreignCores: number };
  /** the cold page loads, in the order of LOADS */
  loads: ColdPageLoad[];
  registrations?: RegistrationRun;
  /** after a stop */
  restart?: ServiceStart;
  notes: string[];
  /** why this size stopped early, if it did */
  failure?: string;
}

export interface StoreEngineSettings {
  serviceEnv: Record<string, string>;
  /** `keys create` arguments of the key's budget; undefined: the demo key from DEMO_API_KEY */
  keyBudget: string[] | undefined;
  /** seconds to wait for a quiet machine before each measurement (0: don't) */
  quietWaitS: number;
  runTag: string;
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * `count` pages of `total`, spread evenly over all of them, each moved on by `offset`: with
 * count ≤ total / LOADS.length, the loads (offsets 0, 1, 2) never ask for the same page.
 */
export function spreadPages(total: number, count: number, offset: number): number[] {
  return Array.from({ length: count }, (_, i) => Math.min(total - 1, Math.floor((i * total) / count) + offset));
}

function pagesOfLoad(totalPages: number, load: number): { pages: number[]; repeats: boolean } {
  const disjoint = Math.min(PAGES_PER_LOAD, Math.floor(totalPages / LOADS.length));
  if (disjoint >= FEWEST_DISJOINT_PAGES)
    return { pages: shuffled(spreadPages(totalPages, disjoint, load)), repeats: false };
  // Too few pages for three loads of their own: fewer requests would leave only a few clock ticks of CPU to count.
  return { pages: shuffled(spreadPages(totalPages, Math.min(PAGES_PER_LOAD, totalPages), 0)), repeats: load > 0 };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The message of a failed fetch with its cause (undici says only "fetch failed"). */
function fetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * GET `url`; once more when the connection failed before an answer (a kept-alive connection the
 * server closed as the request went out): the service never saw it, so the page is still cold.
 */
async function getPage(url: string, apiKey: string): Promise<{ status: number; body: string; retried: boolean }> {
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(60_000) });
    } catch (error) {
      if (attempt > 0 || (error instanceof Error && error.name === 'TimeoutError'))
        throw new Error(`GET ${url}: ${fetchError(error)}`, { cause: error });
      continue;
    }
    return { status: response.status, body: await response.text(), retried: attempt > 0 };
  }
}

/**
 * The part for one size, into `run` as it goes (what was measured before a failure is kept).
 * `sizeDir` receives the data directory and the logs; the caller removes the data.
 */
export async function benchStoreEngine(
  run: StoreEngineRun,
  settings: StoreEngineSettings,
  sizeDir: string,
  log: (line: string) => void,
): Promise<void> {
  const { size } = run;
  const say = (line: string): void => log(`store engine, size ${size}: ${line}`);
  const dataDir = path.join(sizeDir, 'data');
  fs.mkdirSync(sizeDir, { recursive: true });
  const quiet = async (pids: readonly number[]): Promise<void> => {
    if (settings.quietWaitS === 0) return;
    const waited = await waitForQuietMachine(pids, FOREIGN_CPU_NOTE, settings.quietWaitS * 1000);
    if (!waited.quiet) say(`other processes still use ${waited.cores.toFixed(2)} cores; going on`);
  };

  await quiet([]);
  say('seeding a fresh data directory');
  const seedStarted = performance.now();
  try {
    run.seed = await seed(dataDir, size, path.join(sizeDir, 'seed.log'));
  } catch (error) {
    run.seedFailedMs = performance.now() - seedStarted;
    throw error;
  }
  say(
    `seed ${(run.seed.wallMs / 1000).toFixed(1)} s wall${run.seed.reportedMs !== undefined ? ` (self-reported ${(run.seed.reportedMs / 1000).toFixed(1)} s)` : ''}, ` +
      `${Math.round(run.seed.dataDirBytes / 2 ** 20)} MiB on disk, other processes ${run.seed.foreignCores.toFixed(2)} cores`,
  );

  // Without a budget flag in the keys CLI the key must exist before the start (DEMO_API_KEY).
  const env = { ...settings.serviceEnv };
  const flushWait = flushWaitMs(env);
  let apiKey: string | undefined;
  if (!settings.keyBudget) {
    apiKey = `cdk_${randomBytes(32).toString('base64url')}`;
    env.DEMO_API_KEY = apiKey;
  }
  const start = async (name: string): Promise<{ service: RunningService; timed: ServiceStart }> => {
    await quiet([]);
    const foreign = foreignCpuAroundChild();
    const service = await startService({
      dataDir,
      env,
      logFile: path.join(sizeDir, `service-${name}.log`),
      // Finer than the default: at 2,000 candidates a start takes about a second.
      pollMs: 20,
    });
    const foreignCores = foreign.stop(pidsOf(service));
    if (service.storePid === undefined)
      run.notes.push(`the store child of the ${name} start was not found: no store CPU or memory of its loads`);
    return { service, timed: { ms: service.startMs, foreignCores } };
  };

  let { service, timed } = await start('first');
  try {
    run.firstStart = timed;
    say(
      `first start ${(timed.ms / 1000).toFixed(2)} s (spawn to /healthz 200; pid ${service.child.pid}, store pid ${service.storePid ?? 'not found'}); other processes ${timed.foreignCores.toFixed(2)} cores`,
    );
    // Created beside the running service (the CLI connects to its store), so that the first start
    // came right after the seed.
    apiKey ??= await createBenchKey(dataDir, path.join(sizeDir, 'keys.log'), settings.keyBudget!);
    const key = apiKey;

    run.loads.push(await coldPageLoad(service, key, 0, flushWait, say, quiet));

    await quiet(pidsOf(service));
    const foreign = foreignCpuAroundChild(pidsOf(service));
    const keysList = await timeCliStart(dataDir, path.join(sizeDir, 'keys-list.log'), KEYS_LIST_RUNS);
    run.keysList = { ...keysList, foreignCores: foreign.stop() };
    const seconds = (list: number[]): string => list.map((ms) => (ms / 1000).toFixed(2)).join(', ');
    say(
      `npm run keys -- list beside the service: median ${(median(run.keysList.npmMs)! / 1000).toFixed(2)} s (${seconds(run.keysList.npmMs)}); ` +
        `node dist/src/cli/keys.js list: median ${(median(run.keysList.nodeMs)! / 1000).toFixed(2)} s (${seconds(run.keysList.nodeMs)})${run.keysList.rebuilt ? '; the untimed first run built' : ''}` +
        (run.keysList.builtDuring
          ? `; ${run.keysList.builtDuring} timed npm runs built (a source changed meanwhile)`
          : '') +
        `; other processes ${run.keysList.foreignCores.toFixed(2)} cores`,
    );

    run.registrations = await register(service.url, key, `${settings.runTag}-${size}`);
    const { created, sent, wallMs, failures } = run.registrations;
    say(
      `${created} of ${sent} registrations answered 201 in ${(wallMs / 1000).toFixed(1)} s (${Math.round(sent / (wallMs / 1000))}/s at ${REGISTRATION_CONCURRENCY} concurrent)` +
        (created < sent ? `; others: ${JSON.stringify(failures)}` : ''),
    );
    if (created < sent)
      run.notes.push(`${sent - created} of ${sent} registrations failed: ${JSON.stringify(failures)}`);
    assertRunning(service);
    run.loads.push(await coldPageLoad(service, key, 1, flushWait, say, quiet));
    assertRunning(service);

    await service.stop();
    ({ service, timed } = await start('restart'));
    run.restart = timed;
    say(
      `restart ${(timed.ms / 1000).toFixed(2)} s (stopped, then spawn to /healthz 200); other processes ${timed.foreignCores.toFixed(2)} cores`,
    );
    run.loads.push(await coldPageLoad(service, key, 2, flushWait, say, quiet));
    assertRunning(service);
  } finally {
    await service.stop();
  }
}

/** The service and its store child. */
function pidsOf(service: RunningService): number[] {
  return [service.child.pid, ...(service.storePid !== undefined ? [service.storePid] : [])];
}

function assertRunning(service: RunningService): void {
  const exit = service.exit();
  if (exit)
    throw new Error(
      `the service exited (exit code ${exit.code}, signal ${exit.signal}); last lines of its log:\n${tail(fs.readFileSync(service.logFile, 'utf8'), 12)}`,
    );
}

async function totalPagesOf(url: string, apiKey: string): Promise<number> {
  // limit=1: not one of the pages of 100 the load asks for, so none of them is answered before it.
  const { status, body } = await getPage(`${url}/v1/candidates?limit=1`, apiKey);
  if (status !== 200) throw new Error(`GET /v1/candidates?limit=1 answered ${status}: ${body.slice(0, 200)}`);
  const { totalElements } = JSON.parse(body) as { totalElements: number };
  return Math.max(1, Math.ceil(totalElements / 100));
}

/**
 * What the audit events and rate-limit counts of the last requests need to reach the store:
 * they are written in batches after the answers, and are part of what a page costs the store.
 */
function flushWaitMs(serviceEnv: Record<string, string>): number {
  const setting = (env: string): number => Number(serviceEnv[env] ?? numericDefault(env));
  return Math.max(setting('AUDIT_FLUSH_MS'), setting('RATE_LIMIT_FLUSH_MS')) + 300;
}

/**
 * Load `state` (index into LOADS): distinct pages of 100 of the unfiltered search, spread over all
 * of it, one request at a time; the store child's and the service's CPU time from an idle server
 * before the first request to an idle server after the last (its audit batches written), and the
 * store's memory sampled throughout.
 */
async function coldPageLoad(
  service: RunningService,
  apiKey: string,
  state: number,
  flushWait: number,
  say: (line: string) => void,
  quiet: (pids: readonly number[]) => Promise<void>,
): Promise<ColdPageLoad> {
  const totalPages = await totalPagesOf(service.url, apiKey);
  const { pages, repeats } = pagesOfLoad(totalPages, state);
  const storePid = service.storePid;
  const pids = pidsOf(service);
  await waitUntilIdle(pids);
  await quiet(pids);
  const idleBefore = storePid !== undefined ? cpuMsOf(storePid) : undefined;
  const idleStarted = performance.now();
  await sleep(IDLE_SAMPLE_MS);
  const idleAfter = storePid !== undefined ? cpuMsOf(storePid) : undefined;
  const storeIdleCpuMsPerS =
    idleBefore !== undefined && idleAfter !== undefined
      ? ((idleAfter - idleBefore) * 1000) / (performance.now() - idleStarted)
      : undefined;

  const memory = storePid !== undefined ? sampleMemory(storePid) : undefined;
  const foreign = foreignCpu(pids);
  const storeBefore = storePid !== undefined ? cpuMsOf(storePid) : undefined;
  const serviceBefore = cpuMsOf(service.child.pid) ?? 0;
  const latencies: number[] = [];
  let retried = 0;
  const started = performance.now();
  try {
    for (const page of pages) {
      if (performance.now() - started > LOAD_BUDGET_MS) break;
      const sent = performance.now();
      const answer = await getPage(`${service.url}/v1/candidates?limit=100&page=${page}`, apiKey);
      latencies.push(performance.now() - sent);
      if (answer.retried) retried++;
      if (answer.status !== 200)
        throw new Error(
          `GET /v1/candidates?limit=100&page=${page} answered ${answer.status}: ${answer.body.slice(0, 200)}`,
        );
      if (answer.body.includes('"content":[]'))
        throw new Error(`GET /v1/candidates?limit=100&page=${page} answered an empty page (of ${totalPages})`);
    }
  } catch (error) {
    memory?.stop();
    // A failed request is most often the service gone: say so, with its last words.
    assertRunning(service);
    throw error;
  }
  const wallMs = performance.now() - started;
  await sleep(flushWait);
  await waitUntilIdle(pids);
  const storeAfter = storePid !== undefined ? cpuMsOf(storePid) : undefined;
  const serviceCpuMs = (cpuMsOf(service.child.pid) ?? serviceBefore) - serviceBefore;
  const foreignCores = foreign.stop().cores;
  const storeMemory = memory?.stop();

  latencies.sort((a, b) => a - b);
  const load: ColdPageLoad = {
    state: LOADS[state],
    pages: latencies.length,
    ...(latencies.length < pages.length ? { cutShortOf: pages.length } : {}),
    totalPages,
    repeatsEarlierLoads: repeats,
    storeCpuMs: storeBefore !== undefined && storeAfter !== undefined ? storeAfter - storeBefore : undefined,
    serviceCpuMs,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies[latencies.length - 1],
    wallMs,
    storeMemory,
    foreignCores,
    storeIdleCpuMsPerS,
    retried,
  };
  const perPage = (ms: number | undefined): string =>
    ms === undefined ? 'not measured' : `${(ms / load.pages).toFixed(2)} ms`;
  const mib = (bytes: number | undefined): string => (bytes === undefined ? '—' : String(Math.round(bytes / 2 ** 20)));
  say(
    `cold pages ${load.state}: ${load.pages} distinct pages of ${totalPages}${repeats ? ' (the same as an earlier load: too few pages)' : ''}` +
      `${load.cutShortOf !== undefined ? ` (stopped after ${LOAD_BUDGET_MS / 1000} s, of ${load.cutShortOf})` : ''}; ` +
      `store CPU ${perPage(load.storeCpuMs)}/page (${load.storeCpuMs ?? '—'} ms, ± ${(CPU_TICK_MS / load.pages).toFixed(2)}), service CPU ${perPage(serviceCpuMs)}/page; ` +
      `p50 ${load.p50Ms.toFixed(1)} ms, p99 ${load.p99Ms.toFixed(1)} ms, max ${load.maxMs.toFixed(1)} ms; ` +
      `store RssAnon peak ${mib(storeMemory?.rssAnon)} MiB, VmRSS peak ${mib(storeMemory?.vmRss)} MiB (${storeMemory?.samples ?? 0} samples); ` +
      `store CPU when idle ${storeIdleCpuMsPerS?.toFixed(1) ?? '—'} ms/s; other processes ${foreignCores.toFixed(2)} cores` +
      (retried > 0 ? `; ${retried} requests sent again after their connection failed` : ''),
  );
  return load;
}

/** REGISTRATIONS registrations with unique e-mails, REGISTRATION_CONCURRENCY at a time. */
async function register(url: string, apiKey: string, tag: string): Promise<RegistrationRun> {
  const result: RegistrationRun = { sent: 0, created: 0, failures: {}, wallMs: 0 };
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < REGISTRATIONS) {
      const i = next++;
      result.sent++;
      let status: string;
      try {
        const response = await fetch(`${url}/v1/candidates/register`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(registration(`store-engine-${tag}-${i}@example.org`)),
          signal: AbortSignal.timeout(60_000),
        });
        await response.arrayBuffer();
        status = String(response.status);
      } catch {
        status = 'error';
      }
      if (status === '201') result.created++;
      else result.failures[status] = (result.failures[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: REGISTRATION_CONCURRENCY }, worker));
  result.wallMs = performance.now() - started;
  return result;
}
