import type { AuditedStatisticsQueryDoc } from '../audit/audit-event';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { throwIfAny, toSearchFilter, type FilterInput } from '../candidates/search-input';
import type { InputIssue } from '../errors';
import type { ReferenceCache } from '../reference/reference-cache';
import { codeOf, labelOf, storedKeyOf, type Dimension } from './dimensions';
import { publishedCount, type DisclosureRules } from './disclosure-control';
import type { StatisticsRepository } from './statistics-repository';
import { systemClock, type Clock } from '../common/clock';

/** At most this many dimensions per query: a cross-table of three would be mostly small cells. */
export const MAX_DIMENSIONS = 2;

export interface StatisticsArgs {
  filter?: FilterInput | null;
  includeEmployed?: boolean | null;
  groupBy: readonly Dimension[];
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
  total: number | null;
  cells: StatisticsCell[];
  suppressedCells: number;
  minimumCellSize: number;
  rounding: number;
}

/** Where a statistics query is recorded (the request's audit record). */
export interface StatisticsAudit {
  addStatisticsQuery(query: AuditedStatisticsQueryDoc): void;
}

/**
 * Aggregate statistics of candidates under disclosure control (disclosure-control.ts). The
 * counting happens in the store; this service turns stored values into codes (age bands, UNKNOWN),
 * applies suppression and rounding, and labels what it publishes.
 */
export class StatisticsService {
  constructor(
    private readonly repository: StatisticsRepository,
    private readonly reference: ReferenceCache,
    private readonly rules: DisclosureRules,
    /** the date age bands are computed at; injected so that tests do not depend on the wall clock */
    private readonly clock: Clock = systemClock,
  ) {}

  async candidateStatistics(
    caller: ApiKeyRecord,
    args: StatisticsArgs,
    audit: StatisticsAudit,
  ): Promise<CandidateStatistics> {
    authorize(caller, 'READ_STATISTICS');
    const filter = toSearchFilter(args.filter, args.includeEmployed);
    const groupBy = checkedDimensions(args.groupBy);
    audit.addStatisticsQuery({
      locations: [...(filter.locations ?? [])],
      nationalities: [...(filter.nationalities ?? [])],
      occupations: [...(filter.occupations ?? [])],
      includeEmployed: filter.includeEmployed,
      groupBy: [...groupBy],
    });
    const { minimumCellSize, rounding } = this.rules;
    const answer = { minimumCellSize, rounding };

    // Nothing about a population below the minimum is published, not even how many cells it has:
    // its cells are not computed.
    const total = publishedCount(await this.repository.count(filter), this.rules);
    if (total === null) return { ...answer, total: null, cells: [], suppressedCells: 0 };
    if (groupBy.length === 0) return { ...answer, total, cells: [{ values: [], count: total }], suppressedCells: 0 };

    const now = this.clock.now();
    const groups = await this.repository.groupCounts(filter, groupBy.map(storedKeyOf));
    // Several stored values may make one code (years of birth one age band): counts add up.
    const counts = new Map<string, { codes: string[]; count: number }>();
    for (const group of groups) {
      const codes = groupBy.map((dimension, i) => codeOf(dimension, group.values[i], now));
      const key = JSON.stringify(codes);
      const cell = counts.get(key);
      if (cell) cell.count += group.count;
      else counts.set(key, { codes, count: group.count });
    }

    const cells: StatisticsCell[] = [];
    let suppressedCells = 0;
    for (const { codes, count } of counts.values()) {
      const published = publishedCount(count, this.rules);
      if (published === null) {
        suppressedCells++;
        continue;
      }
      const values = codes.map((code, i) => ({
        dimension: groupBy[i],
        code,
        label: labelOf(groupBy[i], code, this.reference),
      }));
      cells.push({ values, count: published });
    }
    // By the published count, never the true one: the order must not tell apart cells published alike.
    cells.sort((a, b) => b.count - a.count || compareCodes(a.values, b.values));
    return { ...answer, total, cells, suppressedCells };
  }
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
