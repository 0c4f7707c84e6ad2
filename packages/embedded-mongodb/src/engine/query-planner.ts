import type { Document } from 'bson';
import { CommandError } from '../errors';
import type { Collection } from './collection';
import { defaultIndexName } from './index-spec';
import { collectPredicates, combinePredicates, type FilterPredicates, type PathPredicate } from './query-bounds';
import { ESTIMATE_CAP, FULL_RANGE, type KeyRange, type SortedIndex } from './sorted-index';
import type { SortSpec } from './sort';
import { compareValues } from './value-order';

/** Cartesian products of `$in` lists beyond this many ranges stop refining the bounds. */
const MAX_RANGES = 1000;

/** How much dearer a candidate sorted in memory is than one read in order from an index. */
const IN_MEMORY_SORT_FACTOR = 1.5;

/**
 * How much dearer an entry is when its document must be decoded and filtered (inexact bounds)
 * than when the bounds alone decide (documents are stored as BSON; an exact plan decodes none).
 */
const FILTER_FACTOR = 4;

export interface IndexScanPlan {
  readonly kind: 'ixscan';
  readonly index: SortedIndex;
  readonly ranges: readonly KeyRange[];
  readonly reverse: boolean;
  /** True when the scan yields documents already in the requested sort order. */
  readonly providesSort: boolean;
  /**
   * Set when the ranges pin this many leading fields to one value each, and are in sort order
   * after them: the scan reads each range in order and merges them (MongoDB's SORT_MERGE).
   */
  readonly mergeFrom?: number;
  /** Index entries inside the ranges. */
  readonly estimate: number;
  /** The ranges hold exactly the matching documents: no filtering needed. */
  readonly exact: boolean;
}

export interface CollectionScanPlan {
  readonly kind: 'collscan';
  readonly estimate: number;
}

export type QueryPlan = IndexScanPlan | CollectionScanPlan;

export interface PlanRequest {
  readonly filter: Document;
  readonly sort?: SortSpec;
  readonly skip: number;
  /** 0 means no limit. */
  readonly limit: number;
  readonly hint?: unknown;
}

interface Bounds {
  readonly ranges: KeyRange[];
  /** Leading index fields pinned to a single value. */
  readonly pinnedFields: number;
  /** Every predicate of the filter went into the ranges. */
  readonly usesAllPredicates: boolean;
}

/** Turns the predicates on an index's fields into key ranges, in index order. */
function boundsFor(index: SortedIndex, predicates: readonly PathPredicate[]): Bounds | undefined {
  let prefixes: unknown[][] = [[]];
  let pinnedFields = 0;
  let pinning = true;
  let used = 0;
  const result = (ranges: KeyRange[]): Bounds => ({
    ranges,
    pinnedFields,
    usesAllPredicates: used === predicates.length,
  });
  for (const field of index.spec.fields) {
    const onField = predicates.filter((p) => p.path === field.path);
    const bounds = combinePredicates(onField, index.multikey);
    if (!bounds) break;
    // A multikey index uses one predicate per path (see combinePredicates).
    const consumed = index.multikey ? 1 : onField.length;
    if (bounds.kind === 'points') {
      if (bounds.values.length === 0) return result([]);
      if (prefixes.length * bounds.values.length > MAX_RANGES) break;
      const values = field.direction === 1 ? bounds.values : [...bounds.values].reverse();
      prefixes = prefixes.flatMap((prefix) => values.map((value) => [...prefix, value]));
      if (pinning && values.length === 1) pinnedFields++;
      else pinning = false;
      used += consumed;
      continue;
    }
    used += consumed;
    const { low, lowInclusive, high, highInclusive } = bounds.interval;
    const [start, startInclusive, end, endInclusive] =
      field.direction === 1 ? [low, lowInclusive, high, highInclusive] : [high, highInclusive, low, lowInclusive];
    return result(
      prefixes.map((prefix) => ({ start: [...prefix, start], startInclusive, end: [...prefix, end], endInclusive })),
    );
  }
  if (prefixes[0].length === 0) return undefined;
  return result(prefixes.map((key) => ({ start: key, startInclusive: true, end: key, endInclusive: true })));
}

/**
 * Whether walking the index yields the sort order: the sort fields must follow the pinned
 * prefix with all directions equal to (forward) or all opposite to (reverse) the index's, and
 * no document may have an array on them.
 */
function sortDirection(index: SortedIndex, sort: SortSpec, pinnedFields: number): 'forward' | 'reverse' | undefined {
  if (!index.complete) return undefined;
  const fields = index.spec.fields.slice(pinnedFields, pinnedFields + sort.length);
  if (fields.length < sort.length) return undefined;
  if (sort.some((_s, i) => index.multikeyFields.has(pinnedFields + i))) return undefined;
  if (!sort.every((s, i) => s.path === fields[i].path)) return undefined;
  if (sort.every((s, i) => s.direction === fields[i].direction)) return 'forward';
  if (sort.every((s, i) => s.direction !== fields[i].direction)) return 'reverse';
  return undefined;
}

/**
 * How many leading index fields every range pins to one value, when at least one: each range is
 * then in index order on the fields after them (a point range, or a point prefix followed by an
 * interval, as keyset paging gives: `listed` in {false, true}, then createdDate after a position).
 */
function pinnedPrefixLength(ranges: readonly KeyRange[]): number | undefined {
  let length = Infinity;
  for (const range of ranges) {
    let pinned = 0;
    while (
      pinned < range.start.length &&
      pinned < range.end.length &&
      compareValues(range.start[pinned], range.end[pinned]) === 0
    )
      pinned++;
    length = Math.min(length, pinned);
  }
  return length > 0 && length !== Infinity ? length : undefined;
}

function scanPlan(
  index: SortedIndex,
  bounds: Bounds | undefined,
  sort: SortSpec | undefined,
  filter: FilterPredicates,
): IndexScanPlan {
  const ranges = bounds?.ranges ?? [FULL_RANGE];
  let direction: 'forward' | 'reverse' | undefined;
  let mergeFrom: number | undefined;
  if (sort && ranges.length <= 1) {
    direction = sortDirection(index, sort, bounds?.pinnedFields ?? 0);
  } else if (sort) {
    // Several equality prefixes, each sorted by what follows them: read in order and merge.
    const prefix = pinnedPrefixLength(ranges);
    direction = prefix === undefined ? undefined : sortDirection(index, sort, prefix);
    if (direction !== undefined) mergeFrom = prefix;
  }
  // Capped as a whole (see SortedIndex.estimate): plans past the cap tie, and exactness decides.
  let estimate = 0;
  for (const range of ranges) {
    estimate = Math.min(ESTIMATE_CAP, estimate + index.estimate(range));
    if (estimate === ESTIMATE_CAP) break;
  }
  const exact = filter.complete && (bounds?.usesAllPredicates ?? filter.predicates.length === 0);
  return {
    kind: 'ixscan',
    index,
    ranges,
    reverse: direction === 'reverse',
    providesSort: direction !== undefined,
    mergeFrom,
    estimate,
    exact,
  };
}

function hintedIndex(collection: Collection, hint: unknown): SortedIndex | 'natural' {
  let index: SortedIndex | undefined;
  if (typeof hint === 'string') {
    index = collection.getIndex(hint);
  } else if (hint !== null && typeof hint === 'object' && !Array.isArray(hint)) {
    if ('$natural' in hint) return 'natural';
    const pattern = defaultIndexName(hint);
    index = collection.indexList().find((candidate) => defaultIndexName(candidate.spec.key) === pattern);
  }
  if (!index) throw new CommandError('BadValue', 'hint provided does not correspond to an existing index');
  return index;
}

/**
 * Chooses how to answer a query, by cost estimates that need no document reads: the number of
 * index entries in each candidate's ranges, counted by binary search.
 */
export function planQuery(collection: Collection, request: PlanRequest): QueryPlan {
  const collscan: CollectionScanPlan = { kind: 'collscan', estimate: collection.count };
  const filter = collectPredicates(request.filter);
  const { predicates } = filter;
  if (request.hint !== undefined) {
    const index = hintedIndex(collection, request.hint);
    if (index === 'natural') return collscan;
    if (index.spec.text) throw new CommandError('BadValue', `text index ${index.name} can only answer a $text query`);
    return scanPlan(index, boundsFor(index, predicates), request.sort, filter);
  }

  const bounded: IndexScanPlan[] = [];
  const walks: IndexScanPlan[] = [];
  for (const index of collection.indexList()) {
    // Sparse and partial indexes lack some documents: they may only answer bounded scans that
    // exclude what they lack (sparse: null never bounds a scan; partial: never used).
    if (index.spec.partialFilterExpression) continue;
    // A text index holds terms, not field values: only a $text query reads it (text-search.ts).
    if (index.spec.text) continue;
    const bounds = boundsFor(index, predicates);
    if (bounds) bounded.push(scanPlan(index, bounds, request.sort, filter));
    else if (request.sort && index.complete) walks.push(scanPlan(index, undefined, request.sort, filter));
  }
  // Of equally selective plans, one whose bounds are exact: it decodes no document.
  const mostSelective = bounded.reduce<IndexScanPlan | undefined>(
    (best, c) =>
      !best || c.estimate < best.estimate || (c.estimate === best.estimate && c.exact && !best.exact) ? c : best,
    undefined,
  );
  if (!request.sort) {
    // An exact plan reads keys only, so it beats a collection scan even when every document matches.
    const better =
      mostSelective &&
      (mostSelective.estimate < collscan.estimate ||
        (mostSelective.exact && mostSelective.estimate <= collscan.estimate));
    return better ? mostSelective : collscan;
  }

  // With a sort, reading an index in order can stop after skip+limit matches. Assuming matches
  // are spread evenly, it reads about (skip+limit) / (share of entries that match) entries.
  const wanted = request.limit > 0 ? request.skip + request.limit : Infinity;
  const matchesAtMost = mostSelective?.estimate ?? collection.count;
  const cost = (plan: QueryPlan): number => {
    const perEntry = plan.kind === 'ixscan' && plan.exact ? 1 : FILTER_FACTOR;
    if (plan.kind === 'ixscan' && plan.providesSort) {
      // A merge reads up to that many from each of its ranges.
      const perRange = plan.mergeFrom === undefined ? 0 : plan.ranges.length;
      return perEntry * Math.min(plan.estimate, (wanted * plan.estimate) / Math.max(1, matchesAtMost) + perRange);
    }
    return perEntry * plan.estimate * IN_MEMORY_SORT_FACTOR;
  };
  return [...bounded, ...walks, collscan].reduce((best, plan) => (cost(plan) < cost(best) ? plan : best));
}
