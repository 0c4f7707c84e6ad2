import { spawn, fork, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Every process the harness starts runs in a process group of its own (detached), so that one
 * signal to the group also reaches what it started itself (the service's embedded store).
 * The registry kills every group still alive when the harness ends, however it ends.
 */

export interface Child {
  readonly label: string;
  readonly pid: number;
  readonly process: ChildProcess;
  /** Resolves when the process has exited (immediately when it already has). */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const groups = new Map<number, string>();
/** Every group this harness started, alive or not (to look for leftovers at the end). */
const everStarted = new Set<number>();

let reaper: ChildProcess | undefined;

/**
 * Starts the reaper (reaper.ts), which kills every group still registered if this process dies
 * without cleaning up, SIGKILL included. Resolves once it runs.
 */
export async function startReaper(): Promise<void> {
  const child = fork(`${__dirname}/reaper.ts`, [], {
    execArgv: ['--import', pathToFileURL(require.resolve('tsx')).href],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    detached: true,
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  // The harness may exit while the reaper still runs; the reaper then exits on disconnect.
  child.unref();
  (child as unknown as { channel?: { unref(): void } }).channel?.unref();
  reaper = child;
}

/** Ends the reaper: every group is gone by now, so it has nothing to kill. */
export function stopReaper(): void {
  if (reaper?.connected) reaper.disconnect();
  reaper = undefined;
}

function tellReaper(message: { add?: number; remove?: number }): void {
  if (reaper?.connected) reaper.send(message);
}

function register(label: string, child: ChildProcess): Child {
  if (child.pid === undefined) throw new Error(`${label} could not be started`);
  const pid = child.pid;
  groups.set(pid, label);
  everStarted.add(pid);
  tellReaper({ add: pid });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // A failed spawn emits 'error' and then 'exit'; the error itself surfaces through the exit code.
  child.on('error', () => undefined);
  return { label, pid, process: child, exited: () => exit };
}

export function spawnChild(label: string, command: string, args: readonly string[], options: SpawnOptions): Child {
  return register(label, spawn(command, [...args], { ...options, detached: true }));
}

/** A Node script with an IPC channel; the TypeScript files of this folder run under tsx. */
export function forkChild(
  label: string,
  script: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; logFile?: string },
): Child {
  const log = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = fork(script, [...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    execArgv: script.endsWith('.ts') ? ['--import', pathToFileURL(require.resolve('tsx')).href] : [],
    stdio: ['ignore', log, log, 'ipc'],
    detached: true,
  });
  if (typeof log === 'number') fs.closeSync(log);
  return register(label, child);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the process (it may stop its own children cleanly), SIGKILL to its whole group after `graceMs`. */
export async function stopChild(child: Child, graceMs: number): Promise<void> {
  if (groups.has(child.pid)) {
    try {
      process.kill(child.pid, 'SIGTERM');
    } catch {
      // Exited already.
    }
    const timer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), graceMs);
    await child.exited();
    clearTimeout(timer);
  }
  // Whatever the process left behind in its group (an orphaned store) goes too.
  await killGroup(child.pid);
}

/** SIGKILLs a group and waits (up to 5 s) until none of its processes is left. */
export async function killGroup(pgid: number): Promise<void> {
  signalGroup(pgid, 'SIGKILL');
  const deadline = Date.now() + 5_000;
  while (processesInGroups([pgid]).length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  groups.delete(pgid);
  tellReaper({ remove: pgid });
}

/** Synchronous last resort, for exit and signal handlers. */
export function killAllSync(): void {
  for (const pgid of groups.keys()) signalGroup(pgid, 'SIGKILL');
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  command: string;
}

/** Parses /proc/<pid>/stat; the command name may hold spaces and parentheses, so split after the last ')'. */
export function readStat(pid: number): { ppid: number; pgid: number; utime: number; stime: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state) of proc(5).
  return { ppid: Number(fields[1]), pgid: Number(fields[2]), utime: Number(fields[11]), stime: Number(fields[12]) };
}

export function listProcesses(): ProcessInfo[] {
  const result: ProcessInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = readStat(pid);
    if (!stat) continue;
    let command: string;
    try {
      command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      continue;
    }
    result.push({ pid, ppid: stat.ppid, pgid: stat.pgid, command });
  }
  return result;
}

export function processesInGroups(pgids: readonly number[]): ProcessInfo[] {
  const wanted = new Set(pgids);
  return listProcesses().filter((p) => wanted.has(p.pgid) && isAlive(p.pid));
}

export function childrenOf(pid: number): ProcessInfo[] {
  return listProcesses().filter((p) => p.ppid === pid);
}

/** Processes of any group this harness started that are still alive (should be none at the end). */
export function leftovers(): ProcessInfo[] {
  return processesInGroups([...everStarted]);
}
