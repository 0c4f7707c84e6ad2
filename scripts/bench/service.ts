import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { childrenOf, killGroup, spawnChild, stopChild, type Child } from './children';
import { foreignCpuAroundChild } from './probe';

/**
 * The service under test and its command-line tools, run from the compiled dist/ exactly as
 * `npm start`, `npm run seed` and `npm run keys` run them (without their `pre*` build checks:
 * `npm run bench` makes the build current once before the harness starts), except the CLI start
 * row, which times `npm run keys -- list` itself.
 */

export const REPO = path.resolve(__dirname, '..', '..');
const DIST = path.join(REPO, 'dist', 'src');

/** The environment of every service tool: the embedded store on `dataDir`, never a MONGODB_URI of the caller. */
export function toolEnvironment(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'production', ...extra };
  delete env.MONGODB_URI;
  delete env.MONGODB_DB;
  return env;
}

async function runTool(
  label: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  timeoutMs: number,
): Promise<{ ms: number; output: string }> {
  return runCommand(label, process.execPath, [path.join(DIST, script), ...args], env, logFile, timeoutMs);
}

/** Runs a command to its end, its output appended to `logFile`; `ms` is its wall time. */
async function runCommand(
  label: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  timeoutMs: number,
): Promise<{ ms: number; output: string }> {
  const log = fs.openSync(logFile, 'a');
  const started = process.hrtime.bigint();
  const child = spawnChild(label, command, args, { cwd: REPO, env, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const timer = setTimeout(() => void killGroup(child.pid), timeoutMs);
  const { code, signal } = await child.exited();
  clearTimeout(timer);
  await killGroup(child.pid);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const output = fs.readFileSync(logFile, 'utf8');
  if (code !== 0) {
    throw new Error(
      `${label} failed (exit code ${code}, signal ${signal}${ms >= timeoutMs ? `, killed after ${timeoutMs} ms` : ''}); last output:\n${tail(output)}`,
    );
  }
  return { ms, output };
}

export interface SeedResult {
  /** wall time of the whole `seed` command: node start, store open, writes, store close */
  wallMs: number;
  /** the time the seed command reports itself ("… in 54.6 s"), when it prints one */
  reportedMs: number | undefined;
  dataDirBytes: number;
  /** CPU cores other processes of the machine used meanwhile */
  foreignCores: number;
}

export async function seed(dataDir: string, candidates: number, logFile: string): Promise<SeedResult> {
  fs.mkdirSync(dataDir, { recursive: true });
  const foreign = foreignCpuAroundChild();
  const { ms, output } = await runTool(
    'seed',
    'cli/seed.js',
    ['--candidates', String(candidates)],
    toolEnvironment(dataDir),
    logFile,
    15 * 60_000,
  );
  const foreignCores = foreign.stop();
  const reported = /\bin (\d+(?:\.\d+)?) s\b/.exec(output);
  return {
    wallMs: ms,
    reportedMs: reported ? Number(reported[1]) * 1000 : undefined,
    dataDirBytes: directoryBytes(dataDir),
    foreignCores,
  };
}

/**
 * The budgets of the benchmark's key, per minute (reads/writes): the keys CLI's largest. Far above
 * what a run sends in a minute, yet counted, as the service counts every partner's requests.
 */
export const BENCH_KEY_BUDGETS = '1000000/1000000';

/** How the keys CLI can exempt the benchmark's key from rate limiting, as its --help says. */
export interface KeysCliFeatures {
  /** `--rate-limit <reads>/<writes>`: the key's own budgets (counted) */
  rateLimit: boolean;
  /** `--unlimited`: never counted */
  unlimited: boolean;
}

export async function keysCliFeatures(logFile: string): Promise<KeysCliFeatures> {
  try {
    const { output } = await runTool(
      'keys --help',
      'cli/keys.js',
      ['--help'],
      toolEnvironment(path.join(REPO, '.bench', 'no-store')),
      logFile,
      60_000,
    );
    return { rateLimit: output.includes('--rate-limit'), unlimited: output.includes('--unlimited') };
  } catch {
    return { rateLimit: false, unlimited: false };
  }
}

/**
 * The budget of the benchmark's key as `keys create` arguments: its own budgets when the CLI has
 * `--rate-limit`, else `--unlimited`; undefined when it has neither (the demo key from
 * DEMO_API_KEY is used then).
 */
export function benchKeyBudget(features: KeysCliFeatures): string[] | undefined {
  if (features.rateLimit) return ['--rate-limit', BENCH_KEY_BUDGETS];
  if (features.unlimited) return ['--unlimited'];
  return undefined;
}

/**
 * Creates an API key with every permission, with `budget` (`--rate-limit …` or `--unlimited`),
 * in the data directory's store: opened by the CLI itself, or the running service's store when
 * a service runs on the directory.
 */
export async function createBenchKey(dataDir: string, logFile: string, budget: readonly string[]): Promise<string> {
  // stdout alone: the key is its last line, and stderr would interleave with it in one file.
  const out = `${logFile}.stdout`;
  const fd = fs.openSync(out, 'w');
  const errFd = fs.openSync(logFile, 'a');
  const child = spawnChild(
    'keys create',
    process.execPath,
    [path.join(DIST, 'cli', 'keys.js'), 'create', '--name', 'benchmark', '--permissions', 'ADMIN', ...budget],
    { cwd: REPO, env: toolEnvironment(dataDir), stdio: ['ignore', fd, errFd] },
  );
  fs.closeSync(fd);
  fs.closeSync(errFd);
  const timer = setTimeout(() => void killGroup(child.pid), 120_000);
  const { code } = await child.exited();
  clearTimeout(timer);
  await killGroup(child.pid);
  const lines = fs.readFileSync(out, 'utf8').trim().split('\n');
  fs.rmSync(out, { force: true });
  const key = lines[lines.length - 1]?.trim() ?? '';
  if (code !== 0 || !key.startsWith('cdk_'))
    throw new Error(`keys create ${budget.join(' ')} failed (exit code ${code}); see ${logFile}`);
  return key;
}

/** Wall times of the keys CLI listing the keys of a data directory (opened by the CLI, or the running service's store). */
export interface CliStartResult {
  /** `npm run keys -- list`, as an operator runs it: npm, the build check (scripts/build-if-stale.mjs) and the CLI; ms */
  npmMs: number[];
  /** `node dist/src/cli/keys.js list`: the CLI alone (node start, open or connect to the store, list, close); ms */
  nodeMs: number[];
  /** the first, untimed run found the build stale and built */
  rebuilt: boolean;
  /** timed npm runs that built (a source changed while the runs went on): their times include a build */
  builtDuring?: number;
}

/**
 * `runs` timed runs of each, alternating, after one untimed `npm run keys -- list` (which builds
 * if the build is not current, so the timed runs measure a current build, as the README promises).
 */
export async function timeCliStart(dataDir: string, logFile: string, runs = 5): Promise<CliStartResult> {
  const env = toolEnvironment(dataDir);
  // The npm that runs `npm run bench`, else the one on PATH.
  const npmCli = process.env.npm_execpath;
  const [npm, npmArgs] = npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli]] : ['npm', []];
  const keysList = [...npmArgs, 'run', 'keys', '--', 'list'];
  fs.writeFileSync(logFile, '');
  const first = await runCommand('npm run keys -- list', npm, keysList, env, logFile, 10 * 60_000);
  const result: CliStartResult = { npmMs: [], nodeMs: [], rebuilt: /\bbuild: /.test(first.output), builtDuring: 0 };
  let seen = first.output.length;
  for (let i = 0; i < runs; i++) {
    const timed = await runCommand('npm run keys -- list', npm, keysList, env, logFile, 120_000);
    result.npmMs.push(timed.ms);
    if (/\bbuild: /.test(timed.output.slice(seen))) result.builtDuring!++;
    const alone = await runTool('keys list', 'cli/keys.js', ['list'], env, logFile, 120_000);
    result.nodeMs.push(alone.ms);
    seen = alone.output.length;
  }
  return result;
}

export interface RunningService {
  readonly url: string;
  readonly child: Child;
  /** the embedded store, the service's own child process */
  readonly storePid: number | undefined;
  readonly startMs: number;
  readonly logFile: string;
  /** how the service ended, when it has (it should not before stop()) */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * `node dist/src/app/main.js` on a free loopback port; resolves once /healthz answers (the app
 * listens last, after its store is open and its start-up work done), asked every `pollMs`.
 */
export async function startService(options: {
  dataDir: string;
  env: Record<string, string>;
  logFile: string;
  timeoutMs?: number;
  pollMs?: number;
}): Promise<RunningService> {
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const pollMs = options.pollMs ?? 100;
  const port = await freePort();
  const log = fs.openSync(options.logFile, 'a');
  const started = process.hrtime.bigint();
  const child = spawnChild('service', process.execPath, [path.join(DIST, 'app', 'main.js')], {
    cwd: REPO,
    env: toolEnvironment(options.dataDir, { ...options.env, HOST: '127.0.0.1', PORT: String(port) }),
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void child.exited().then((status) => {
    exited = true;
    exit = status;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      await killGroup(child.pid);
      throw new Error(
        `the service exited during its start; last output:\n${tail(fs.readFileSync(options.logFile, 'utf8'))}`,
      );
    }
    if (Date.now() > deadline) {
      await stopChild(child, 1_000);
      throw new Error(`the service did not answer /healthz within ${timeoutMs} ms; see ${options.logFile}`);
    }
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  const startMs = Number(process.hrtime.bigint() - started) / 1e6;
  const store = childrenOf(child.pid).find((p) => /embedded-mongodb\/(dist|src)\/cli\.[jt]s\b/.test(p.command));
  return {
    url,
    child,
    storePid: store?.pid,
    startMs,
    logFile: options.logFile,
    exit: () => exit,
    // The service drains, closes its pool and SIGTERMs its store, which flushes its journal.
    stop: () => stopChild(child, 60_000),
  };
}

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(full) : fs.statSync(full).size;
  }
  return total;
}

export function tail(text: string, lines = 20): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** The default of a numeric setting (by its environment variable) in the build's src/config.ts. */
export function numericDefault(env: string): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's config, loaded by path at run time
  const { settings } = require(path.join(DIST, 'config.js')) as {
    settings: Record<string, { env: string; default?: string }>;
  };
  const setting = Object.values(settings).find((s) => s.env === env);
  const value = Number(setting?.default);
  if (!Number.isFinite(value)) throw new Error(`src/config.ts has no numeric default for ${env}`);
  return value;
}

/** The defaults of READ_CACHE_ENTRIES and READ_CACHE_MB in the build's src/config.ts. */
export function readCacheDefaults(): { entries: number; mb: number } {
  return { entries: numericDefault('READ_CACHE_ENTRIES'), mb: numericDefault('READ_CACHE_MB') };
}

/**
 * The setting that switches compiled GraphQL execution off, when src/config.ts has one by now
 * (an env var named like GRAPHQL_JIT), with the first value its schema accepts as "off".
 */
export function compiledExecutionSwitch(): { env: string; off: string } | undefined {
  let settings: Record<
    string,
    { env: string; schema: { safeParse(v: unknown): { success: boolean; data?: unknown } } }
  >;
  try {
    // Loaded at run time from the build: the setting may not exist when this file is compiled.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see readCacheDefaults
    ({ settings } = require(path.join(DIST, 'config.js')) as { settings: typeof settings });
  } catch {
    return undefined;
  }
  for (const setting of Object.values(settings)) {
    if (!/^GRAPHQL_(JIT|COMPILE|COMPILED|COMPILED_EXECUTION|EXECUTION_COMPILED?)$/.test(setting.env)) continue;
    for (const off of ['false', '0', 'off', 'no', 'interpreted']) {
      const parsed = setting.schema.safeParse(off);
      if (parsed.success && (parsed.data === false || parsed.data === 0 || parsed.data === off))
        return { env: setting.env, off };
    }
  }
  return undefined;
}
