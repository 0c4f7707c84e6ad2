import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiscreteLaplaceSampler } from '../../src/statistics/discrete-laplace';
import { seededBytes } from '../support/seeded-bytes';

/** The exact probability of x when sampling with exp(-|x|·s/t) (floating point is fine here: it only checks). */
function pmf(x: number, s: number, t: number): number {
  const q = Math.exp(-s / t);
  return ((1 - q) / (1 + q)) * q ** Math.abs(x);
}

/** Upper 0.999 quantile of chi-square with k degrees of freedom (Wilson-Hilferty). */
function chiSquareCritical(k: number): number {
  const z = 3.09;
  return k * (1 - 2 / (9 * k) + z * Math.sqrt(2 / (9 * k))) ** 3;
}

describe('discrete Laplace sampler', () => {
  it.each([
    [1, 2], // ε = 0.5 at sensitivity 1
    [1, 4], // ε = 0.5 at sensitivity 2 (cells and total)
    [3, 2], // ε = 1.5
    [1000, 4000], // ε = 1 at sensitivity 4, as the service asks it (ε in thousandths)
  ])(
    'when 100,000 values are drawn with s=%i, t=%i, then their counts match the exact pmf (chi-square at p = 0.001)',
    (s, t) => {
      const sampler = new DiscreteLaplaceSampler();
      const draws = 100_000;
      const counts = new Map<number, number>();
      for (let i = 0; i < draws; i++) {
        const x = sampler.sample(s, t);
        counts.set(x, (counts.get(x) ?? 0) + 1);
      }
      // Bins: each x with an expected count of at least 20, and the two tails pooled.
      let bound = 0;
      while (pmf(bound + 1, s, t) * draws >= 20) bound++;
      let statistic = 0;
      let bins = 0;
      let centralProbability = 0;
      for (let x = -bound; x <= bound; x++) {
        const expected = pmf(x, s, t) * draws;
        centralProbability += pmf(x, s, t);
        statistic += ((counts.get(x) ?? 0) - expected) ** 2 / expected;
        bins++;
      }
      let tails = 0;
      for (const [x, count] of counts) if (Math.abs(x) > bound) tails += count;
      const expectedTails = (1 - centralProbability) * draws;
      statistic += (tails - expectedTails) ** 2 / expectedTails;
      bins++;
      expect(statistic).toBeLessThan(chiSquareCritical(bins - 1));
    },
  );

  it('when the same bytes are given twice, then the same noise comes out (the bytes are its only randomness)', () => {
    const first = new DiscreteLaplaceSampler(seededBytes(42));
    const second = new DiscreteLaplaceSampler(seededBytes(42));
    const a = Array.from({ length: 1000 }, () => first.sample(1, 4));
    const b = Array.from({ length: 1000 }, () => second.sample(1, 4));
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThan(5);
    const other = new DiscreteLaplaceSampler(seededBytes(43));
    expect(Array.from({ length: 1000 }, () => other.sample(1, 4))).not.toEqual(a);
  });

  it('when the sampler source is read, then it uses no floating-point randomness or transcendental function', () => {
    const source = readFileSync(join(__dirname, '../../src/statistics/discrete-laplace.ts'), 'utf8');
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const forbidden of ['Math.random', 'Math.log', 'Math.exp', 'Math.pow', '**', 'Math.sqrt', 'Number.EPSILON']) {
      expect(code).not.toContain(forbidden);
    }
    expect(code).toContain('randomFillSync');
  });

  it('when the statistics service source is read, then its noise comes from the sampler alone', () => {
    const source = readFileSync(join(__dirname, '../../src/statistics/statistics-service.ts'), 'utf8');
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const forbidden of ['Math.random', 'randomInt', 'randomBytes', 'getRandomValues']) {
      expect(code).not.toContain(forbidden);
    }
    expect(code).toContain('this.sampler.sample(');
  });
});
