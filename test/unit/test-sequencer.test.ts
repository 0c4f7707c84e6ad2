import path from 'node:path';

/** jest.config.js's testSequencer: the order the test files start in on a clone without jest's own timings. */
const ROOT = path.resolve(__dirname, '../..');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('../support/test-sequencer.js') as new () => {
  sort(tests: FakeTest[]): FakeTest[];
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const measured = require('../support/test-durations.json') as { seconds: Record<string, number> };

interface FakeTest {
  path: string;
  context: { config: { cache: boolean; rootDir: string }; hasteFS: { getSize(file: string): number } };
}

/** Test files as jest hands them over, without a timing cache (a fresh clone); every file `size` bytes. */
function testsOf(files: readonly string[], size = 1000): FakeTest[] {
  const context = { config: { cache: false, rootDir: ROOT }, hasteFS: { getSize: () => size } };
  return files.map((file) => ({ path: path.join(ROOT, file), context }));
}

const order = (tests: FakeTest[]) => new Sequencer().sort(tests).map((test) => path.relative(ROOT, test.path));

describe('test sequencer', () => {
  test('when jest has no timings of its own, then the files start longest first by the committed durations', () => {
    const byDuration = Object.entries(measured.seconds)
      .sort(([, a], [, b]) => b - a)
      .map(([file]) => file);
    const longest = byDuration.slice(0, 3);
    const short = byDuration.slice(-3);

    expect(order(testsOf([...short, ...longest].reverse()))).toEqual([...longest, ...short]);
  });

  test('when a file has no committed duration, then it starts before the measured ones, and unmeasured files go by size', () => {
    const [measuredFile] = Object.keys(measured.seconds);
    const tests = [
      ...testsOf([measuredFile]),
      ...testsOf(['test/unit/not-measured-small.test.ts'], 10),
      ...testsOf(['test/unit/not-measured-large.test.ts'], 5000),
    ];

    expect(order(tests)).toEqual([
      'test/unit/not-measured-large.test.ts',
      'test/unit/not-measured-small.test.ts',
      measuredFile,
    ]);
  });
});
