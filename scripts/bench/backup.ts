import fs from 'node:fs';
import path from 'node:path';
import { killGroup, spawnChild } from './children';
import { registration } from './scenarios';
import { REPO, tail, toolEnvironment } from './service';

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

export interface BackupBenchResult {
  /** `node dist/src/cli/backup.js <size dir>/backup.tar.gz` beside the running service */
  backup: ToolRun;
  archiveBytes: number;
  /** the store's files as the backup holds them (before gzip): data.mdb and secure.mdb */
  filesBytes: number;
  /** `node dist/src/cli/restore.js <archive> --data-dir <new dir>`, the service still running on its own */
  restore: ToolRun;
  /** sequential by-id reads of one client for the run's --duration before the backup, and while it ran */
  before: LatencySample;
  during: LatencySample;
  /** the registrations sent meanwhile, at REGISTRATIONS_PER_S from the start of `before` to the backup's end */
  registrations: { sent: number; created: number; failed: number };
}

/** The write load beside the backup row, one registration every 1/n s (not waiting for answers). */
export const REGISTRATIONS_PER_S = 50;

/**
 * The backup row: the backup CLI run beside the running service (through its store's socket, as
 * an operator runs it, to a .tar.gz), then the restore CLI into a new data directory (verify,
 * unpack, recount, erasures re-applied, rename). One client reads candidates by id, one request
 * after another, for `beforeMs` just before it, then while it runs: the
 * latency a partner sees while a backup is taken, beside the same without one. Through both,
 * partners register REGISTRATIONS_PER_S candidates a second (unique e-mails). Run on a size
 * after the load scenarios and before the import (which doubles the candidates).
 */
export async function benchBackup(
  url: string,
  apiKey: string,
  candidateIds: readonly string[],
  dataDir: string,
  sizeDir: string,
  /** how long the reader runs alone first */
  beforeMs: number,
  log: (line: string) => void,
): Promise<BackupBenchResult> {
  const archive = path.join(sizeDir, 'backup.tar.gz');
  const restored = path.join(sizeDir, 'restored');
  const logFile = path.join(sizeDir, 'backup.log');
  fs.rmSync(archive, { force: true });
  fs.rmSync(restored, { recursive: true, force: true });
  const writes = { stop: false };
  const writer = registerUntil(url, apiKey, `backup-${path.basename(sizeDir)}-${Date.now()}`, writes);
  try {
    let before: LatencySample;
    let during: LatencySample;
    let backup: ToolRun;
    try {
      before = await readWhile(url, apiKey, candidateIds, sleep(beforeMs));
      const backupRun = runTool('backup', ['dist/src/cli/backup.js', archive], dataDir, logFile);
      during = await readWhile(url, apiKey, candidateIds, backupRun);
      backup = await backupRun;
    } finally {
      writes.stop = true;
    }
    const registrations = await writer;
    log(
      `backup: ${backup.summary} (by-id p99 ${before.p99Ms.toFixed(1)} ms before, ${during.p99Ms.toFixed(1)} ms during; ` +
        `${registrations.created} of ${registrations.sent} registrations at ${REGISTRATIONS_PER_S}/s created, ${registrations.failed} failed)`,
    );
    const archiveBytes = fs.statSync(archive).size;
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
    return { backup, archiveBytes, filesBytes, restore, before, during, registrations };
  } finally {
    fs.rmSync(archive, { force: true });
    fs.rmSync(restored, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Sends a registration every 1/REGISTRATIONS_PER_S s, without waiting for the answers (an
 * open-loop load: a slow service does not slow the senders), until `state.stop`; resolves once
 * every answer is in.
 */
async function registerUntil(
  url: string,
  apiKey: string,
  tag: string,
  state: { stop: boolean },
): Promise<{ sent: number; created: number; failed: number }> {
  const counts = { sent: 0, created: 0, failed: 0 };
  const answers: Promise<void>[] = [];
  const started = performance.now();
  while (!state.stop) {
    const n = counts.sent++;
    answers.push(
      fetch(`${url}/v1/candidates/register`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(registration(`${tag}-${n}@example.org`)),
        signal: AbortSignal.timeout(60_000),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          if (response.status === 201) counts.created++;
          else counts.failed++;
        },
        () => {
          counts.failed++;
        },
      ),
    );
    await sleep(Math.max(0, started + ((n + 1) * 1000) / REGISTRATIONS_PER_S - performance.now()));
  }
  await Promise.all(answers);
  return counts;
}

/** Reads candidates by id, one request after another, until `until` settles. */
async function readWhile(
  url: string,
  apiKey: string,
  candidateIds: readonly string[],
  until: Promise<unknown>,
): Promise<LatencySample> {
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
    if (response.status !== 200) throw new Error(`a read during the backup row answered ${response.status}`);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, p50Ms: at(0.5), p99Ms: at(0.99) };
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
