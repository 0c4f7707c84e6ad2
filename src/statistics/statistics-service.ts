import { createHash } from 'node:crypto';
import type { AuditedStatisticsQueryDoc } from '../audit/audit-event';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import type { CandidateSearchFilter, ResolvedSearchFilter } from '../candidates/candidate-repository';
import { withSavedListMembers } from '../candidates/saved-list-members';
import type { SavedListRepository } from '../candidates/saved-list-repository';
import { listReaderOf } from '../candidates/saved-list-service';
import { searchVocabulary, throwIfAny, toSearchFilter, type FilterInput } from '../candidates/search-input';
import { PrivacyBudgetExhaustedError, type InputIssue } from '../errors';
import type { ReferenceCache } from '../reference/reference-cache';
import { cellsPerCandidate, codeOf, domainOf, labelOf, storedKeyOf, UNKNOWN_CODE, type Dimension } from './dimensions';
import { DiscreteLaplaceSampler } from './discrete-laplace';
import { CONFIDENCE, halfWidth, intervalAround, type CountInterval } from './noise-intervals';
import type {
  ChargedQueryDoc,
  PrivacyLedgerRepository,
  StatisticsQuestionDoc,
  StatisticsQuestionFilterDoc,
} from './privacy-ledger-repository';
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

/** A listed cell as it is stored: its values and its noisy count. */
interface StoredCell {
  values: DimensionValue[];
  count: number;
}

export interface StatisticsCell extends StoredCell {
  /** the 95 % interval of the count */
  interval: CountInterval;
}

/** What may be published of a statistics query (schema/statistics.graphql). */
export interface CandidateStatistics {
  /** the question answered, as understood (codes normalised and sorted) */
  question: StatisticsQuestionDoc;
  total: number;
  totalInterval: CountInterval;
  cells: StatisticsCell[];
  /** the share of intervals that hold the true count (at least) */
  confidence: number;
  /** Δ: what one candidate can change in the whole answer */
  sensitivity: number;
  /** when the answer was computed (a repeat gets the time of the first) */
  answeredAt: Date;
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

/**
 * The part of an answer that is stored and given again to a repeated query. Its intervals follow
 * from the counts, ε and Δ, and are computed when it is given out.
 */
interface StoredAnswer {
  total: number;
  cells: StoredCell[];
  minimumCellSize: number;
  epsilon: number;
  /** absent from answers stored before it was kept: those are given out with the time of the request */
  answeredAt?: Date;
}

/** What a query would cost and how precise its answer would be (candidateStatisticsPreview). */
export interface StatisticsPreview {
  question: StatisticsQuestionDoc;
  epsilon: number;
  /** what running it would charge: 0 when the same question was answered this period */
  epsilonCharged: number;
  sensitivity: number;
  confidence: number;
  totalHalfWidth: number;
  cellHalfWidth: number;
  minimumCellSize: number;
  /** the combinations of the dimensions' values the cells are released over */
  combinations: number;
  budget: number;
  budgetRemaining: number;
  budgetRenewsAt: Date;
  /** whether running it would be refused (PRIVACY_BUDGET_EXHAUSTED) */
  refused: boolean;
}

/** The calling key's privacy budget in the current period (statisticsBudget). */
export interface StatisticsBudget {
  budget: number;
  spent: number;
  remaining: number;
  renewsAt: Date;
  /** the period's charged queries, oldest first (the latest MAX_LISTED_QUERIES) */
  queries: ChargedQueryDoc[];
}

/** A question checked and placed in its budget period: what both the answer and its preview start from. */
interface PreparedQuestion {
  filter: CandidateSearchFilter;
  groupBy: Dimension[];
  epsilonMilli: number;
  asked: AuditedStatisticsQueryDoc;
  question: StatisticsQuestionDoc;
  now: Date;
  period: number;
  renewsAt: Date;
  budgetMilli: number;
  /** where the published answer is stored: SHA-256 of the key, the period and the question */
  answerId: string;
}

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
    /** the saved lists a filter names (absent: a filter naming lists matches no one) */
    private readonly savedLists?: Pick<SavedListRepository, 'candidatesOf'>,
  ) {}

  async candidateStatistics(
    caller: ApiKeyRecord,
    args: StatisticsArgs,
    audit: StatisticsAudit,
  ): Promise<CandidateStatistics> {
    authorize(caller, 'READ_STATISTICS');
    const { filter, groupBy, epsilonMilli, asked, question, now, period, renewsAt, budgetMilli, answerId } =
      this.prepare(caller, args);
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

      const spent = await this.ledger.charge(caller.id, period, epsilonMilli, budgetMilli, renewsAt, {
        question,
        time: now,
      });
      if (spent === null) {
        const left = Math.max(0, budgetMilli - (await this.ledger.spent(caller.id, period))) / MILLI;
        throw new PrivacyBudgetExhaustedError(
          renewsAt,
          `Privacy budget exhausted: this query costs ε = ${epsilonMilli / MILLI} and this key has ε = ${left} left until the budget renews at ${renewsAt.toISOString()}.`,
          Math.max(1, Math.ceil((renewsAt.getTime() - now.getTime()) / 1000)),
        );
      }

      // The lists the caller may read: those of the data and its own (another key's are unknown to it).
      const reader = listReaderOf(caller);
      const lists = this.savedLists;
      const selected = await withSavedListMembers(filter, {
        candidatesOf: async (ids) => (lists === undefined ? [] : lists.candidatesOf(ids, reader)),
      });
      const fresh = await this.noisyAnswer(selected, groupBy, epsilonMilli, now);
      // Two instances answering the same query at once: each charges once, the first answer stored is the answer.
      const first = await this.ledger.storeAnswer(answerId, caller.id, period, fresh, renewsAt);
      return { answer: first, chargedMilli: epsilonMilli, spentMilli: spent };
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
    return {
      ...published(outcome.answer, question, groupBy, now),
      ...account(outcome.spentMilli, chargedMilli),
    };
  }

  /**
   * What `candidateStatistics` with these arguments would charge and how precise its answer would
   * be, from ε, the dimensions, their domains and the ledger alone: no candidate is read and
   * nothing is charged. Audited as a preview.
   */
  async candidateStatisticsPreview(
    caller: ApiKeyRecord,
    args: StatisticsArgs,
    audit: StatisticsAudit,
  ): Promise<StatisticsPreview> {
    authorize(caller, 'READ_STATISTICS');
    const { groupBy, epsilonMilli, asked, question, now, period, renewsAt, budgetMilli, answerId } = this.prepare(
      caller,
      args,
    );
    audit.addStatisticsQuery({ ...asked, epsilonCharged: 0, preview: true });
    const [answered, spentMilli] = await Promise.all([
      this.ledger.hasAnswer(answerId),
      this.ledger.spent(caller.id, period),
    ]);
    const chargeMilli = answered ? 0 : epsilonMilli;
    const epsilon = epsilonMilli / MILLI;
    const sensitivity = sensitivityOf(groupBy);
    const width = halfWidth(epsilon, sensitivity);
    const combinations = groupBy.reduce(
      (product, dimension) => product * domainOf(dimension, this.reference, now).length,
      1,
    );
    return {
      question,
      epsilon,
      epsilonCharged: chargeMilli / MILLI,
      sensitivity,
      confidence: CONFIDENCE,
      totalHalfWidth: width,
      cellHalfWidth: width,
      minimumCellSize: groupBy.length === 0 ? 0 : minimumCellSizeOf(sensitivity, epsilon, combinations),
      combinations,
      budget: budgetMilli / MILLI,
      budgetRemaining: Math.max(0, budgetMilli - spentMilli) / MILLI,
      budgetRenewsAt: renewsAt,
      // The charge's own condition (PrivacyLedgerRepository.charge).
      refused: spentMilli + chargeMilli > budgetMilli,
    };
  }

  /** The calling key's budget in the current period, and the queries it was spent on. */
  async statisticsBudget(caller: ApiKeyRecord): Promise<StatisticsBudget> {
    authorize(caller, 'READ_STATISTICS');
    const { period, renewsAt, budgetMilli } = this.periodOf(caller, this.clock.now());
    const { spentMilli, queries } = await this.ledger.budgetOf(caller.id, period);
    return {
      budget: budgetMilli / MILLI,
      spent: spentMilli / MILLI,
      remaining: Math.max(0, budgetMilli - spentMilli) / MILLI,
      renewsAt,
      queries,
    };
  }

  /** The arguments checked (BAD_USER_INPUT), in canonical form, placed in the current budget period. */
  private prepare(caller: ApiKeyRecord, args: StatisticsArgs): PreparedQuestion {
    const now = this.clock.now();
    const filter = toSearchFilter(args.filter, args.includeEmployed, searchVocabulary(this.reference, now));
    const groupBy = checkedDimensions(args.groupBy);
    const epsilonMilli = checkedEpsilon(args.epsilon ?? this.rules.defaultEpsilon);
    const { locations, nationalities, occupations, includeEmployed, ...others } = filter;
    // Every field of the filter is part of the question's audit and of its stored answer's id,
    // as normalised (ages as years of birth: the same ages are another question next year), so
    // that two questions that select differently never share a stored answer.
    const asked: AuditedStatisticsQueryDoc = {
      locations: [...(locations ?? [])].sort(),
      nationalities: [...(nationalities ?? [])].sort(),
      occupations: [...(occupations ?? [])].sort(),
      includeEmployed,
      groupBy: [...groupBy],
      ...(Object.keys(others).length > 0
        ? { filter: JSON.parse(JSON.stringify(others)) as Record<string, unknown> }
        : {}),
    };
    const { period, renewsAt, budgetMilli } = this.periodOf(caller, now);
    const answerId = createHash('sha256')
      .update(JSON.stringify([caller.id, period, asked, epsilonMilli]))
      .digest('hex');
    const question: StatisticsQuestionDoc = {
      locations: asked.locations,
      nationalities: asked.nationalities,
      occupations: asked.occupations,
      includeEmployed,
      groupBy: asked.groupBy,
      epsilon: epsilonMilli / MILLI,
      ...questionFilterOf(args.filter, filter),
    };
    return { filter, groupBy, epsilonMilli, asked, question, now, period, renewsAt, budgetMilli, answerId };
  }

  private periodOf(caller: ApiKeyRecord, now: Date): { period: number; renewsAt: Date; budgetMilli: number } {
    const periodMs = this.rules.periodHours * 3_600_000;
    const period = Math.floor(now.getTime() / periodMs);
    return {
      period,
      renewsAt: new Date((period + 1) * periodMs),
      budgetMilli: Math.round((caller.statisticsBudget ?? this.rules.defaultBudget) * MILLI),
    };
  }

  /**
   * Every number gets noise of scale Δ/ε (sensitivityOf), which makes the whole answer ε-DP.
   */
  private async noisyAnswer(
    filter: ResolvedSearchFilter,
    groupBy: readonly Dimension[],
    epsilonMilli: number,
    now: Date,
  ): Promise<StoredAnswer> {
    const epsilon = epsilonMilli / MILLI;
    const sensitivity = sensitivityOf(groupBy);
    // exp(-|x|·ε/Δ) = exp(-|x|·s/t) with integers s = ε in thousandths, t = Δ·1000
    const noise = () => this.sampler.sample(epsilonMilli, sensitivity * MILLI);
    const total = Math.max(0, (await this.repository.count(filter)) + noise());
    if (groupBy.length === 0)
      return { total, cells: [{ values: [], count: total }], minimumCellSize: 0, epsilon, answeredAt: now };

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

    // Listing a cell by its noisy count is post-processing: it costs no privacy.
    const combinations = crossProduct(domains);
    const threshold = minimumCellSizeOf(sensitivity, epsilon, combinations.length);
    const cells: StoredCell[] = [];
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
    return { total, cells, minimumCellSize: threshold, epsilon, answeredAt: now };
  }
}

/**
 * Δ, the L1 sensitivity of an answer by these dimensions: one person changes the total by 1 and
 * each cell it counts in by 1, which is one cell per single-valued dimension and at most
 * cellsPerCandidate for a multi-valued one (the cells of a dimension are disjoint otherwise), so
 * at most the product of those. 1 for a total alone, else 2, 4 or 10.
 */
export function sensitivityOf(groupBy: readonly Dimension[]): number {
  if (groupBy.length === 0) return 1;
  return groupBy.reduce((product, dimension) => product * cellsPerCandidate(dimension), 1) + 1;
}

/**
 * The smallest noisy count a listed cell has. It depends only on ε, Δ and the number of
 * combinations, never on the data: noise alone reaches it in an empty cell with probability
 * below 1/combinations, so on average less than one empty combination is listed per answer.
 */
function minimumCellSizeOf(sensitivity: number, epsilon: number, combinations: number): number {
  return Math.max(1, Math.ceil((sensitivity / epsilon) * Math.log(combinations)));
}

/** A stored answer as it is given out: each number with its interval, the question, Δ and the time. */
function published(
  stored: StoredAnswer,
  question: StatisticsQuestionDoc,
  groupBy: readonly Dimension[],
  now: Date,
): Omit<
  CandidateStatistics,
  'suppressedCells' | 'rounding' | 'epsilonCharged' | 'budget' | 'budgetRemaining' | 'budgetRenewsAt'
> {
  const sensitivity = sensitivityOf(groupBy);
  const width = halfWidth(stored.epsilon, sensitivity);
  return {
    question,
    total: stored.total,
    totalInterval: intervalAround(stored.total, width),
    cells: stored.cells.map((cell) => ({ ...cell, interval: intervalAround(cell.count, width) })),
    confidence: CONFIDENCE,
    sensitivity,
    minimumCellSize: stored.minimumCellSize,
    epsilon: stored.epsilon,
    answeredAt: stored.answeredAt ?? now,
  };
}

/**
 * The filter's fields besides its codes, as the question echoes them: in the form they were given
 * (ages, not the years of birth they select), once checked and normalised by toSearchFilter
 * (`normalised`), so that the echo asks the same question again on either transport.
 */
function questionFilterOf(
  given: FilterInput | null | undefined,
  normalised: CandidateSearchFilter,
): StatisticsQuestionFilterDoc {
  if (!given) return {};
  const {
    location: _location,
    nationality: _nationality,
    occupation: _occupation,
    languages,
    minYearsExperience,
    maxYearsExperience,
    minEducationLevel,
    maxEducationLevel,
    minAge,
    maxAge,
    exams: _exams,
    keyword: _keyword,
    inSavedLists: _inSavedLists,
    notInSavedLists: _notInSavedLists,
    ...unechoed
  } = given;
  // Every field of the filter is echoed: a field the search gains stops this compiling until
  // the question says it too (schema/statistics.graphql, the CSV's query, the playground).
  const _everyFieldEchoed: Record<string, never> = unechoed;
  const echo: StatisticsQuestionFilterDoc = {};
  if (normalised.languages) {
    const requirements = new Map<string, NonNullable<StatisticsQuestionFilterDoc['languages']>[number]>();
    for (const { language, minSpokenLevel, minWrittenLevel } of languages ?? []) {
      const requirement = {
        language: language.trim().toLowerCase(),
        ...(minSpokenLevel != null ? { minSpokenLevel } : {}),
        ...(minWrittenLevel != null ? { minWrittenLevel } : {}),
      };
      requirements.set(JSON.stringify(requirement), requirement);
    }
    echo.languages = [...requirements]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, requirement]) => requirement);
  }
  const ranges = { minYearsExperience, maxYearsExperience, minEducationLevel, maxEducationLevel, minAge, maxAge };
  for (const [field, value] of Object.entries(ranges) as [keyof typeof ranges, number | null | undefined][])
    if (value != null) echo[field] = value;
  if (normalised.exams) echo.exams = normalised.exams.map((exam) => ({ ...exam }));
  if (normalised.keyword !== undefined) echo.keyword = normalised.keyword;
  if (normalised.inSavedLists) echo.inSavedLists = [...normalised.inSavedLists];
  if (normalised.notInSavedLists) echo.notInSavedLists = [...normalised.notInSavedLists];
  return echo;
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
