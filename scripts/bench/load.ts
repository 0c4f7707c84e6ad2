import autocannon from 'autocannon';
import { difference, readCommandCounts, type CommandCounts } from './metrics';
import { cpuMsOf, foreignCpu, sampleRss, waitForQuietMachine, waitUntilIdle, type RssPeaks } from './probe';
import type { HttpRequest, Scenario } from './scenarios';

export interface LoadSettings {
  connections: number;
  durationS: number;
  warmupS: number;
  /** autocannon's per-request timeout; a request taking longer counts as a timeout (an error) */
  timeoutS: number;
  /** how long to wait, before each scenario, for other processes of the machine to calm down */
  quietWaitS: number;
}

export interface Target {
  url: string;
  /** the processes whose RSS and CPU belong to the server under test */
  processes: { label: string; pid: number }[];
  /** the key to read /metrics with, when the target is the service */
  metricsKey?: string;
  /** false when the target has no mongodb_commands_total */
  hasCommandMetric: boolean;
}

export interface Measurement {
  scenario: Scenario;
  /** '10000', '100000', or '—' for the baselines */
  size: string;
  connections: number;
  /** set when the scenario could not run (its preflight request failed) */
  failed?: string;
  /** responses completed in the measured window per second */
  reqPerS: number;
  /** latency percentiles of the responses completed in the measured window; undefined when none did */
  p50Ms?: number;
  p99Ms?: number;
  meanMs?: number;
  /** responses completed in the measured window */
  responses: number;
  /** warm-up actually used: at least --warmup, longer until every connection had an answer */
  warmupMs: number;
  /** requests sent over warm-up and window */
  sent: number;
  /** over warm-up and window, so that no failure goes unreported */
  non2xx: number;
  statusCodes: Record<string, number>;
  /** connection errors other than timeouts */
  socketErrors: number;
  timeouts: number;
  /** 2xx answers that carried GraphQL errors */
  mismatches: number;
  /** MongoDB commands per request sent, when the service counts them */
  commandsPerRequest?: number;
  commands?: CommandCounts;
  rss: RssPeaks;
  /** bytes of one response (preflight) */
  responseBytes: number;
  /** how long the target kept working after the load stopped (queued requests) */
  drainMs: number;
  /** CPU cores used by the harness and the target during the measured window */
  cpuCores: number;
  /**
   * CPU time (utime + stime of /proc/<pid>/stat) of each target process (service, store) over the
   * measured window, divided by the responses completed in it: what one request costs each process
   */
  cpuMsPerRequest: Record<string, number>;
  /** CPU cores used by other processes of the machine during the measured window (noise) */
  foreignCores: number;
  notes: string[];
}

/** Other processes using this much CPU (cores) during a run get a note: the figures are disturbed. */
export const FOREIGN_CPU_NOTE = 0.15;

let current: autocannon.Instance | undefined;

/** Stops a running load (the harness is being aborted). */
export function stopLoad(): void {
  current?.stop();
}

interface WindowedResult {
  result: autocannon.Result;
  warmupMs: number;
  windowMs: number;
  /** latencies (ms) of the responses completed inside the window */
  latencies: number[];
  foreign: { cores: number; oursCores: number };
  /** CPU milliseconds of each target process over the window */
  cpuMs: Record<string, number>;
}

/**
 * One autocannon run: a warm-up, then the measured window, without a pause between them, so
 * the window sees the steady state. The warm-up lasts `warmupS`, and longer (up to
 * `warmupS + timeoutS`) until as many answers as connections have come back: on a server that
 * takes seconds per request under this concurrency, the first answers all arrive together.
 */
function runWindowed(
  url: string,
  scenario: Scenario,
  connections: number,
  settings: LoadSettings,
  processes: Target['processes'],
): Promise<WindowedResult> {
  const pids = processes.map((p) => p.pid);
  const cpuNow = (): Record<string, number> => Object.fromEntries(processes.map((p) => [p.label, cpuMsOf(p.pid) ?? 0]));
  let cpuAtStart: Record<string, number> = {};
  let cpuMs: Record<string, number> = {};
  const requests: autocannon.Request[] = scenario.dynamic
    ? [{ setupRequest: (request) => ({ ...request, ...scenario.next() }) }]
    : [scenario.next()];
  const latencies: number[] = [];
  const started = Date.now();
  let completed = 0;
  let windowStart: number | undefined;
  let windowEnd: number | undefined;
  let foreign: ReturnType<typeof foreignCpu> | undefined;
  let foreignResult: { cores: number; oursCores: number } = { cores: 0, oursCores: 0 };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        // An upper bound only: the run is stopped at the end of the window.
        duration: settings.warmupS + settings.timeoutS + settings.durationS + 5,
        timeout: settings.timeoutS,
        requests,
        ...(scenario.verifyBody ? { verifyBody: scenario.verifyBody as (body: unknown) => boolean } : {}),
      },
      (error: unknown, result: autocannon.Result) => {
        clearInterval(timer);
        current = undefined;
        // eslint-disable-next-line @typescript-eslint/no-base-to-string -- autocannon reports Errors; anything else is shown as it prints
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        const end = windowEnd ?? Date.now();
        resolve({
          result,
          warmupMs: (windowStart ?? end) - started,
          windowMs: end - (windowStart ?? end),
          latencies,
          foreign: foreignResult,
          cpuMs,
        });
      },
    );
    current = instance;
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      completed++;
      if (windowStart !== undefined && windowEnd === undefined) latencies.push(responseTime);
    });
    const timer = setInterval(() => {
      const now = Date.now();
      if (windowStart === undefined) {
        const elapsed = now - started;
        const warm = elapsed >= settings.warmupS * 1000 && completed >= connections;
        if (warm || elapsed >= (settings.warmupS + settings.timeoutS) * 1000) {
          windowStart = now;
          foreign = foreignCpu(pids);
          cpuAtStart = cpuNow();
        }
      } else if (windowEnd === undefined && now - windowStart >= settings.durationS * 1000) {
        windowEnd = now;
        foreignResult = foreign?.stop() ?? foreignResult;
        const cpuAtEnd = cpuNow();
        cpuMs = Object.fromEntries(
          Object.entries(cpuAtEnd).map(([label, ms]) => [label, ms - (cpuAtStart[label] ?? ms)]),
        );
        instance.stop();
      }
    }, 20);
  });
}

async function preflight(
  url: string,
  request: HttpRequest,
  scenario: Scenario,
): Promise<{ status: number; bytes: number; problem?: string }> {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(60_000),
  });
  const body = await response.text();
  const bytes = Buffer.byteLength(body);
  if (response.status < 200 || response.status > 299) {
    return { status: response.status, bytes, problem: `preflight answered ${response.status}: ${body.slice(0, 300)}` };
  }
  if (scenario.verifyBody && !scenario.verifyBody(body)) {
    return { status: response.status, bytes, problem: `preflight answered GraphQL errors: ${body.slice(0, 300)}` };
  }
  return { status: response.status, bytes };
}

/** The `p` quantile (0 to 1) of ascending values, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/**
 * Preflight (one request, checked), a quiet machine, an idle server, the command counter, the
 * warm-up and measured window (RSS sampled throughout), an idle server again, the counter again.
 * Commands are divided by every request sent (warm-up included): requests still in flight when
 * the load stops run to completion on the server before it is idle again.
 */
export async function measure(
  target: Target,
  scenario: Scenario,
  size: string,
  settings: LoadSettings,
  log: (line: string) => void,
): Promise<Measurement> {
  const connections = scenario.connections ?? settings.connections;
  const pids = target.processes.map((p) => p.pid);
  const base: Measurement = {
    scenario,
    size,
    connections,
    reqPerS: 0,
    responses: 0,
    warmupMs: 0,
    sent: 0,
    non2xx: 0,
    statusCodes: {},
    socketErrors: 0,
    timeouts: 0,
    mismatches: 0,
    rss: { byLabel: {}, sum: 0, samples: 0 },
    responseBytes: 0,
    drainMs: 0,
    cpuCores: 0,
    cpuMsPerRequest: {},
    foreignCores: 0,
    notes: [],
  };

  const check = await preflight(target.url, scenario.next(), scenario).catch((error: unknown) => ({
    status: 0,
    bytes: 0,
    problem: `preflight failed: ${error instanceof Error ? error.message : String(error)}`,
  }));
  base.responseBytes = check.bytes;
  if (check.problem) {
    log(`  ${scenario.label}: NOT RUN, ${check.problem}`);
    return { ...base, failed: check.problem };
  }

  const settled = await waitUntilIdle(pids);
  if (!settled.idle) base.notes.push(`the server was still busy ${Math.round(settled.ms / 1000)} s before the run`);
  if (settings.quietWaitS > 0) {
    const quiet = await waitForQuietMachine(pids, FOREIGN_CPU_NOTE, settings.quietWaitS * 1000);
    if (!quiet.quiet)
      base.notes.push(
        `other processes still used ${quiet.cores.toFixed(2)} cores after waiting ${settings.quietWaitS} s for a quiet machine`,
      );
  }

  const sampler = sampleRss(target.processes);
  let rss: RssPeaks;
  let run: WindowedResult;
  let before: CommandCounts | undefined;
  let after: CommandCounts | undefined;
  let drained: { ms: number; idle: boolean };
  try {
    before =
      target.hasCommandMetric && target.metricsKey ? await readCommandCounts(target.url, target.metricsKey) : undefined;
    run = await runWindowed(target.url, scenario, connections, settings, target.processes);
    drained = await waitUntilIdle(pids);
    after = before && target.metricsKey ? await readCommandCounts(target.url, target.metricsKey) : undefined;
  } finally {
    rss = sampler.stop();
  }

  const { result, latencies } = run;
  latencies.sort((a, b) => a - b);
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
  const measurement: Measurement = {
    ...base,
    reqPerS: run.windowMs > 0 ? latencies.length / (run.windowMs / 1000) : 0,
    p50Ms: latencies.length > 0 ? percentile(latencies, 0.5) : undefined,
    p99Ms: latencies.length > 0 ? percentile(latencies, 0.99) : undefined,
    meanMs: latencies.length > 0 ? latencies.reduce((a, b) => a + b, 0) / latencies.length : undefined,
    responses: latencies.length,
    warmupMs: run.warmupMs,
    sent: result.requests.sent,
    non2xx: result.non2xx,
    statusCodes,
    // autocannon counts timeouts among its errors.
    socketErrors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    rss,
    drainMs: drained.ms,
    cpuCores: run.foreign.oursCores,
    cpuMsPerRequest:
      latencies.length > 0
        ? Object.fromEntries(Object.entries(run.cpuMs).map(([label, ms]) => [label, ms / latencies.length]))
        : {},
    foreignCores: run.foreign.cores,
  };
  if (latencies.length === 0) measurement.notes.push(`no answer completed within the ${settings.durationS} s window`);
  if (run.warmupMs > settings.warmupS * 1000 + 1000) {
    measurement.notes.push(`warm-up took ${(run.warmupMs / 1000).toFixed(0)} s until every connection had an answer`);
  }
  if (run.foreign.cores >= FOREIGN_CPU_NOTE)
    measurement.notes.push(
      `other processes of the machine used ${run.foreign.cores.toFixed(2)} cores during the window`,
    );
  if (!drained.idle)
    measurement.notes.push(`the server was still busy ${Math.round(drained.ms / 1000)} s after the run`);
  if (before && after) {
    const commands = difference(before, after);
    measurement.commands = commands;
    measurement.commandsPerRequest = result.requests.sent > 0 ? commands.total / result.requests.sent : undefined;
    if (commands.failed > 0) measurement.notes.push(`${commands.failed} MongoDB commands failed`);
  }
  if (result.timeouts > 0) measurement.notes.push(`${result.timeouts} requests timed out after ${settings.timeoutS} s`);
  if (measurement.socketErrors > 0) measurement.notes.push(`${measurement.socketErrors} connection errors`);
  if (result.mismatches > 0) measurement.notes.push(`${result.mismatches} 200 answers carried GraphQL errors`);
  if (result.non2xx > 0) {
    const codes = Object.entries(statusCodes).filter(([code]) => !code.startsWith('2'));
    measurement.notes.push(`non-2xx answers: ${codes.map(([code, n]) => `${n}× ${code}`).join(', ')}`);
  }
  return measurement;
}
