import type { Document } from 'bson';
import { isPlainObject } from './path-values';
import { compareValues, isIndexableScalar, TypeEdge, typeBracketOf } from './value-order';

/** An interval of values in MongoDB order; `low <= high`. */
export interface Interval {
  readonly low: unknown;
  readonly lowInclusive: boolean;
  readonly high: unknown;
  readonly highInclusive: boolean;
}

/**
 * What a filter says about one path, usable to bound an index scan: either a set of exact
 * values or one interval. Every document the filter matches lies inside it; the reverse need
 * not hold, because mingo re-checks the whole filter on each candidate.
 */
export type PathPredicate =
  | { readonly path: string; readonly kind: 'points'; readonly values: readonly unknown[] }
  | { readonly path: string; readonly kind: 'range'; readonly interval: Interval };

function isOperatorObject(value: unknown): value is Document {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}

function rangeOf(operator: string, value: unknown): Interval | undefined {
  if (!isIndexableScalar(value)) return undefined;
  const bracket = typeBracketOf(value);
  switch (operator) {
    case '$gt':
    case '$gte':
      return { low: value, lowInclusive: operator === '$gte', high: new TypeEdge(bracket, 1), highInclusive: true };
    case '$lt':
    case '$lte':
      return { low: new TypeEdge(bracket, -1), lowInclusive: true, high: value, highInclusive: operator === '$lte' };
    default:
      return undefined;
  }
}

/** Operators whose meaning the index bounds capture exactly (when the operand is indexable). */
const EXACT_OPERATORS = new Set(['$eq', '$in', '$gt', '$gte', '$lt', '$lte']);

/** Appends the predicates of `{path: {operators}}`; returns true when they capture it exactly. */
function operatorPredicates(path: string, operators: Document, out: PathPredicate[]): boolean {
  let exact = true;
  for (const [operator, operand] of Object.entries(operators)) {
    const before = out.length;
    if (operator === '$eq' && isIndexableScalar(operand)) {
      out.push({ path, kind: 'points', values: [operand] });
    } else if (operator === '$in' && Array.isArray(operand) && operand.length > 0 && operand.every(isIndexableScalar)) {
      out.push({ path, kind: 'points', values: operand });
    } else if (operator === '$elemMatch' && isPlainObject(operand)) {
      // {arr: {$elemMatch: {x: 1}}} constrains arr.x; {arr: {$elemMatch: {$gt: 1}}} constrains arr.
      // Either way it demands one element satisfy everything, which bounds do not express.
      if (isOperatorObject(operand)) operatorPredicates(path, operand, out);
      else collectInto(operand, out, `${path}.`);
      exact = false;
      continue;
    } else {
      const interval = rangeOf(operator, operand);
      if (interval) out.push({ path, kind: 'range', interval });
    }
    if (out.length === before || !EXACT_OPERATORS.has(operator)) exact = false;
  }
  return exact;
}

/** Appends the predicates of a conjunction; returns true when they capture all of it. */
function collectInto(filter: Document, out: PathPredicate[], prefix: string): boolean {
  let exact = true;
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) {
        if (isPlainObject(clause)) exact = collectInto(clause, out, prefix) && exact;
        else exact = false;
      }
    } else if (key === '$comment') {
      continue;
    } else if (key === '$or' && Array.isArray(value)) {
      out.push(...disjunctionPredicates(value, prefix));
      exact = false;
    } else if (key.startsWith('$')) {
      exact = false;
    } else if (isOperatorObject(value)) {
      exact = operatorPredicates(prefix + key, value, out) && exact;
    } else if (isIndexableScalar(value)) {
      out.push({ path: prefix + key, kind: 'points', values: [value] });
    } else {
      exact = false;
    }
  }
  return exact;
}

function pointsInterval(values: readonly unknown[]): Interval {
  const sorted = sortedUnique(values);
  return { low: sorted[0], lowInclusive: true, high: sorted[sorted.length - 1], highInclusive: true };
}

function intervalOf(predicate: PathPredicate): Interval {
  return predicate.kind === 'range' ? predicate.interval : pointsInterval(predicate.values);
}

/** The smallest interval holding both. */
function hull(a: Interval, b: Interval): Interval {
  const lowOrder = compareValues(a.low, b.low);
  const highOrder = compareValues(a.high, b.high);
  const low = lowOrder < 0 ? a : lowOrder > 0 ? b : { low: a.low, lowInclusive: a.lowInclusive || b.lowInclusive };
  const high =
    highOrder > 0 ? a : highOrder < 0 ? b : { high: a.high, highInclusive: a.highInclusive || b.highInclusive };
  return { low: low.low, lowInclusive: low.lowInclusive, high: high.high, highInclusive: high.highInclusive };
}

/**
 * What a `$or` says about paths every clause constrains: the union of the clauses' values
 * (exact values when all clauses give exact values, else the hull of their intervals). This is
 * what lets keyset paging, `{$or: [{date: {$gt: d}}, {date: d, id: {$gt: i}}]}`, start its
 * index walk at `d` instead of at the beginning.
 */
function disjunctionPredicates(clauses: readonly unknown[], prefix: string): PathPredicate[] {
  if (clauses.length === 0 || !clauses.every(isPlainObject)) return [];
  const perClause = clauses.map((clause) => {
    const predicates: PathPredicate[] = [];
    collectInto(clause, predicates, prefix);
    return predicates;
  });
  const paths = [...new Set(perClause[0].map((p) => p.path))].filter((path) =>
    perClause.every((ps) => ps.some((p) => p.path === path)),
  );
  return paths.map((path): PathPredicate => {
    // Within a clause the predicates on a path are ANDed, so any one of them bounds it.
    const chosen = perClause.map((ps) => ps.find((p) => p.path === path)!);
    if (chosen.every((p) => p.kind === 'points')) {
      return { path, kind: 'points', values: chosen.flatMap((p) => (p.kind === 'points' ? p.values : [])) };
    }
    return { path, kind: 'range', interval: chosen.map(intervalOf).reduce(hull) };
  });
}

export interface FilterPredicates {
  readonly predicates: readonly PathPredicate[];
  /**
   * True when the predicates say everything the filter says, so a scan whose bounds use all of
   * them returns exactly the matching documents and needs no further filtering.
   */
  readonly complete: boolean;
}

/**
 * The index-usable predicates of a filter's top-level conjunction (including `$and` clauses and
 * `$elemMatch` contents). Anything else (`$or`, `$not`, regexes, null, arrays) is left to mingo.
 */
export function collectPredicates(filter: Document): FilterPredicates {
  const predicates: PathPredicate[] = [];
  const complete = collectInto(filter, predicates, '');
  return { predicates, complete };
}

function sortedUnique(values: readonly unknown[]): unknown[] {
  const sorted = [...values].sort(compareValues);
  return sorted.filter((value, i) => i === 0 || compareValues(value, sorted[i - 1]) !== 0);
}

function inInterval(value: unknown, interval: Interval): boolean {
  const low = compareValues(value, interval.low);
  const high = compareValues(value, interval.high);
  return (low > 0 || (low === 0 && interval.lowInclusive)) && (high < 0 || (high === 0 && interval.highInclusive));
}

function intersectIntervals(a: Interval, b: Interval): Interval {
  const lowOrder = compareValues(a.low, b.low);
  const highOrder = compareValues(a.high, b.high);
  const low = lowOrder > 0 ? a : lowOrder < 0 ? b : { low: a.low, lowInclusive: a.lowInclusive && b.lowInclusive };
  const high =
    highOrder < 0 ? a : highOrder > 0 ? b : { high: a.high, highInclusive: a.highInclusive && b.highInclusive };
  return { low: low.low, lowInclusive: low.lowInclusive, high: high.high, highInclusive: high.highInclusive };
}

/** The bounds one index field gets: sorted exact values, or a single interval. */
export type FieldBounds =
  { readonly kind: 'points'; readonly values: unknown[] } | { readonly kind: 'range'; readonly interval: Interval };

/**
 * Combines the predicates on one path. On a multikey index, conditions on the same path may be
 * satisfied by different array elements, so only one predicate may be used (the most selective
 * kind: exact values); otherwise they are intersected.
 */
export function combinePredicates(predicates: readonly PathPredicate[], multikey: boolean): FieldBounds | undefined {
  if (predicates.length === 0) return undefined;
  const points = predicates.filter((p) => p.kind === 'points');
  const ranges = predicates.filter((p) => p.kind === 'range');
  if (multikey) {
    const chosen = points.length > 0 ? points.reduce((a, b) => (b.values.length < a.values.length ? b : a)) : undefined;
    if (chosen) return { kind: 'points', values: sortedUnique(chosen.values) };
    return { kind: 'range', interval: ranges[0].interval };
  }
  const interval = ranges
    .map((p) => p.interval)
    .reduce<Interval | undefined>((acc, i) => (acc ? intersectIntervals(acc, i) : i), undefined);
  if (points.length > 0) {
    let values = sortedUnique(points[0].values);
    for (const other of points.slice(1)) {
      values = values.filter((v) => other.values.some((w) => compareValues(v, w) === 0));
    }
    if (interval) values = values.filter((v) => inInterval(v, interval));
    return { kind: 'points', values };
  }
  return interval && { kind: 'range', interval };
}
