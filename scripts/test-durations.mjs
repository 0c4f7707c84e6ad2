// Writes test/support/test-durations.json, the seconds each test file took, from the report of a
// whole run (`npx jest --json --outputFile=report.json`): test/support/test-sequencer.js starts the
// longest files first with it. Run it after adding or changing a long test file:
//   node scripts/test-durations.mjs report.json "quiet 2-core machine"
// The second argument says where it was measured (the load), written beside the figures.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [reportFile, conditions] = process.argv.slice(2);
if (!reportFile || !conditions) {
  console.error('usage: node scripts/test-durations.mjs <jest --json report> "<conditions of the run>"');
  process.exit(2);
}
const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
const seconds = Object.fromEntries(
  report.testResults
    .map((result) => [
      path.relative(root, result.name).split(path.sep).join('/'),
      Math.round((result.endTime - result.startTime) / 100) / 10,
    ])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
const target = path.join(root, 'test/support/test-durations.json');
const about =
  'Seconds each test file took in a whole run, for test/support/test-sequencer.js (longest first). Refreshed by scripts/test-durations.mjs.';
fs.writeFileSync(target, `${JSON.stringify({ about, measured: conditions, seconds }, null, 2)}\n`);
console.log(`${Object.keys(seconds).length} files written to ${path.relative(root, target)}`);
