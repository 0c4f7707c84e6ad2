import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DestinationStream } from 'pino';

/**
 * The logs of a test run and the secrets they must not hold.
 *
 * Every app under test writes its log lines (level debug, or trace when a test captures them)
 * to a file of the run's directory; tests record every identity value and API key they send
 * (`recordSecret`, the `key()` helper of app-under-test). After the run, the jest global
 * teardown (log-scan-teardown.ts) searches every log line for every recorded value.
 */

/** Set by the global setup (log-scan-setup.ts) to the run's directory; jest workers inherit it. */
export const TEST_LOG_DIR_VARIABLE = 'CANDIDATE_DIRECTORY_TEST_LOG_DIR';

/** Parent of the per-run directories. */
export const TEST_LOGS_ROOT = path.join(os.tmpdir(), 'candidate-directory-test-logs');

export const LOG_FILE_SUFFIX = '.log';
export const SECRETS_FILE_SUFFIX = '.secrets.jsonl';

/**
 * Shorter values would match ordinary words, timestamps and random ids in the logs: a recorded
 * 4-letter name was once found inside an API key id (`key_jTW5mQvZwfsP` holds "qvzw"), and a
 * run searches thousands of lines holding such ids. At 6 letters and digits, case-insensitive,
 * one position of a random id matches a given value with a chance of 1 in 2·10⁹.
 */
const SHORTEST_SECRET = 6;

export interface RecordedSecret {
  value: string;
  /** the test file that recorded it: printed when a value is found, instead of the value */
  source: string;
}

/** The directory of this run's logs, when the global setup made one. */
export function testLogDirectory(): string | undefined {
  return process.env[TEST_LOG_DIR_VARIABLE] || undefined;
}

/**
 * Records values no log line may contain: identity data a test sends, API keys it uses.
 * Each value must be distinctive (at least 6 characters); it is matched case-insensitively.
 */
export function recordSecret(...values: string[]): void {
  const directory = testLogDirectory();
  for (const value of values) {
    if (value.trim().length < SHORTEST_SECRET)
      throw new Error(`recordSecret: a secret needs at least ${SHORTEST_SECRET} characters to be searched for`);
  }
  if (directory === undefined || values.length === 0) return;
  const source = path.basename(currentTestPath() ?? 'test/support');
  const lines = values.map((value) => `${JSON.stringify({ value, source } satisfies RecordedSecret)}\n`).join('');
  fs.appendFileSync(path.join(directory, `${process.pid}${SECRETS_FILE_SUFFIX}`), lines);
}

/** A pino destination that keeps every line in memory, for tests that read what was logged. */
export class LogCapture implements DestinationStream {
  private readonly captured: string[] = [];

  write(line: string): void {
    this.captured.push(line);
  }

  /** Every line written so far, as written (JSON text). */
  lines(): string[] {
    return this.captured.flatMap((chunk) => chunk.split('\n')).filter((line) => line !== '');
  }

  /** Every line written so far, parsed. */
  records(): Record<string, unknown>[] {
    return this.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

/**
 * Where an app under test logs: a file of this run's directory named by `label`, unique to the
 * app (level debug), and, when a test reads the logs, its capture too (level trace). Without a
 * run directory and a capture, nothing is logged.
 */
export function appLogDestination(
  label: string,
  capture?: LogCapture,
): { level: 'trace' | 'debug' | 'silent'; destination: DestinationStream } {
  const directory = testLogDirectory();
  const file = directory && path.join(directory, `${process.pid}-${label}${LOG_FILE_SUFFIX}`);
  // appendFileSync: a line logged after the app stopped (a late request) still lands, and no descriptor is left open.
  const toFile = (line: string) => (file ? fs.appendFileSync(file, line) : undefined);
  return {
    level: capture ? 'trace' : file ? 'debug' : 'silent',
    destination: {
      write(line: string) {
        toFile(line);
        capture?.write(line);
      },
    },
  };
}

function currentTestPath(): string | undefined {
  const jestExpect = (globalThis as { expect?: { getState?: () => { testPath?: string } } }).expect;
  return jestExpect?.getState?.().testPath;
}
