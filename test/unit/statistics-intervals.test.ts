/**
 * The 95 % intervals of published counts (src/statistics/noise-intervals.ts): their half-width
 * against the discrete Laplace pmf summed term by term, and their coverage measured by drawing
 * from the service's own exact sampler (seeded, so a run is reproducible) at each ε of 0.25, 1
 * and 4 and each Δ the service uses.
 */
import { DIMENSIONS, type Dimension } from '../../src/statistics/dimensions';
import { DiscreteLaplaceSampler } from '../../src/statistics/discrete-laplace';
import { seededBytes } from '../support/seeded-bytes';
import { CONFIDENCE, coverage, halfWidth, intervalAround } from '../../src/statistics/noise-intervals';
import { MAX_DIMENSIONS, sensitivityOf } from '../../src/statistics/statistics-service';

/** P(|X| <= t), summed from the pmf (1-q)/(1+q)·q^|x|: the test's own statement of the distribution. */
function summedCoverage(epsilon: number, sensitivity: number, t: number): number {
  const q = Math.exp(-epsilon / sensitivity);
  let sum = 0;
  for (let x = -t; x <= t; x++) sum += ((1 - q) / (1 + q)) * q ** Math.abs(x);
  return sum;
}

/** Every Δ the service gives an answer: over every groupBy of 0 to MAX_DIMENSIONS distinct dimensions. */
function sensitivitiesInUse(): number[] {
  const found = new Set<number>([sensitivityOf([])]);
  const grow = (groupBy: Dimension[]) => {
    if (groupBy.length > 0) found.add(sensitivityOf(groupBy));
    if (groupBy.length === MAX_DIMENSIONS) return;
    for (const dimension of DIMENSIONS) if (!groupBy.includes(dimension)) grow([...groupBy, dimension]);
  };
  grow([]);
  return [...found].sort((a, b) => a - b);
}

const EPSILONS = [0.25, 1, 4];
const SENSITIVITIES = sensitivitiesInUse();
/**
 * Draws per (ε, Δ): the measured coverage then has a standard error of about 0.15 %, so ±1 % is
 * more than 6 standard errors (a correct interval never fails), while an interval built on the
 * wrong scale (Δ left out, or the 90 % point) misses by several percent.
 */
const DRAWS = 20_000;
/** True counts the draws are added to: 0 and small ones, where a total's cut at 0 matters, and larger ones. */
const TRUE_COUNTS = [0, 1, 3, 40, 1000];

describe('95 % intervals of published counts', () => {
  test('when the service answers, then its Δ is one of 1, 2, 4 and 10 (the values the coverage below is measured at)', () => {
    expect(SENSITIVITIES).toEqual([1, 2, 4, 10]);
  });

  test.each(EPSILONS.flatMap((epsilon) => SENSITIVITIES.map((sensitivity) => [epsilon, sensitivity])))(
    'when ε = %d and Δ = %d, then the half-width is the smallest t whose summed pmf reaches 95 %, and the closed form agrees with the sum',
    (epsilon, sensitivity) => {
      const t = halfWidth(epsilon, sensitivity);

      expect(summedCoverage(epsilon, sensitivity, t)).toBeGreaterThanOrEqual(CONFIDENCE);
      if (t > 0) expect(summedCoverage(epsilon, sensitivity, t - 1)).toBeLessThan(CONFIDENCE);
      expect(coverage(epsilon, sensitivity, t)).toBeCloseTo(summedCoverage(epsilon, sensitivity, t), 12);
    },
  );

  test.each(EPSILONS.flatMap((epsilon) => SENSITIVITIES.map((sensitivity) => [epsilon, sensitivity])))(
    'when noise is drawn by the exact sampler at ε = %d and Δ = %d, then the intervals of cells hold the true count as often as the distribution says (at least 95 %, within ±1 %), and those of totals cut at 0 at least as often',
    (epsilon, sensitivity) => {
      const sampler = new DiscreteLaplaceSampler(seededBytes(epsilon * 1000 + sensitivity));
      const t = halfWidth(epsilon, sensitivity);
      let cellsHeld = 0;
      let totalsHeld = 0;
      for (let i = 0; i < DRAWS; i++) {
        const truth = TRUE_COUNTS[i % TRUE_COUNTS.length];
        // As the service adds it: ε in thousandths, Δ·1000.
        const noisy = truth + sampler.sample(epsilon * 1000, sensitivity * 1000);
        const cell = intervalAround(noisy, t);
        // A total is never published below 0.
        const total = intervalAround(Math.max(0, noisy), t);
        if (cell.low <= truth && truth <= cell.high) cellsHeld++;
        if (total.low <= truth && truth <= total.high) totalsHeld++;
      }
      const exact = coverage(epsilon, sensitivity, t);

      expect(exact).toBeGreaterThanOrEqual(CONFIDENCE);
      expect(Math.abs(cellsHeld / DRAWS - exact)).toBeLessThanOrEqual(0.01);
      expect(totalsHeld).toBeGreaterThanOrEqual(cellsHeld);
    },
  );

  test('when a published count is near 0, then its interval starts at 0, never below', () => {
    expect(intervalAround(3, 6)).toEqual({ low: 0, high: 9 });
    expect(intervalAround(20, 6)).toEqual({ low: 14, high: 26 });
  });

  test('when ε is doubled, then the half-width about halves (the noise scale is Δ/ε)', () => {
    const wide = halfWidth(0.25, 10);
    const narrow = halfWidth(0.5, 10);

    // The half-width docs/analysts.md gives for two multi-valued dimensions at ε = 0.25.
    expect(wide).toBe(120);
    expect(Math.abs(narrow * 2 - wide)).toBeLessThanOrEqual(2);
  });
});
