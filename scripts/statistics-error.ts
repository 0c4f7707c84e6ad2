/**
 * The error of candidateStatistics counts, measured on the demo data: the service is started on
 * an embedded store in a temporary directory, which it fills with the quick-start demo data
 * (DEMO_CANDIDATES = 2,000, seed 1) as `npm start` does; real statistics queries are asked over
 * GraphQL at several ε, each repetition with a new key (a repeat of a query by the same key would
 * be the stored answer, with the same noise); every published number is compared with the true
 * count the store gives for it (StatisticsRepository, no noise).
 *
 * Measured: the total of each answer (always published) and every listed cell whose true count is
 * at least twice minimumCellSize (noise almost never hides such a cell, so the listing does not
 * bias what is measured). All the numbers of one answer have noise of the same scale Δ/ε, so the
 * three queries stand for the three scales an answer can have.
 *
 * Run: `npx tsx scripts/statistics-error.ts [--repeats 200] [--numbers 1000]`: each figure from at
 * least that many answers and measured numbers (about 15 minutes on 2 busy cores). The figures
 * are in docs/analysts.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKeyRepository } from '../src/auth/api-key-repository';
import { ApiKeyService } from '../src/auth/api-key-service';
import { toSearchFilter } from '../src/candidates/search-input';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { createApp } from '../src/app/main';
import { codeOf, storedKeyOf, type Dimension } from '../src/statistics/dimensions';
import { StatisticsRepository } from '../src/statistics/statistics-repository';

const EPSILONS = [0.25, 0.5, 1, 2, 4];
const QUERIES: { what: string; groupBy: Dimension[]; sensitivity: number }[] = [
  { what: 'one single-valued dimension: GENDER', groupBy: ['GENDER'], sensitivity: 2 },
  { what: 'one multi-valued dimension: LANGUAGE', groupBy: ['LANGUAGE'], sensitivity: 4 },
  { what: 'two multi-valued dimensions: OCCUPATION × LANGUAGE', groupBy: ['OCCUPATION', 'LANGUAGE'], sensitivity: 10 },
];

const QUERY = `query ($groupBy: [CandidateDimension!]!, $epsilon: Float) {
  candidateStatistics(groupBy: $groupBy, epsilon: $epsilon) {
    total minimumCellSize cells { count values { code } }
  }
}`;

interface Answer {
  total: number;
  minimumCellSize: number;
  cells: { count: number; values: { code: string }[] }[];
}

/** The 95th percentile of |noise| for scale Δ/ε, from the exact distribution (for comparison only). */
function exact95(epsilon: number, sensitivity: number): number {
  // P(|X| > k) = 2·q^(k+1)/(1+q), q = exp(-ε/Δ)
  const q = Math.exp(-epsilon / sensitivity);
  let k = 0;
  while ((2 * q ** (k + 1)) / (1 + q) > 0.05) k++;
  return k;
}

function percentile95(errors: number[]): number {
  const sorted = [...errors].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.95) - 1];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { repeats: { type: 'string', default: '200' }, numbers: { type: 'string', default: '1000' } },
  });
  const repeats = Number(values.repeats);
  const numbers = Number(values.numbers);
  const dataDir = mkdtempSync(join(tmpdir(), 'statistics-error-'));
  const config = loadConfig({}, { port: 0, dataDir, host: '127.0.0.1', logLevel: 'silent' });
  const app = await createApp(config, createLogger(config));
  try {
    const url = await app.start();
    const db = app.database.db;
    const keys = new ApiKeyService(createApiKeyRepository(db));
    const repository = new StatisticsRepository(db);
    const now = new Date();

    // The true counts, per query, by the codes the service publishes.
    const truth = new Map<string, { total: number; cells: Map<string, number> }>();
    for (const { groupBy } of QUERIES) {
      const filter = toSearchFilter(undefined, false);
      const cells = new Map<string, number>();
      for (const group of await repository.groupCounts(filter, groupBy.map(storedKeyOf))) {
        const code = groupBy.map((dimension, i) => codeOf(dimension, group.values[i], now)).join('|');
        cells.set(code, (cells.get(code) ?? 0) + group.count);
      }
      truth.set(groupBy.join('|'), { total: await repository.count(filter), cells });
    }

    // Rounds of one answer per ε and query, each round with a new key, until each figure has
    // `repeats` answers and `numbers` measured numbers (a two-dimension answer has few large
    // cells: mostly its total counts).
    const errors = new Map<string, number[]>();
    const answers = new Map<string, number>();
    const started = Date.now();
    for (;;) {
      const due = EPSILONS.flatMap((epsilon) =>
        QUERIES.filter(({ groupBy }) => {
          const id = `${epsilon}|${groupBy.join('|')}`;
          return (answers.get(id) ?? 0) < repeats || (errors.get(id) ?? []).length < numbers;
        }).map(({ groupBy }) => ({ epsilon, groupBy })),
      );
      if (due.length === 0) break;
      const { key } = await keys.createKey({
        name: 'statistics-error',
        permissions: ['READ_STATISTICS'],
        statisticsBudget: 1000,
      });
      for (const { epsilon, groupBy } of due) {
        const id = `${epsilon}|${groupBy.join('|')}`;
        const answer = await ask(url, key, groupBy, epsilon);
        const { total, cells } = truth.get(groupBy.join('|'))!;
        const measured = errors.get(id) ?? [];
        measured.push(Math.abs(answer.total - total));
        for (const cell of answer.cells) {
          const count = cells.get(cell.values.map((value) => value.code).join('|')) ?? 0;
          if (count >= 2 * answer.minimumCellSize) measured.push(Math.abs(cell.count - count));
        }
        errors.set(id, measured);
        answers.set(id, (answers.get(id) ?? 0) + 1);
      }
    }

    const totals = QUERIES.map(({ groupBy }) => truth.get(groupBy.join('|'))!.total);
    console.log(
      `${totals[0]} listed candidates of the demo data; at least ${repeats} answers and ${numbers} numbers per ε and query, in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    console.log(
      '95th percentile of |published - true| (in brackets: of the exact noise distribution; n numbers measured in a answers)',
    );
    console.log(`| ε | ${QUERIES.map((q) => `${q.what} (Δ = ${q.sensitivity})`).join(' | ')} |`);
    console.log(`|---|${QUERIES.map(() => '---').join('|')}|`);
    for (const epsilon of EPSILONS) {
      const row = QUERIES.map(({ groupBy, sensitivity }) => {
        const measured = errors.get(`${epsilon}|${groupBy.join('|')}`)!;
        const asked = answers.get(`${epsilon}|${groupBy.join('|')}`)!;
        return `±${percentile95(measured)} (±${exact95(epsilon, sensitivity)}; n = ${measured.length}, a = ${asked})`;
      });
      console.log(`| ${epsilon} | ${row.join(' | ')} |`);
    }
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function ask(url: string, key: string, groupBy: Dimension[], epsilon: number): Promise<Answer> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: QUERY, variables: { groupBy, epsilon } }),
  });
  const body = (await response.json()) as { data?: { candidateStatistics: Answer }; errors?: unknown };
  if (!body.data) throw new Error(`statistics query refused: ${JSON.stringify(body.errors)}`);
  return body.data.candidateStatistics;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
