/**
 * The differencing ("tracker") attack of Denning, Denning & Schwartz (1979) on candidateStatistics,
 * on the quick-start demo data: pairs of queries whose populations differ by exactly one
 * candidate (a filter with exactly one EMPLOYED candidate, asked with includeEmployed false and
 * true), grouped by a dimension the attacker wants to learn of that person. The attacker guesses
 * the value whose count rose most between the two answers (no guess when none rose).
 *
 * Under ε-differential privacy the guesses may be right no more often than e^ε/(1+e^ε) (plus three
 * standard errors); the same attack on the previous mechanism (minimum cell 10, rounding to 5:
 * test/support/previous-disclosure-control.ts, applied to the true counts) is right at least 90 % of
 * the time, which is why it was replaced.
 */
import { ApiKeyService } from '../../src/auth/api-key-service';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import type { StoredCandidateDoc } from 'candidate-documents';
import { toSearchFilter } from '../../src/candidates/search-input';
import { codeOf, storedKeyOf, type Dimension } from '../../src/statistics/dimensions';
import { StatisticsRepository, type GroupCount } from '../../src/statistics/statistics-repository';
import { startAppUnderTest, graphql, type AppUnderTest } from '../support/app-under-test';
import { publishedCount } from '../support/previous-disclosure-control';

/** The quick-start data: `npm start` seeds 2,000 demo candidates (DEMO_CANDIDATES). */
const CANDIDATES = 2000;
const EPSILON = 1;
/**
 * Pairs attacked. The demo data holds more (331 at seed 1); the attack runs on this many, spread
 * over all of them. Its power: about three pairs in four give a guess under ε = 1, so some 150
 * guesses, whose standard error at the bound e/(1+e) = 0.731 is 0.036: the check fails any
 * mechanism that lets the attacker be right 0.84 of the time or more (the previous one: 1.0).
 */
const PAIRS = 200;
/**
 * The app's clock: age bands are computed in this year. A future date: the budgets and answers
 * expire at the end of its day (TTL indexes), and a date in the past would let the store's TTL
 * pass delete a budget between its creation and its charge, refusing a query for no reason.
 */
const NOW = new Date(Date.UTC(2030, 10, 25));
/** Seeding 2,000 candidates and checking every pair's counts against the store: seconds of work. */
const SETUP_TIMEOUT_MS = 120_000;
/**
 * PAIRS attacked, each with a key and two statistics queries that are charged and stored: the
 * number the statistical power needs (above), each query a real request, about half a second a
 * pair on a 2-core machine running eight other suites, so the limit leaves room for worse.
 */
const ATTACK_TIMEOUT_MS = 300_000;
/** Single-valued dimensions whose value is the attacker's target (STATUS is known: EMPLOYED). */
const TARGETS: Dimension[] = [
  'GENDER',
  'NATIONALITY',
  'LOCATION',
  'EDUCATION_LEVEL',
  'AGE_BAND',
  'YEAR_OF_ARRIVAL',
  'REGISTRATION_YEAR',
];

interface Filter {
  location?: string[];
  nationality?: string[];
  occupation?: string[];
}

interface Pair {
  filter: Filter;
  dimension: Dimension;
  /** the person's true code in the dimension */
  secret: string;
}

/** The attacker: the code whose count rose most from `without` to `with` (unlisted: 0); null when none rose. */
function guess(without: Map<string, number>, withPerson: Map<string, number>): string | null {
  let best: string | null = null;
  let rise = 0;
  for (const code of new Set([...without.keys(), ...withPerson.keys()])) {
    const delta = (withPerson.get(code) ?? 0) - (without.get(code) ?? 0);
    if (delta > rise || (delta === rise && best !== null && code < best)) {
      best = code;
      rise = delta;
    }
  }
  return rise > 0 ? best : null;
}

/** `count` of `items`, evenly spaced over all of them (all when there are no more). */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, (_v, i) => items[Math.floor((i * items.length) / count)]);
}

interface Score {
  pairs: number;
  guesses: number;
  right: number;
}

describe('the differencing attack on candidateStatistics', () => {
  let service: AppUnderTest;
  let pairs: Pair[];
  let repository: StatisticsRepository;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: CANDIDATES, seed: 1, clock: { now: () => NOW } });
    repository = new StatisticsRepository(service.db);
    pairs = await differingPairs();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await service.stop();
  });

  /**
   * Filters (one or two of a location, a nationality and an occupation) that select exactly one
   * candidate more with includeEmployed than without (one EMPLOYED, not listed), among at least
   * 10 listed ones; checked again with the store's own counts.
   */
  async function differingPairs(): Promise<Pair[]> {
    const docs = await service.db.collection<StoredCandidateDoc>('candidates').find({}).toArray();
    const byFilter = new Map<string, { filter: Filter; listed: number; unlisted: StoredCandidateDoc[] }>();
    for (const doc of docs) {
      const location = doc.countryIsoCode ? [{ location: [doc.countryIsoCode] }] : [];
      const nationality = doc.nationalityIsoCode ? [{ nationality: [doc.nationalityIsoCode] }] : [];
      const occupation = [
        ...new Set((doc.candidateOccupations ?? []).map((o) => o.occupation?.isco08Code).filter(Boolean)),
      ].map((code) => ({ occupation: [String(code)] }));
      const singles: Filter[] = [...location, ...nationality, ...occupation];
      const doubles: Filter[] = singles.flatMap((a, i) =>
        singles.slice(i + 1).flatMap((b) => (Object.keys(a)[0] === Object.keys(b)[0] ? [] : [{ ...a, ...b }])),
      );
      for (const filter of [...singles, ...doubles]) {
        const id = JSON.stringify(filter);
        const entry = byFilter.get(id) ?? { filter, listed: 0, unlisted: [] };
        if (doc.listed) entry.listed++;
        else entry.unlisted.push(doc);
        byFilter.set(id, entry);
      }
    }
    const found: Pair[] = [];
    for (const { filter, listed, unlisted } of byFilter.values()) {
      if (unlisted.length !== 1 || listed < 10) continue;
      const without = await repository.count(toSearchFilter(filter, false));
      expect([filter, await repository.count(toSearchFilter(filter, true))]).toEqual([filter, without + 1]);
      const person = unlisted[0] as unknown as Record<string, unknown>;
      for (const dimension of TARGETS) {
        if (dimension === 'LOCATION' && filter.location) continue;
        if (dimension === 'NATIONALITY' && filter.nationality) continue;
        const { path, year } = storedKeyOf(dimension);
        const stored = person[path] ?? null;
        const value = year && stored instanceof Date ? stored.getUTCFullYear() : stored;
        found.push({ filter, dimension, secret: codeOf(dimension, value, NOW) });
      }
    }
    return found;
  }

  /**
   * The true counts by code of one side of a pair: one grouping of its filter's candidates by
   * every target dimension at once (kept for the other pairs of the filter), summed per code of
   * the pair's dimension.
   */
  const groupings = new Map<string, Promise<GroupCount[]>>();
  async function trueCounts(pair: Pair, includeEmployed: boolean): Promise<Map<string, number>> {
    const id = JSON.stringify([pair.filter, includeEmployed]);
    let grouping = groupings.get(id);
    if (grouping === undefined) {
      grouping = repository.groupCounts(toSearchFilter(pair.filter, includeEmployed), TARGETS.map(storedKeyOf));
      groupings.set(id, grouping);
    }
    const at = TARGETS.indexOf(pair.dimension);
    const counts = new Map<string, number>();
    for (const group of await grouping) {
      const code = codeOf(pair.dimension, group.values[at], NOW);
      counts.set(code, (counts.get(code) ?? 0) + group.count);
    }
    return counts;
  }

  /** The previous mechanism: cells under 10 withheld, the others rounded to 5. */
  function previouslyPublished(counts: Map<string, number>): Map<string, number> {
    const published = new Map<string, number>();
    for (const [code, count] of counts) {
      const shown = publishedCount(count, { minimumCellSize: 10, rounding: 5 });
      if (shown !== null) published.set(code, shown);
    }
    return published;
  }

  async function differentiallyPrivate(
    pair: Pair,
    key: string,
    includeEmployed: boolean,
  ): Promise<Map<string, number>> {
    const { body } = await graphql<{
      candidateStatistics: { epsilonCharged: number; cells: { count: number; values: { code: string }[] }[] };
    }>(
      service.url,
      `
        query ($filter: CandidateFilter, $includeEmployed: Boolean, $groupBy: [CandidateDimension!]!) {
          candidateStatistics(filter: $filter, includeEmployed: $includeEmployed, groupBy: $groupBy) {
            epsilonCharged
            cells {
              count
              values {
                code
              }
            }
          }
        }
      `,
      { filter: pair.filter, includeEmployed, groupBy: [pair.dimension] },
      key,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data!.candidateStatistics.epsilonCharged).toBe(EPSILON);
    return new Map(body.data!.candidateStatistics.cells.map((cell) => [cell.values[0].code, cell.count]));
  }

  function tally(score: Score, guessed: string | null, secret: string): void {
    score.pairs++;
    if (guessed === null) return;
    score.guesses++;
    if (guessed === secret) score.right++;
  }

  test(`when the demo data is searched for pairs of populations that differ by one candidate, then there are at least ${PAIRS}`, () => {
    expect(pairs.length).toBeGreaterThanOrEqual(PAIRS);
  });

  test('when the attack runs on the previous mechanism (minimum cell, rounding), then its guesses are right at least 90 % of the time', async () => {
    // Act
    const score: Score = { pairs: 0, guesses: 0, right: 0 };
    for (const pair of pairs) {
      const without = previouslyPublished(await trueCounts(pair, false));
      const withPerson = previouslyPublished(await trueCounts(pair, true));
      tally(score, guess(without, withPerson), pair.secret);
    }

    // Assert
    console.log(`previous mechanism: ${JSON.stringify(score)}`);
    expect(score.guesses).toBeGreaterThanOrEqual(10);
    expect(score.right / score.guesses).toBeGreaterThanOrEqual(0.9);
  });

  test(
    `when the attack runs on candidateStatistics at ε = ${EPSILON} with a fresh budget for each pair, then its guesses are right no more often than e^ε/(1+e^ε) plus three standard errors`,
    async () => {
      // Arrange
      const keys = new ApiKeyService(createApiKeyRepository(service.db), { now: () => NOW });

      // Act
      const score: Score = { pairs: 0, guesses: 0, right: 0 };
      for (const pair of spread(pairs, PAIRS)) {
        const { key } = await keys.createKey({
          name: 'attacker',
          permissions: ['READ_STATISTICS'],
          statisticsBudget: 2 * EPSILON,
        });
        const without = await differentiallyPrivate(pair, key, false);
        const withPerson = await differentiallyPrivate(pair, key, true);
        tally(score, guess(without, withPerson), pair.secret);
      }

      // Assert
      const bound = Math.exp(EPSILON) / (1 + Math.exp(EPSILON));
      const standardError = Math.sqrt((bound * (1 - bound)) / score.guesses);
      console.log(
        `ε = ${EPSILON}: ${JSON.stringify(score)}; bound ${bound.toFixed(3)} + 3 × ${standardError.toFixed(3)}`,
      );
      expect(score.pairs).toBe(PAIRS);
      expect(score.guesses).toBeGreaterThanOrEqual(PAIRS / 4);
      expect(score.right / score.guesses).toBeLessThanOrEqual(bound + 3 * standardError);
    },
    ATTACK_TIMEOUT_MS,
  );
});
