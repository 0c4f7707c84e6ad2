import fs from 'node:fs';
import path from 'node:path';
import { LOG_FILE_SUFFIX, SECRETS_FILE_SUFFIX, TEST_LOG_DIR_VARIABLE, type RecordedSecret } from './log-capture';

/**
 * jest global teardown: searches every log line the run's apps wrote for every identity value
 * and API key the tests recorded (case-insensitively), and fails the run when one is found,
 * naming the file, the number of lines and the test files that recorded the values, never
 * the values. The directory is removed after a clean scan and kept for inspection otherwise.
 */
export default function scanTestLogs(): void {
  const directory = process.env[TEST_LOG_DIR_VARIABLE];
  if (!directory || !fs.existsSync(directory)) return;
  const files = fs.readdirSync(directory).sort();
  const secrets = readSecrets(
    directory,
    files.filter((file) => file.endsWith(SECRETS_FILE_SUFFIX)),
  );

  let scanned = 0;
  const findings: string[] = [];
  const logFiles = files.filter((file) => file.endsWith(LOG_FILE_SUFFIX));
  for (const file of logFiles) {
    let lines = 0;
    const sources = new Set<string>();
    for (const line of fs.readFileSync(path.join(directory, file), 'utf8').split('\n')) {
      if (line === '') continue;
      scanned += 1;
      const text = line.toLowerCase();
      const found = secrets.filter((secret) => text.includes(secret.value));
      if (found.length === 0) continue;
      lines += 1;
      for (const secret of found) secret.sources.forEach((source) => sources.add(source));
    }
    if (lines > 0) findings.push(`${file}: ${lines} line(s) hold values recorded by ${[...sources].sort().join(', ')}`);
  }

  const summary = `log privacy scan: ${scanned} log lines in ${logFiles.length} files searched for ${secrets.length} recorded identity values and API keys`;
  if (findings.length > 0) {
    throw new Error(`${summary}: FOUND in\n  ${findings.join('\n  ')}\nThe logs are kept in ${directory}`);
  }
  process.stdout.write(`\n${summary}: none found.\n`);
  fs.rmSync(directory, { recursive: true, force: true });
}

/** Distinct recorded values, lower-cased for a case-insensitive search, with the test files that recorded each. */
function readSecrets(directory: string, files: string[]): { value: string; sources: Set<string> }[] {
  const byValue = new Map<string, Set<string>>();
  for (const file of files) {
    for (const line of fs.readFileSync(path.join(directory, file), 'utf8').split('\n')) {
      if (line === '') continue;
      const { value, source } = JSON.parse(line) as RecordedSecret;
      const sources = byValue.get(value.toLowerCase()) ?? new Set<string>();
      byValue.set(value.toLowerCase(), sources.add(source));
    }
  }
  return [...byValue].map(([value, sources]) => ({ value, sources }));
}
