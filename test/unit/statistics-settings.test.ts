import { ConfigError, loadConfig } from '../../src/config';

/** The statistics settings hold what docs/operators.md and docs/analysts.md promise, checked at start. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('statistics settings', () => {
  test.each(['0.0015', '1.2345', '0', '0.0009', '10.001', '11', '-1', 'one', '', '1e-3', 'Infinity', 'NaN'])(
    'when STATISTICS_EPSILON is %j, then the start is refused with a message naming the variable and its rule',
    (value) => {
      const problems = problemsOf({ STATISTICS_EPSILON: value });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^STATISTICS_EPSILON\b/);
      expect(problems[0]).toContain('from 0.001 to 10 with at most 3 decimals');
    },
  );

  test.each([
    ['0.001', 0.001],
    ['0.125', 0.125],
    ['1', 1],
    ['2.5', 2.5],
    ['10', 10],
    ['10.000', 10],
  ])('when STATISTICS_EPSILON is %j, then it is accepted as %d', (value, epsilon) => {
    expect(loadConfig({ STATISTICS_EPSILON: value }).statisticsEpsilon).toBe(epsilon);
  });

  test.each(['2.0005', '-1', 'five', '1000000.5'])(
    'when STATISTICS_BUDGET is %j, then the start is refused with a message naming the variable and its rule',
    (value) => {
      const problems = problemsOf({ STATISTICS_BUDGET: value });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^STATISTICS_BUDGET\b/);
      expect(problems[0]).toContain('from 0 to 1000000 with at most 3 decimals');
    },
  );

  test('when STATISTICS_BUDGET has three decimals, then it is accepted', () => {
    expect(loadConfig({ STATISTICS_BUDGET: '2.125' }).statisticsBudget).toBe(2.125);
  });
});
