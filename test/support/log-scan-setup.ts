import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TEST_LOG_DIR_VARIABLE, TEST_LOGS_ROOT } from './log-capture';

/** Run directories older than this are left-overs of runs that never reached their teardown. */
const STALE_MS = 24 * 60 * 60 * 1000;

/**
 * jest global setup: a directory of its own for this run's logs and recorded secrets (several
 * runs may share the machine), named to the workers through the environment they inherit.
 */
export default function createTestLogDirectory(): void {
  removeStaleRuns();
  const directory = path.join(
    TEST_LOGS_ROOT,
    `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  fs.mkdirSync(directory, { recursive: true });
  process.env[TEST_LOG_DIR_VARIABLE] = directory;
}

function removeStaleRuns(): void {
  if (!fs.existsSync(TEST_LOGS_ROOT)) return;
  for (const entry of fs.readdirSync(TEST_LOGS_ROOT)) {
    const run = path.join(TEST_LOGS_ROOT, entry);
    if (Date.now() - fs.statSync(run).mtimeMs > STALE_MS) fs.rmSync(run, { recursive: true, force: true });
  }
}
