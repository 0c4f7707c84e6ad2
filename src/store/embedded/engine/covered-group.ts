import type { Document } from 'bson';
import type { Collection } from './collection';
import { isPlainObject } from './path-values';
import { collectPredicates, type Interval, type PathPredicate } from './query-bounds';
import type { QueryRequest } from './query-executor';
import { planQuery, type IndexScanPlan } from './query-planner';
import type { SortedIndex } from './sorted-index';
import type { StoredRecord } from './stored-record';
import { compareValues } from './value-order';

/**
 * Grouped counts answered from index entries alone, without decoding a document: MongoDB's
 * covered plans, for the two pipeline shapes of grouped counting (after the leading `$match`):
 *
 *   A. `{$group: {_id: {<key>: <value>, …}, <count>: {$sum: 1}}}`: documents per combination of
 *      single-valued fields;
 *   B. `{$unwind: {path: '$<array>', preserveNullAndEmptyArrays: true}}`,
 *      `{$group: {_id: {<doc>: '$_id', <key>: <value>, …}}}`,
 *      `{$group: {_id: {<key>: '$_id.<key>', …}, <count>: {$sum: 1}}}`: documents per distinct
 *      value of one field inside the array (once per document and value) and the other keys.
 *
 * A `<value>` is `{$ifNull: ['$<path>', null]}` (missing and null group together, as in an index
 * key) or `{$year: '$<path>'}` of a date. It is taken when one complete index holds every path of
 * the filter and of the keys, the filter is fully captured by predicates on those paths (each
 * tested on the entry's key), and the index has an array only where the counting allows it:
 * shape A on no key field (a document with several entries counts once), shape B only on the
 * unwound key, which the filter must not constrain (each entry is one distinct value of one
 * document). For shape B the elements of the array are documents holding no further array on the
 * key's path (index keys flatten nested arrays, `$unwind` does not), which the store cannot see
 * in its index; the service's candidate documents have that shape.
 *
 * Anything else returns undefined and runs through mingo, with the same result.
 */
export function coveredGroupCount(collection: Collection, query: QueryRequest, rest: readonly Document[]): Document[] | undefined {
  if (query.sort !== undefined || query.skip !== 0 || query.limit !== 0 || query.hint !== undefined || query.collation) return undefined;
  const shape = groupShape(rest);
  if (!shape) return undefined;
  const filter = collectPredicates(query.filter);
  if (!filter.complete) return undefined;
  const plan = chooseIndex(collection, query.filter, filter.predicates, shape);
  if (!plan) return undefined;
  return countEntries(plan, filter.predicates, shape);
}

interface GroupKey {
  readonly name: string;
  readonly path: string;
  readonly year: boolean;
}

interface GroupShape {
  readonly keys: readonly GroupKey[];
  /** shape B: the key whose path runs through the unwound array */
  readonly unwound?: GroupKey;
  readonly countName: string;
}

const FIELD_PATH = /^\$[A-Za-z_][\w.]*$/;

function keyOf(name: string, value: unknown): GroupKey | undefined {
  if (name.startsWith('$') || name.includes('.') || !isPlainObject(value)) return undefined;
  const operators = Object.keys(value);
  if (operators.length !== 1) return undefined;
  if (operators[0] === '$year' && typeof value.$year === 'string' && FIELD_PATH.test(value.$year)) {
    return { name, path: value.$year.slice(1), year: true };
  }
  const ifNull = value.$ifNull;
  if (operators[0] === '$ifNull' && Array.isArray(ifNull) && ifNull.length === 2 && ifNull[1] === null && typeof ifNull[0] === 'string' && FIELD_PATH.test(ifNull[0])) {
    return { name, path: ifNull[0].slice(1), year: false };
  }
  return undefined;
}

/** The name of the one accumulator `{<name>: {$sum: 1}}` besides `_id`. */
function countingAccumulator(group: Document): string | undefined {
  const names = Object.keys(group).filter((name) => name !== '_id');
  if (names.length !== 1) return undefined;
  const accumulator = group[names[0]] as unknown;
  return isPlainObject(accumulator) && Object.keys(accumulator).length === 1 && accumulator.$sum === 1 ? names[0] : undefined;
}

function stage(document: Document | undefined, name: string): unknown {
  return document && isPlainObject(document) && Object.keys(document).length === 1 ? document[name] : undefined;
}

function groupShape(rest: readonly Document[]): GroupShape | undefined {
  if (rest.length === 1) {
    const group = stage(rest[0], '$group');
    if (!isPlainObject(group) || !isPlainObject(group._id)) return undefined;
    const countName = countingAccumulator(group);
    const keys = Object.entries(group._id).map(([name, value]) => keyOf(name, value));
    if (countName === undefined || keys.length === 0 || keys.some((key) => key === undefined)) return undefined;
    return { keys: keys as GroupKey[], countName };
  }
  if (rest.length !== 3) return undefined;
  const unwind = stage(rest[0], '$unwind');
  const perDocument = stage(rest[1], '$group');
  const counting = stage(rest[2], '$group');
  if (!isPlainObject(unwind) || Object.keys(unwind).length !== 2 || unwind.preserveNullAndEmptyArrays !== true) return undefined;
  if (typeof unwind.path !== 'string' || !FIELD_PATH.test(unwind.path)) return undefined;
  const array = unwind.path.slice(1);
  if (!isPlainObject(perDocument) || Object.keys(perDocument).length !== 1 || !isPlainObject(perDocument._id)) return undefined;
  if (!isPlainObject(counting) || !isPlainObject(counting._id)) return undefined;
  const entries = Object.entries(perDocument._id);
  const documentKeys = entries.filter(([, value]) => value === '$_id');
  if (documentKeys.length !== 1) return undefined;
  const keys = entries.filter(([, value]) => value !== '$_id').map(([name, value]) => keyOf(name, value));
  if (keys.length === 0 || keys.some((key) => key === undefined)) return undefined;
  const groupKeys = keys as GroupKey[];
  const under = groupKeys.filter((key) => key.path.startsWith(`${array}.`));
  if (under.length !== 1 || groupKeys.some((key) => key.path === array)) return undefined;
  // The counting group regroups exactly the keys of the per-document group.
  const regrouped = Object.entries(counting._id);
  if (regrouped.length !== groupKeys.length || !regrouped.every(([name, value], i) => name === groupKeys[i].name && value === `$_id.${name}`)) return undefined;
  const countName = countingAccumulator(counting);
  if (countName === undefined) return undefined;
  return { keys: groupKeys, unwound: under[0], countName };
}

interface CoveredPlan {
  readonly plan: IndexScanPlan;
  /** position in the index key of every group key, in key order */
  readonly keyPositions: readonly number[];
  /** position of every predicate's path */
  readonly predicatePositions: readonly number[];
  /** whether a document may have several entries in the ranges (it must then count once) */
  readonly dedupe: boolean;
}

function chooseIndex(collection: Collection, filter: Document, predicates: readonly PathPredicate[], shape: GroupShape): CoveredPlan | undefined {
  let best: CoveredPlan | undefined;
  for (const index of collection.indexList()) {
    const covered = coveredBy(index, predicates, shape);
    if (!covered) continue;
    const plan = planQuery(collection, { filter, skip: 0, limit: 0, hint: index.name });
    if (plan.kind !== 'ixscan') continue;
    if (!best || plan.estimate < best.plan.estimate) best = { ...covered, plan };
  }
  return best;
}

function coveredBy(index: SortedIndex, predicates: readonly PathPredicate[], shape: GroupShape): Omit<CoveredPlan, 'plan'> | undefined {
  if (!index.complete) return undefined;
  const positionOf = (path: string): number => index.spec.fields.findIndex((field) => field.path === path);
  const keyPositions = shape.keys.map((key) => positionOf(key.path));
  const predicatePositions = predicates.map((predicate) => positionOf(predicate.path));
  if (keyPositions.some((p) => p < 0) || predicatePositions.some((p) => p < 0)) return undefined;
  const multikey = [...index.multikeyFields];
  if (shape.unwound) {
    const unwoundAt = positionOf(shape.unwound.path);
    if (multikey.some((position) => position !== unwoundAt)) return undefined;
    if (predicatePositions.includes(unwoundAt)) return undefined;
    return { keyPositions, predicatePositions, dedupe: false };
  }
  if (multikey.some((position) => keyPositions.includes(position))) return undefined;
  // Several conditions on one array path may be met by different elements: each entry holds one.
  if (multikey.some((position) => predicatePositions.filter((p) => p === position).length > 1)) return undefined;
  return { keyPositions, predicatePositions, dedupe: multikey.length > 0 };
}

function inInterval(value: unknown, interval: Interval): boolean {
  const low = compareValues(value, interval.low);
  const high = compareValues(value, interval.high);
  return (low > 0 || (low === 0 && interval.lowInclusive)) && (high < 0 || (high === 0 && interval.highInclusive));
}

function satisfies(value: unknown, predicate: PathPredicate): boolean {
  if (predicate.kind === 'points') return predicate.values.some((point) => compareValues(value, point) === 0);
  return inInterval(value, predicate.interval);
}

/** Thrown when a key value is not what the covered form can compute (a `$year` of a non-date). */
class NotCovered extends Error {}

function keyValue(value: unknown, key: GroupKey): unknown {
  const present = value === undefined ? null : value;
  // Other types (ObjectId, binary...) would need mingo's notion of equality to group.
  if (!key.year && !(present === null || typeof present === 'string' || typeof present === 'number' || typeof present === 'boolean')) throw new NotCovered();
  if (!key.year) return present;
  if (!(present instanceof Date)) throw new NotCovered();
  return present.getUTCFullYear();
}

function countEntries(covered: CoveredPlan, predicates: readonly PathPredicate[], shape: GroupShape): Document[] | undefined {
  const { plan, keyPositions, predicatePositions, dedupe } = covered;
  const groups = new Map<string, { id: Document; count: number }>();
  const counted = dedupe ? new Set<StoredRecord>() : undefined;
  try {
    for (const range of plan.ranges) {
      plan.index.scan(range, false, (entry) => {
        if (counted?.has(entry.record)) return true;
        for (let i = 0; i < predicates.length; i++) {
          if (!satisfies(entry.key[predicatePositions[i]] ?? null, predicates[i])) return true;
        }
        counted?.add(entry.record);
        const values = shape.keys.map((key, i) => keyValue(entry.key[keyPositions[i]], key));
        const id = JSON.stringify(values.map((value) => (value instanceof Date ? { $date: value.getTime() } : value)));
        const group = groups.get(id);
        if (group) group.count++;
        else groups.set(id, { id: Object.fromEntries(shape.keys.map((key, i) => [key.name, values[i]])), count: 1 });
        return true;
      });
    }
  } catch (error) {
    if (error instanceof NotCovered) return undefined;
    throw error;
  }
  return [...groups.values()].map((group) => ({ _id: group.id, [shape.countName]: group.count }));
}
