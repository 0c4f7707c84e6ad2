import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { killGroup, spawnChild } from './children';
import { peakRssOf } from './probe';
import { REPO, tail, toolEnvironment } from './service';

/** One run of `node dist/src/cli/import.js <file>`. */
export interface ImportRun {
  wallMs: number;
  /** VmHWM of the import process, last read before it exited (sampled every 100 ms) */
  peakRss: number;
  /** the summary line it printed */
  summary: string;
}

export interface ImportBenchResult {
  lines: number;
  fileBytes: number;
  /** paging every candidate out of REST into the file (not part of the import) */
  exportMs: number;
  /** every line a new candidate */
  first: ImportRun;
  /** the same file again: every line unchanged */
  second: ImportRun;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Another valid publicId, one to one: the first character moved half the alphabet on. */
function otherPublicId(publicId: string): string {
  const index = BASE64URL.indexOf(publicId[0]);
  return `${BASE64URL[(index + 32) % 64]}${publicId.slice(1)}`;
}

/**
 * The import row: every candidate of the store paged out of REST (`includeEmployed=true`, pages
 * of 100, the page shape), under other publicIds, into an NDJSON file; then the import tool run
 * twice on it beside the running service (it connects to the service's store): all inserted, then
 * all unchanged. Run last on a size, after the load scenarios, since it doubles the candidates.
 */
export async function benchImport(
  url: string,
  apiKey: string,
  dataDir: string,
  sizeDir: string,
  log: (line: string) => void,
): Promise<ImportBenchResult> {
  const file = path.join(sizeDir, 'import.ndjson');
  const logFile = path.join(sizeDir, 'import.log');
  const exportStarted = performance.now();
  const out = fs.createWriteStream(file);
  let lines = 0;
  for (let page = 0, pages = 1; page < pages; page++) {
    const response = await fetch(`${url}/v1/candidates?includeEmployed=true&limit=100&page=${page}`, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(60_000),
    });
    if (response.status !== 200) throw new Error(`export for the import: page ${page} answered ${response.status}`);
    const body = (await response.json()) as { content: Record<string, unknown>[]; totalPages: number };
    pages = body.totalPages;
    for (const candidate of body.content) {
      const line = `${JSON.stringify({ ...candidate, publicId: otherPublicId(candidate.publicId as string) })}\n`;
      if (!out.write(line)) await once(out, 'drain');
      lines++;
    }
  }
  out.end();
  await once(out, 'finish');
  const exportMs = performance.now() - exportStarted;
  log(`import: ${lines} candidates paged out of REST in ${(exportMs / 1000).toFixed(1)} s`);
  const first = await runImport(file, dataDir, logFile);
  log(`import: ${first.summary} (peak RSS ${Math.round(first.peakRss / 2 ** 20)} MiB)`);
  const second = await runImport(file, dataDir, logFile);
  log(`import again: ${second.summary} (peak RSS ${Math.round(second.peakRss / 2 ** 20)} MiB)`);
  const fileBytes = fs.statSync(file).size;
  fs.rmSync(file, { force: true });
  return { lines, fileBytes, exportMs, first, second };
}

async function runImport(file: string, dataDir: string, logFile: string): Promise<ImportRun> {
  const log = fs.openSync(logFile, 'a');
  const started = performance.now();
  const child = spawnChild('import', process.execPath, [path.join(REPO, 'dist/src/cli/import.js'), file], {
    cwd: REPO,
    env: toolEnvironment(dataDir),
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  let peakRss = 0;
  const sample = () => (peakRss = Math.max(peakRss, peakRssOf(child.pid) ?? 0));
  const timer = setInterval(sample, 100);
  const { code, signal } = await child.exited();
  clearInterval(timer);
  const wallMs = performance.now() - started;
  await killGroup(child.pid);
  const output = fs.readFileSync(logFile, 'utf8');
  if (code !== 0) throw new Error(`the import exited with ${code ?? signal}; last output:\n${tail(output)}`);
  const summary = [...output.matchAll(/^Imported: .*$/gm)].at(-1)?.[0] ?? '(no summary)';
  return { wallMs, peakRss, summary };
}
