import fs from 'node:fs';
import path from 'node:path';
import { killGroup, spawnChild } from './children';
import { foreignCpuAroundChild } from './probe';
import { registration } from './scenarios';
import { REPO, startService, tail, toolEnvironment, type RunningService } from './service';

/** One timed run of a CLI. */
export interface ToolRun {
  wallMs: number;
  /** the line it printed last on stdout */
  summary: string;
}

/** Latencies of one connection's by-id reads, in milliseconds. */
export interface LatencySample {
  requests: number;
  p50Ms: number;
  p99Ms: number;
}

/** One window of the backup row: one client's by-id reads, with a backup running or not. */
export interface BackupWindow {
  backup: boolean;
  ms: number;
  reads: LatencySample;
  /** reads answered otherwise than 200 (their latencies are in `reads`) */
  failedReads: number;
  /** registrations sent in the window: their latency (201 or not) */
  registrations: LatencySample;
  /** CPU of other processes of the machine over the window, in cores (the harness, the service, its store and the backup CLI excluded) */
  otherCores: number;
}

export interface BackupBenchResult {
  /** without, with, without, …, without: BACKUP_ROUNDS backups, each between two windows without one */
  windows: BackupWindow[];
  /** every window's reads pooled, without a backup and while one ran */
  without: LatencySample;
  during: LatencySample;
  registrationsWithout: LatencySample;
  registrationsDuring: LatencySample;
  /** `node dist/src/cli/backup.js <size dir>/backup-<i>.tar.gz` beside the running service, each round */
  backups: ToolRun[];
  archiveBytes: number;
  /** the store's files as the backup holds them (before gzip): data.mdb and secure.mdb */
  filesBytes: number;
  /** `node dist/src/cli/restore.js <last archive> --data-dir <new dir>` (it recounts every collection and index against the manifest) */
  restore: ToolRun;
  /** the registrations sent meanwhile, `perSecond` from the first window to the last */
  registrations: { perSecond: number; sent: number; created: number; failed: number };
  /** of the registrations answered 201 before the last backup's CLI was started, how many the restored store serves */
  consistency: { acknowledgedBefore: number; missing: number };
  /**
   * the REST export of the restored service against the original's: every candidate of it, as the
   * same JSON; and `byId` of them read by id from both, byte for byte
   */
  comparison: { candidates: number; differing: number; byId: number; byIdDiffering: number; ms: number };
}

/** The write load beside the backup row by default (the goal's), one registration every 1/n s (not waiting for answers). */
export const REGISTRATIONS_PER_S = 50;
/** Backups per row, alternating with windows without one (a shared machine's load drifts). */
export const BACKUP_ROUNDS = 3;

interface Timed {
  at: number;
  ms: number;
}

/**
 * The backup row: windows of one client reading candidates by id, one request after another,
 * alternately without a backup (for `windowMs`) and while the backup CLI runs beside the service
 * (through its store's socket, as an operator runs it, to a .tar.gz): the latency a partner sees
 * while a backup is taken, beside the same without one, measured in turns so that a drift of the
 * machine's load falls on both. Through every window partners register `registrationsPerS`
 * candidates a second (unique e-mails). Then the last backup is restored (verify, unpack, recount,
 * erasures re-applied, rename) into a new data directory, a service is started on it, and every
 * candidate it holds is compared with the original's (compareEveryCandidate); the
 * registrations acknowledged before that backup began must all be there. Run on a size after the
 * load scenarios and before the import (which doubles the candidates).
 */
export async function benchBackup(
  service: RunningService,
  apiKey: string,
  candidateIds: readonly string[],
  dataDir: string,
  sizeDir: string,
  /** the service's environment, for the one started on the restored directory */
  serviceEnv: Record<string, string>,
  windowMs: number,
  registrationsPerS: number,
  log: (line: string) => void,
): Promise<BackupBenchResult> {
  const url = service.url;
  const archives = Array.from({ length: BACKUP_ROUNDS }, (_, i) => path.join(sizeDir, `backup-${i + 1}.tar.gz`));
  const restored = path.join(sizeDir, 'restored');
  const logFile = path.join(sizeDir, 'backup.log');
  for (const file of archives) fs.rmSync(file, { force: true });
  fs.rmSync(restored, { recursive: true, force: true });
  const ours = [service.child.pid, ...(service.storePid === undefined ? [] : [service.storePid])];
  const writes: WriteState = { stop: false, acknowledged: [], latencies: [] };
  const writer = registerUntil(
    url,
    apiKey,
    `backup-${path.basename(sizeDir)}-${Date.now()}`,
    registrationsPerS,
    writes,
  );
  const windows: (BackupWindow & { readLatencies: number[]; from: number; to: number })[] = [];
  const backups: ToolRun[] = [];
  let acknowledgedBefore: string[] = [];
  let restoredService: RunningService | undefined;
  try {
    try {
      const window = async (backup: Promise<ToolRun> | undefined): Promise<void> => {
        const others = foreignCpuAroundChild(ours);
        const from = performance.now();
        const failed = { count: 0 };
        const reads = await readWhile(url, apiKey, candidateIds, backup ?? sleep(windowMs), failed);
        const to = performance.now();
        windows.push({
          backup: backup !== undefined,
          ms: to - from,
          reads: sample(reads),
          readLatencies: reads,
          failedReads: failed.count,
          registrations: { requests: 0, p50Ms: 0, p99Ms: 0 },
          otherCores: others.stop(),
          from,
          to,
        });
      };
      await window(undefined);
      for (const archive of archives) {
        acknowledgedBefore = [...writes.acknowledged];
        const run = runTool('backup', ['dist/src/cli/backup.js', archive], dataDir, logFile);
        await window(run);
        backups.push(await run);
        const last = windows.at(-1)!;
        log(
          `backup ${backups.length}/${BACKUP_ROUNDS}: ${backups.at(-1)!.summary} (by-id p99 ${windows.at(-2)!.reads.p99Ms.toFixed(1)} ms before, ` +
            `${last.reads.p99Ms.toFixed(1)} ms during; other processes ${last.otherCores.toFixed(2)} cores)`,
        );
        await window(undefined);
      }
    } finally {
      writes.stop = true;
    }
    const registrations = await writer;
    for (const w of windows)
      w.registrations = sample(writes.latencies.filter((r) => r.at >= w.from && r.at < w.to).map((r) => r.ms));
    log(
      `${registrations.created} of ${registrations.sent} registrations at ${registrationsPerS}/s created, ${registrations.failed} failed`,
    );
    const archive = archives.at(-1)!;
    const archiveBytes = fs.statSync(archive).size;
    for (const file of archives.slice(0, -1)) fs.rmSync(file, { force: true });
    const restore = await runTool(
      'restore',
      ['dist/src/cli/restore.js', archive, '--data-dir', restored],
      dataDir,
      logFile,
    );
    log(`restore: ${restore.summary}`);
    const filesBytes = ['data.mdb', 'secure.mdb']
      .map((name) => path.join(restored, name))
      .filter((file) => fs.existsSync(file))
      .reduce((sum, file) => sum + fs.statSync(file).size, 0);
    restoredService = await startService({
      dataDir: restored,
      env: serviceEnv,
      logFile: path.join(sizeDir, 'service-restored.log'),
    });
    const missing = await countMissing(restoredService.url, apiKey, acknowledgedBefore);
    log(
      `${acknowledgedBefore.length - missing} of the ${acknowledgedBefore.length} registrations acknowledged before the last backup began are in it`,
    );
    const comparison = await compareEveryCandidate(url, restoredService.url, apiKey);
    log(
      `every candidate of the restored store (${comparison.candidates}) in both REST exports: ${comparison.differing} differ; ` +
        `${comparison.byId} read by id from both: ${comparison.byIdDiffering} differ (${(comparison.ms / 1000).toFixed(1)} s)`,
    );
    const pooled = (backup: boolean) =>
      sample(windows.filter((w) => w.backup === backup).flatMap((w) => w.readLatencies));
    const pooledWrites = (backup: boolean) =>
      sample(
        writes.latencies
          .filter((r) => windows.some((w) => w.backup === backup && r.at >= w.from && r.at < w.to))
          .map((r) => r.ms),
      );
    return {
      windows: windows.map(({ backup, ms, reads, failedReads, registrations: r, otherCores }) => ({
        backup,
        ms,
        reads,
        failedReads,
        registrations: r,
        otherCores,
      })),
      without: pooled(false),
      during: pooled(true),
      registrationsWithout: pooledWrites(false),
      registrationsDuring: pooledWrites(true),
      backups,
      archiveBytes,
      filesBytes,
      restore,
      registrations,
      consistency: { acknowledgedBefore: acknowledgedBefore.length, missing },
      comparison,
    };
  } finally {
    await restoredService?.stop();
    for (const file of archives) fs.rmSync(file, { force: true });
    fs.rmSync(restored, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function sample(latencies: number[]): LatencySample {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { requests: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99) };
}

interface WriteState {
  stop: boolean;
  /** publicIds answered 201, in the order of the answers */
  acknowledged: string[];
  /** every registration: when it was sent (performance.now()) and how long its answer took */
  latencies: Timed[];
}

/**
 * Sends a registration every 1/perSecond s, without waiting for the answers (an
 * open-loop load: a slow service does not slow the senders), until `state.stop`; resolves once
 * every answer is in.
 */
async function registerUntil(
  url: string,
  apiKey: string,
  tag: string,
  perSecond: number,
  state: WriteState,
): Promise<BackupBenchResult['registrations']> {
  const counts = { perSecond, sent: 0, created: 0, failed: 0 };
  const answers: Promise<void>[] = [];
  const started = performance.now();
  while (!state.stop) {
    const n = counts.sent++;
    const at = performance.now();
    answers.push(
      fetch(`${url}/v1/candidates/register`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(registration(`${tag}-${n}@example.org`)),
        signal: AbortSignal.timeout(60_000),
      }).then(
        async (response) => {
          const body = (await response.json().catch(() => ({}))) as { publicId?: string };
          state.latencies.push({ at, ms: performance.now() - at });
          if (response.status === 201 && typeof body.publicId === 'string') {
            counts.created++;
            state.acknowledged.push(body.publicId);
          } else counts.failed++;
        },
        () => {
          state.latencies.push({ at, ms: performance.now() - at });
          counts.failed++;
        },
      ),
    );
    await sleep(Math.max(0, started + ((n + 1) * 1000) / perSecond - performance.now()));
  }
  await Promise.all(answers);
  return counts;
}

/** Reads candidates by id, one request after another, until `until` settles; their latencies. */
async function readWhile(
  url: string,
  apiKey: string,
  candidateIds: readonly string[],
  until: Promise<unknown>,
  /** reads not answered 200 (counted, and in the latencies too) */
  failed: { count: number },
): Promise<number[]> {
  const state = { done: false };
  void until.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  const latencies: number[] = [];
  for (let i = 0; !state.done; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/v1/candidates/${candidateIds[i % candidateIds.length]}`, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(60_000),
    });
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    if (response.status !== 200) failed.count++;
  }
  return latencies;
}

/** How many of `publicIds` the service does not answer by id. */
async function countMissing(url: string, apiKey: string, publicIds: readonly string[]): Promise<number> {
  let missing = 0;
  await inParallel(publicIds, 8, async (id) => {
    const response = await fetch(`${url}/v1/candidates/${id}`, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(60_000),
    });
    await response.arrayBuffer();
    if (response.status !== 200) missing++;
  });
  return missing;
}

/**
 * The REST export of both services (every page of 100, employed candidates included): each
 * candidate of the restored one must be in the original's, as the same JSON (the original holds
 * the registrations made after the snapshot besides). Then `BY_ID_SAMPLE` candidates spread over
 * the restored ones are read by id from both and compared as the bytes sent.
 */
async function compareEveryCandidate(
  originalUrl: string,
  restoredUrl: string,
  apiKey: string,
): Promise<BackupBenchResult['comparison']> {
  const started = performance.now();
  const [restored, original] = await Promise.all([exportOf(restoredUrl, apiKey), exportOf(originalUrl, apiKey)]);
  let differing = 0;
  for (const [id, json] of restored) if (original.get(id) !== json) differing++;
  const ids = [...restored.keys()];
  const sample = Array.from(
    { length: Math.min(BY_ID_SAMPLE, ids.length) },
    (_, i) => ids[Math.floor((i * ids.length) / Math.min(BY_ID_SAMPLE, ids.length))],
  );
  let byIdDiffering = 0;
  const read = async (url: string, id: string) => {
    const response = await fetch(`${url}/v1/candidates/${id}`, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(60_000),
    });
    return `${response.status} ${await response.text()}`;
  };
  await inParallel(sample, 8, async (id) => {
    const [fromOriginal, fromCopy] = await Promise.all([read(originalUrl, id), read(restoredUrl, id)]);
    if (fromOriginal !== fromCopy || !fromOriginal.startsWith('200 ')) byIdDiffering++;
  });
  return {
    candidates: restored.size,
    differing,
    byId: sample.length,
    byIdDiffering,
    ms: performance.now() - started,
  };
}

/** Candidates read by id from both services, byte for byte, after the export's comparison. */
const BY_ID_SAMPLE = 2_000;

/** Every candidate of a service's REST export (pages of 100, employed included): publicId → its JSON. */
async function exportOf(url: string, apiKey: string): Promise<Map<string, string>> {
  const candidates = new Map<string, string>();
  for (let page = 0, pages = 1; page < pages; page++) {
    const response = await fetch(`${url}/v1/candidates?includeEmployed=true&limit=100&page=${page}`, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(60_000),
    });
    if (response.status !== 200) throw new Error(`page ${page} of ${url} answered ${response.status}`);
    const body = (await response.json()) as { content: { publicId: string }[]; totalPages: number };
    pages = body.totalPages;
    for (const candidate of body.content) candidates.set(candidate.publicId, JSON.stringify(candidate));
  }
  return candidates;
}

async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

async function runTool(label: string, args: string[], dataDir: string, logFile: string): Promise<ToolRun> {
  const out = fs.openSync(logFile, 'a');
  const started = performance.now();
  const child = spawnChild(label, process.execPath, [path.join(REPO, args[0]), ...args.slice(1)], {
    cwd: REPO,
    env: toolEnvironment(dataDir),
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const { code, signal } = await child.exited();
  const wallMs = performance.now() - started;
  await killGroup(child.pid);
  const output = fs.readFileSync(logFile, 'utf8');
  if (code !== 0) throw new Error(`the ${label} CLI exited with ${code ?? signal}; last output:\n${tail(output)}`);
  const prefix = label === 'backup' ? 'Backed up ' : 'Restored ';
  const summary = [...output.matchAll(new RegExp(`^${prefix}.*$`, 'gm'))].at(-1)?.[0] ?? '(no summary)';
  return { wallMs, summary };
}
