/**
 * The error of a candidateStatistics count: the 95th percentile of |published - true| for the
 * noise the service adds (src/statistics/discrete-laplace.ts, scale sensitivity/ε), at several ε
 * and for the three sensitivities an answer can have. Run: `npx tsx scripts/statistics-error.ts`.
 * The figures are in README.md ("Statistics for analysts").
 */
import { DiscreteLaplaceSampler } from '../src/statistics/discrete-laplace';

const DRAWS = 200_000;
const EPSILONS = [0.25, 0.5, 1, 2, 4];
const SENSITIVITIES = [
  { what: 'one single-valued dimension (cells + total)', sensitivity: 2 },
  { what: 'one multi-valued dimension, or one multi-valued and one single-valued', sensitivity: 4 },
  { what: 'two multi-valued dimensions', sensitivity: 10 },
];

const sampler = new DiscreteLaplaceSampler();
console.log(`| ε | ${SENSITIVITIES.map((s) => `${s.what} (Δ = ${s.sensitivity})`).join(' | ')} |`);
console.log(`|---|${SENSITIVITIES.map(() => '---').join('|')}|`);
for (const epsilon of EPSILONS) {
  const row = SENSITIVITIES.map(({ sensitivity }) => {
    const errors = Array.from({ length: DRAWS }, () =>
      Math.abs(sampler.sample(Math.round(epsilon * 1000), sensitivity * 1000)),
    ).sort((a, b) => a - b);
    return `±${errors[Math.floor(DRAWS * 0.95)]}`;
  });
  console.log(`| ${epsilon} | ${row.join(' | ')} |`);
}
