import fs from 'node:fs';
import { readStat } from './children';

/** Resident set size of a process in bytes (VmRSS of /proc/<pid>/status), undefined when it is gone. */
export function rssOf(pid: number): number | undefined {
  return statusField(pid, 'VmRSS');
}

/** Peak resident set size since the process started (VmHWM), undefined when it is gone. */
export function peakRssOf(pid: number): number | undefined {
  return statusField(pid, 'VmHWM');
}

/**
 * A process's own memory and its whole resident set, in bytes, undefined when it is gone. RssAnon
 * is what the process allocated (heaps, stacks, buffers); VmRSS adds the pages of files it maps
 * (RssFile), which the kernel can drop and read again, and shared memory.
 */
export function memoryOf(pid: number): { rssAnon: number; vmRss: number } | undefined {
  const rssAnon = statusField(pid, 'RssAnon');
  const vmRss = statusField(pid, 'VmRSS');
  return rssAnon === undefined || vmRss === undefined ? undefined : { rssAnon, vmRss };
}

export interface MemoryPeaks {
  /** highest RssAnon sampled */
  rssAnon: number;
  /** highest VmRSS sampled (not necessarily at the same instant) */
  vmRss: number;
  samples: number;
}

/** Samples memoryOf(pid) every `intervalMs` until stopped. */
export function sampleMemory(pid: number, intervalMs = 200): { stop(): MemoryPeaks } {
  const peaks: MemoryPeaks = { rssAnon: 0, vmRss: 0, samples: 0 };
  const sample = (): void => {
    const memory = memoryOf(pid);
    if (!memory) return;
    peaks.rssAnon = Math.max(peaks.rssAnon, memory.rssAnon);
    peaks.vmRss = Math.max(peaks.vmRss, memory.vmRss);
    peaks.samples++;
  };
  return sampleEvery(intervalMs, sample, () => peaks);
}

/** Calls `sample` now, every `intervalMs`, and once more at stop, which answers `result()`. */
function sampleEvery<T>(intervalMs: number, sample: () => void, result: () => T): { stop(): T } {
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return result();
    },
  };
}

function statusField(pid: number, name: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) * 1024 : undefined;
}

export interface RssPeaks {
  /** highest sample per process label */
  byLabel: Record<string, number>;
  /** highest sum of one sampling instant over every process */
  sum: number;
  samples: number;
}

/**
 * Samples the RSS of a set of processes every `intervalMs` until stopped. The sum is taken
 * per instant, so it is the real peak footprint, not the sum of peaks reached at different times.
 */
export function sampleRss(
  processes: readonly { label: string; pid: number }[],
  intervalMs = 200,
): { stop(): RssPeaks } {
  const peaks: RssPeaks = { byLabel: {}, sum: 0, samples: 0 };
  const sample = (): void => {
    let sum = 0;
    for (const { label, pid } of processes) {
      const rss = rssOf(pid) ?? 0;
      sum += rss;
      peaks.byLabel[label] = Math.max(peaks.byLabel[label] ?? 0, rss);
    }
    peaks.sum = Math.max(peaks.sum, sum);
    peaks.samples++;
  };
  return sampleEvery(intervalMs, sample, () => peaks);
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ); 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

function cpuTicks(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat) ticks += stat.utime + stat.stime;
  }
  return ticks;
}

/** CPU time (user + system) a process has used since it started, in ms; undefined when it is gone. */
export function cpuMsOf(pid: number): number | undefined {
  const stat = readStat(pid);
  return stat ? ((stat.utime + stat.stime) * 1000) / TICKS_PER_SECOND : undefined;
}

/**
 * Waits until the processes together use less than `maxCores` of CPU over a window: the work
 * queued by a load run that was cut off at its deadline (requests in flight, queued searches)
 * must not spill into the next measurement. Resolves with the time it took, or after `timeoutMs`.
 */
export async function waitUntilIdle(
  pids: readonly number[],
  options: { maxCores?: number; windowMs?: number; timeoutMs?: number } = {},
): Promise<{ ms: number; idle: boolean }> {
  const maxCores = options.maxCores ?? 0.1;
  const windowMs = options.windowMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started = Date.now();
  let before = cpuTicks(pids);
  while (Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = cpuTicks(pids);
    const cores = (after - before) / TICKS_PER_SECOND / (windowMs / 1000);
    before = after;
    if (cores < maxCores) return { ms: Date.now() - started, idle: true };
  }
  return { ms: Date.now() - started, idle: false };
}

/** Busy jiffies of the whole machine (every CPU), from the first line of /proc/stat. */
function machineBusyTicks(): number {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
}

/**
 * CPU used by processes other than the given ones (the harness itself is always counted as
 * ours): another workload on the machine during a measurement makes its figures unreliable.
 */
export function foreignCpu(ours: readonly number[]): { stop(): { cores: number; oursCores: number } } {
  const pids = [process.pid, ...ours];
  const started = Date.now();
  const busy = machineBusyTicks();
  const mine = cpuTicks(pids);
  return {
    stop: () => {
      const seconds = (Date.now() - started) / 1000;
      const busyDelta = machineBusyTicks() - busy;
      const mineDelta = cpuTicks(pids) - mine;
      return {
        cores: Math.max(0, (busyDelta - mineDelta) / TICKS_PER_SECOND / seconds),
        oursCores: mineDelta / TICKS_PER_SECOND / seconds,
      };
    },
  };
}

/**
 * Waits (up to `timeoutMs`) until other processes of the machine use less than `maxCores`
 * over one second: on a shared machine a benchmark should start in a quiet moment.
 */
export async function waitForQuietMachine(
  ours: readonly number[],
  maxCores: number,
  timeoutMs: number,
): Promise<{ ms: number; quiet: boolean; cores: number }> {
  const started = Date.now();
  let cores: number;
  do {
    const window = foreignCpu(ours);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    cores = window.stop().cores;
    if (cores < maxCores) return { ms: Date.now() - started, quiet: true, cores };
  } while (Date.now() - started < timeoutMs);
  return { ms: Date.now() - started, quiet: false, cores };
}

/** CPU ticks of this process and of its children that have exited and been waited for (cutime, cstime). */
function selfAndReapedTicks(): number {
  const text = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 of proc(5): utime, stime, cutime, cstime are fields 14 to 17.
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}

/**
 * CPU used by other processes while this one runs a child to completion (a seed command):
 * the child's CPU reaches this process's cutime/cstime once it has exited and been reaped.
 * `running`: processes of ours that run meanwhile (their CPU is ours too); `stop` takes those
 * started meanwhile (a service), whose every tick was spent inside the window.
 */
export function foreignCpuAroundChild(running: readonly number[] = []): {
  stop(startedMeanwhile?: readonly number[]): number;
} {
  const started = Date.now();
  const busy = machineBusyTicks();
  const mine = selfAndReapedTicks() + cpuTicks(running);
  return {
    stop: (startedMeanwhile = []) => {
      const seconds = (Date.now() - started) / 1000;
      const ours = selfAndReapedTicks() + cpuTicks(running) + cpuTicks(startedMeanwhile) - mine;
      return Math.max(0, (machineBusyTicks() - busy - ours) / TICKS_PER_SECOND / seconds);
    },
  };
}
