/**
 * The order jest starts the test files in (jest.config.js's `testSequencer`): longest first, so
 * that no long file starts late and runs on alone while the other workers are idle.
 *
 * jest's own sequencer orders by the durations of the last run on this machine (its cache), and
 * without them, as on CI's fresh clone, by file size: the fault and crash suites are small files
 * that run for minutes, so they started last and ended the run minutes after everything else.
 * Here a file's duration is, in this order: the last run's on this machine (jest's cache), the one
 * measured in a whole run and committed in test-durations.json (`node scripts/test-durations.mjs`
 * refreshes it from a `jest --json` report), or, for a file measured nowhere yet, unknown: such a
 * file starts first (it may be long; a short one started first costs only its own seconds).
 * A file that failed in the last run still starts first, as with jest's own sequencer.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const measured = require('./test-durations.json');

const ROOT = path.resolve(__dirname, '../..');

class LongestFirstSequencer extends Sequencer {
  /**
   * @param {import('@jest/test-result').Test[]} tests
   * @returns {import('@jest/test-result').Test[]}
   */
  sort(tests) {
    /** @type {Map<string, number>} */
    const estimates = new Map();
    for (const test of tests) {
      const committed = measured.seconds[path.relative(ROOT, test.path).split(path.sep).join('/')];
      const estimate = this.time(test) ?? (committed === undefined ? Number.POSITIVE_INFINITY : committed * 1000);
      estimates.set(test.path, estimate);
      // What jest's cacheResults falls back on when a file reports no runtime of its own.
      test.duration = this.time(test);
    }
    const size = (/** @type {import('@jest/test-result').Test} */ test) => test.context.hasteFS.getSize(test.path) ?? 0;
    return [...tests].sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      const byEstimate = (estimates.get(b.path) ?? 0) - (estimates.get(a.path) ?? 0);
      if (byEstimate !== 0 && !Number.isNaN(byEstimate)) return byEstimate;
      return size(b) - size(a);
    });
  }
}

module.exports = LongestFirstSequencer;
