import { createHash } from 'node:crypto';
import type { AuditedStatisticsQueryDoc } from '../audit/audit-event';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import type { CandidateSearchFilter } from '../candidates/candidate-repository';
import { throwIfAny, toSearchFilter, type FilterInput } from '../candidates/search-input';
import { PrivacyBudgetExhaustedError, type InputIssue } from '../errors';
import type { ReferenceCache } from '../reference/reference-cache';
import { cellsPerCandidate, codeOf, domainOf, labelOf, storedKeyOf, UNKNOWN_CODE, type Dimension } from './dimensions';
import { DiscreteLaplaceSampler } from './discrete-laplace';
import type { PrivacyLedgerRepository } from './privacy-ledger-repository';
import type { StatisticsRepository } from './statistics-repository';
import { systemClock, type Clock } from '../common/clock';

/** At most this many dimensions per query. */
export const MAX_DIMENSIONS = 2;

/** ε is counted in thousandths: a query's ε has at most three decimals. */
const MILLI = 1000;

export interface PrivacyRules {
  /** STATISTICS_EPSILON: the ε of a query that names none */
  readonly defaultEpsilon: number;
  /** STATISTICS_BUDGET: the ε a key may spend per period, unless its own statisticsBudget says otherwise */
  readonly defaultBudget: number;
  /** STATISTICS_BUDGET_PERIOD_HOURS */
  readonly periodHours: number;
}

export interface StatisticsArgs {
  filter?: FilterInput | null;
  includeEmployed?: boolean | null;
  groupBy: readonly Dimension[];
  epsilon?: number | null;
}

export interface DimensionValue {
  dimension: Dimension;
  code: string;
  label: string;
}

export interface StatisticsCell {
  values: DimensionValue[];
  count: number;
}

/** What may be published of a statistics query (schema/statistics.graphql). */
export interface CandidateStatistics {
  total: number;
  cells: StatisticsCell[];
  /** deprecated: always 0 (no cell is withheld for its true count) */
  suppressedCells: number;
  /** the smallest noisy count a listed cell has */
  minimumCellSize: number;
  /** deprecated: always 1 (counts are not rounded) */
  rounding: number;
  epsilon: number;
  epsilonCharged: number;
  budget: number;
  budgetRemaining: number;
  budgetRenewsAt: Date;
}

/** The part of an answer that is stored and given again to a repeated query. */
type StoredAnswer = Pick<CandidateStatistics, 'total' | 'cells' | 'minimumCellSize' | 'epsilon'>;

/** How one question was answered: what is published, what it charged, and what the key has spent since. */
interface Outcome {
  answer: StoredAnswer;
  chargedMilli: number;
  spentMilli: number;
}

/** Where a statistics query is recorded (the request's audit record). */
export interface StatisticsAudit {
  addStatisticsQuery(query: AuditedStatisticsQueryDoc): void;
}

/**
 * Aggregate statistics of candidates under pure ε-differential privacy: every published number
 * is a true count plus discrete Laplace noise scaled to what one candidate can change in the
 * answer, cells are released over each dimension's whole domain, and each key spends ε from a
 * budget per period kept in the store (privacy-ledger-repository.ts). The same query in the
 * same period gets the stored answer again at no cost.
 */
export class StatisticsService {
  /** Questions being answered now by this instance, by answer id (key, period, question). */
  private readonly answering = new Map<string, Promise<Outcome>>();

  constructor(
    private readonly repository: StatisticsRepository,
    private readonly ledger: PrivacyLedgerRepository,
    private readonly reference: ReferenceCache,
    private readonly rules: PrivacyRules,
    /** the date age bands and budget periods are computed at; injected so that tests do not depend on the wall clock */
    private readonly clock: Clock = systemClock,
    private readonly sampler: DiscreteLaplaceSampler = new DiscreteLaplaceSampler(),
  ) {}

  async candidateStatistics(
    caller: ApiKeyRecord,
    args: StatisticsArgs,
    audit: StatisticsAudit,
  ): Promise<CandidateStatistics> {
    authorize(caller, 'READ_STATISTICS');
    const filter = toSearchFilter(args.filter, args.includeEmployed);
    const groupBy = checkedDimensions(args.groupBy);
    const epsilonMilli = checkedEpsilon(args.epsilon ?? this.rules.defaultEpsilon);
    const asked: AuditedStatisticsQueryDoc = {
      locations: [...(filter.locations ?? [])].sort(),
      nationalities: [...(filter.nationalities ?? [])].sort(),
      occupations: [...(filter.occupations ?? [])].sort(),
      includeEmployed: filter.includeEmployed,
      groupBy: [...groupBy],
    };

    const now = this.clock.now();
    const periodMs = this.rules.periodHours * 3_600_000;
    const period = Math.floor(now.getTime() / periodMs);
    const renewsAt = new Date((period + 1) * periodMs);
    const budgetMilli = Math.round((caller.statisticsBudget ?? this.rules.defaultBudget) * MILLI);
    const answerId = createHash('sha256')
      .update(JSON.stringify([caller.id, period, asked, epsilonMilli]))
      .digest('hex');
    const account = (spentMilli: number, chargedMilli: number) => ({
      suppressedCells: 0,
      rounding: 1,
      epsilonCharged: chargedMilli / MILLI,
      budget: budgetMilli / MILLI,
      budgetRemaining: Math.max(0, budgetMilli - spentMilli) / MILLI,
      budgetRenewsAt: renewsAt,
    });

    // The stored answer of a repeat (free), or a new answer charged to the key and stored.
    const answer = async (): Promise<Outcome> => {
      // A repeat teaches nothing new and costs nothing.
      const stored = await this.ledger.storedAnswer<StoredAnswer>(answerId);
      if (stored !== null)
        return { answer: stored, chargedMilli: 0, spentMilli: await this.ledger.spent(caller.id, period) };

      const spent = await this.ledger.charge(caller.id, period, epsilonMilli, budgetMilli, renewsAt);
      if (spent === null) {
        const left = Math.max(0, budgetMilli - (await this.ledger.spent(caller.id, period))) / MILLI;
        throw new PrivacyBudgetExhaustedError(
          renewsAt,
          `Privacy budget exhausted: this query costs ε = ${epsilonMilli / MILLI} and this key has ε = ${left} left until the budget renews at ${renewsAt.toISOString()}.`,
        );
      }

      const fresh = await this.noisyAnswer(filter, groupBy, epsilonMilli, now);
      // Two instances answering the same query at once: each charges once, the first answer stored is the answer.
      const published = await this.ledger.storeAnswer(answerId, caller.id, period, fresh, renewsAt);
      return { answer: published, chargedMilli: epsilonMilli, spentMilli: spent };
    };

    // Single flight per (key, period, question) in this instance: identical questions asked while
    // one is being answered wait for it and share its one charge (or its refusal), as a repeat would.
    const joined = this.answering.get(answerId);
    const flight = joined ?? answer();
    if (joined === undefined) {
      this.answering.set(answerId, flight);
      const landed = () => this.answering.delete(answerId);
      flight.then(landed, landed);
    }
    let outcome: Outcome;
    try {
      outcome = await flight;
    } catch (error) {
      if (error instanceof PrivacyBudgetExhaustedError) audit.addStatisticsQuery({ ...asked, epsilonCharged: 0 });
      throw error;
    }
    const chargedMilli = joined === undefined ? outcome.chargedMilli : 0;
    audit.addStatisticsQuery({ ...asked, epsilonCharged: chargedMilli / MILLI });
    return { ...outcome.answer, ...account(outcome.spentMilli, chargedMilli) };
  }

  /**
   * One person changes the total by 1 and at most `perCandidate` cells by 1 each (each cell of a
   * dimension is disjoint from the others; a multi-valued one counts a candidate in at most
   * cellsPerCandidate of its values): the L1 sensitivity of the whole answer is their sum, and
   * every number gets noise of scale sensitivity/ε, which makes the answer ε-DP.
   */
  private async noisyAnswer(
    filter: CandidateSearchFilter,
    groupBy: readonly Dimension[],
    epsilonMilli: number,
    now: Date,
  ): Promise<StoredAnswer> {
    const epsilon = epsilonMilli / MILLI;
    const perCandidate = groupBy.reduce((product, dimension) => product * cellsPerCandidate(dimension), 1);
    const sensitivity = groupBy.length === 0 ? 1 : perCandidate + 1;
    // exp(-|x|·ε/Δ) = exp(-|x|·s/t) with integers s = ε in thousandths, t = Δ·1000
    const noise = () => this.sampler.sample(epsilonMilli, sensitivity * MILLI);
    const total = Math.max(0, (await this.repository.count(filter)) + noise());
    if (groupBy.length === 0) return { total, cells: [{ values: [], count: total }], minimumCellSize: 0, epsilon };

    const domains = groupBy.map((dimension) => domainOf(dimension, this.reference, now));
    const inDomain = domains.map((codes) => new Set(codes));
    const groups = await this.repository.groupCounts(filter, groupBy.map(storedKeyOf));
    const counts = new Map<string, number>();
    for (const group of groups) {
      const codes = groupBy.map((dimension, i) => {
        const code = codeOf(dimension, group.values[i], now);
        return inDomain[i].has(code) ? code : UNKNOWN_CODE;
      });
      const key = codes.join('\u0000');
      counts.set(key, (counts.get(key) ?? 0) + group.count);
    }

    // Listing a cell by its noisy count is post-processing: it costs no privacy. The threshold
    // depends only on ε, the dimensions and their domains: noise alone reaches it in an empty
    // cell with probability below 1/(number of cells), so on average less than one empty
    // combination is listed per answer.
    const combinations = crossProduct(domains);
    const threshold = Math.max(1, Math.ceil((sensitivity / epsilon) * Math.log(combinations.length)));
    const cells: StatisticsCell[] = [];
    for (const codes of combinations) {
      const count = (counts.get(codes.join('\u0000')) ?? 0) + noise();
      if (count < threshold) continue;
      const values = codes.map((code, i) => ({
        dimension: groupBy[i],
        code,
        label: labelOf(groupBy[i], code, this.reference),
      }));
      cells.push({ values, count });
    }
    cells.sort((a, b) => b.count - a.count || compareCodes(a.values, b.values));
    return { total, cells, minimumCellSize: threshold, epsilon };
  }
}

function crossProduct(domains: readonly string[][]): string[][] {
  return domains.reduce<string[][]>((rows, codes) => rows.flatMap((row) => codes.map((code) => [...row, code])), [[]]);
}

function compareCodes(a: readonly DimensionValue[], b: readonly DimensionValue[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i].code !== b[i].code) return a[i].code < b[i].code ? -1 : 1;
  }
  return 0;
}

function checkedDimensions(groupBy: readonly Dimension[]): Dimension[] {
  const issues: InputIssue[] = [];
  if (groupBy.length > MAX_DIMENSIONS)
    issues.push({ parameter: 'groupBy', rule: `at most ${MAX_DIMENSIONS} dimensions` });
  else if (new Set(groupBy).size !== groupBy.length)
    issues.push({ parameter: 'groupBy', rule: 'each dimension at most once' });
  throwIfAny(issues);
  return [...groupBy];
}

/** ε in thousandths: more than 0, at most 10, at most three decimals. */
function checkedEpsilon(epsilon: number): number {
  const milli = Math.round(epsilon * MILLI);
  const issues: InputIssue[] = [];
  if (!Number.isFinite(epsilon) || milli < 1 || milli > 10 * MILLI || Math.abs(milli - epsilon * MILLI) > 1e-6)
    issues.push({ parameter: 'epsilon', rule: 'between 0.001 and 10, at most three decimals' });
  throwIfAny(issues);
  return milli;
}
