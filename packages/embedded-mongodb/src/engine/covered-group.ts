import type { Document } from 'bson';
import type { Collection } from './collection';
import { isPlainObject } from './path-values';
import { collectPredicates, type Interval, type PathPredicate } from './query-bounds';
import type { QueryRequest } from './query-executor';
import { planQuery, type IndexScanPlan } from './query-planner';
import type { IndexEntry, SortedIndex } from './sorted-index';
import { compareValues } from './value-order';

/**
 * Grouped counts answered from index entries alone, without decoding a document: MongoDB's
 * covered plans, for the two pipeline shapes of grouped counting (after the leading `$match`):
 *
 *   A. `{$group: {_id: {<key>: <value>, …}, <count>: {$sum: 1}}}`: documents per combination of
 *      single-valued fields;
 *   B. one or two `{$unwind: {path: '$<array>', preserveNullAndEmptyArrays: true}}`,
 *      `{$group: {_id: {<doc>: '$_id', <key>: <value>, …}}}`,
 *      `{$group: {_id: {<key>: '$_id.<key>', …}, <count>: {$sum: 1}}}`: documents per distinct
 *      value of one field inside each unwound array (once per document and combination) and the
 *      other keys.
 *
 * A `<value>` is `{$ifNull: ['$<path>', null]}` (missing and null group together, as in an index
 * key) or `{$year: '$<path>'}` of a date. The filter must be fully captured by predicates (each
 * tested on an entry's key unless the scan's bounds already pin it). Keys are read from an index
 * holding them that has an array only where the counting allows it: shape A on no key field (a
 * document with several entries counts once), shape B only on the unwound key (each entry is one
 * distinct value of one document). When that index also holds the whole filter, and the filter
 * does not constrain an unwound key, one bounded scan answers; otherwise a first scan of an index
 * holding the filter finds the matching documents, and the key indexes are scanned for them (a
 * second array's index pairs its values with the first's per document). For shape B the
 * elements of an unwound array are documents holding no further array on the key's path (index
 * keys flatten nested arrays, `$unwind` does not), which the store cannot see in its index; the
 * service's candidate documents have that shape.
 *
 * Anything else returns undefined and runs through mingo, with the same result.
 */
export function coveredGroupCount(
  collection: Collection,
  query: QueryRequest,
  rest: readonly Document[],
): Document[] | undefined {
  if (query.sort !== undefined || query.skip !== 0 || query.limit !== 0 || query.hint !== undefined) return undefined;
  const shape = groupShape(rest);
  if (!shape) return undefined;
  const filter = collectPredicates(query.filter);
  if (!filter.complete) return undefined;
  const covered = planCovered(collection, query.filter, filter.predicates, shape);
  if (!covered) return undefined;
  try {
    return run(covered, shape);
  } catch (error) {
    if (error instanceof NotCovered) return undefined;
    throw error;
  }
}

interface GroupKey {
  readonly name: string;
  readonly path: string;
  readonly year: boolean;
}

interface GroupShape {
  /** every key, in the order of the group's `_id` */
  readonly keys: readonly GroupKey[];
  /** shape B: per unwound array, the one key whose path runs through it */
  readonly unwound: readonly GroupKey[];
  readonly countName: string;
}

const FIELD_PATH = /^\$[A-Za-z_][\w.]*$/;
const MAX_UNWOUND = 2;

function keyOf(name: string, value: unknown): GroupKey | undefined {
  if (name.startsWith('$') || name.includes('.') || !isPlainObject(value)) return undefined;
  const operators = Object.keys(value);
  if (operators.length !== 1) return undefined;
  if (operators[0] === '$year' && typeof value.$year === 'string' && FIELD_PATH.test(value.$year)) {
    return { name, path: value.$year.slice(1), year: true };
  }
  const ifNull = value.$ifNull;
  if (
    operators[0] === '$ifNull' &&
    Array.isArray(ifNull) &&
    ifNull.length === 2 &&
    ifNull[1] === null &&
    typeof ifNull[0] === 'string' &&
    FIELD_PATH.test(ifNull[0])
  ) {
    return { name, path: ifNull[0].slice(1), year: false };
  }
  return undefined;
}

/** The name of the one accumulator `{<name>: {$sum: 1}}` besides `_id`. */
function countingAccumulator(group: Document): string | undefined {
  const names = Object.keys(group).filter((name) => name !== '_id');
  if (names.length !== 1) return undefined;
  const accumulator = group[names[0]] as unknown;
  return isPlainObject(accumulator) && Object.keys(accumulator).length === 1 && accumulator.$sum === 1
    ? names[0]
    : undefined;
}

function stage(document: Document | undefined, name: string): unknown {
  return document && isPlainObject(document) && Object.keys(document).length === 1 ? document[name] : undefined;
}

function keysOf(id: Document): GroupKey[] | undefined {
  const keys = Object.entries(id).map(([name, value]) => keyOf(name, value));
  return keys.length > 0 && keys.every((key) => key !== undefined) ? keys : undefined;
}

function groupShape(rest: readonly Document[]): GroupShape | undefined {
  if (rest.length === 1) {
    const group = stage(rest[0], '$group');
    if (!isPlainObject(group) || !isPlainObject(group._id)) return undefined;
    const countName = countingAccumulator(group);
    const keys = keysOf(group._id);
    return countName === undefined || keys === undefined ? undefined : { keys, unwound: [], countName };
  }
  const arrays: string[] = [];
  let i = 0;
  for (; i < rest.length - 2; i++) {
    const unwind = stage(rest[i], '$unwind');
    if (!isPlainObject(unwind) || Object.keys(unwind).length !== 2 || unwind.preserveNullAndEmptyArrays !== true)
      return undefined;
    if (typeof unwind.path !== 'string' || !FIELD_PATH.test(unwind.path)) return undefined;
    arrays.push(unwind.path.slice(1));
  }
  if (arrays.length === 0 || arrays.length > MAX_UNWOUND || new Set(arrays).size !== arrays.length) return undefined;
  if (arrays.some((a) => arrays.some((b) => a !== b && b.startsWith(`${a}.`)))) return undefined;
  const perDocument = stage(rest[i], '$group');
  const counting = stage(rest[i + 1], '$group');
  if (!isPlainObject(perDocument) || Object.keys(perDocument).length !== 1 || !isPlainObject(perDocument._id))
    return undefined;
  if (!isPlainObject(counting) || !isPlainObject(counting._id)) return undefined;
  const entries = Object.entries(perDocument._id);
  if (entries.filter(([, value]) => value === '$_id').length !== 1) return undefined;
  const keys = keysOf(Object.fromEntries(entries.filter(([, value]) => value !== '$_id')));
  if (keys === undefined) return undefined;
  const unwound: GroupKey[] = [];
  for (const array of arrays) {
    const under = keys.filter((key) => key.path.startsWith(`${array}.`));
    if (under.length !== 1 || keys.some((key) => key.path === array)) return undefined;
    unwound.push(under[0]);
  }
  // The counting group regroups exactly the keys of the per-document group.
  const regrouped = Object.entries(counting._id);
  if (
    regrouped.length !== keys.length ||
    !regrouped.every(([name, value], k) => name === keys[k].name && value === `$_id.${name}`)
  )
    return undefined;
  const countName = countingAccumulator(counting);
  return countName === undefined ? undefined : { keys, unwound, countName };
}

/** A bounded scan of one index, and where the paths it serves are in its keys. */
interface Scan {
  readonly plan: IndexScanPlan;
  position(path: string): number;
  /** the predicates its bounds do not already guarantee, to test on each entry */
  readonly residual: readonly EntryTest[];
}

interface EntryTest {
  readonly position: number;
  test(value: unknown): boolean;
}

/** How a covered query runs: which records match, and the scans giving the keys. */
interface CoveredRun {
  /** absent: the first key scan also decides which records match (its residual tests) */
  readonly match?: Scan;
  /** one scan per index the keys come from: the first holds every single-valued key */
  readonly keyScans: readonly { scan: Scan; keys: readonly GroupKey[]; dedupe: boolean }[];
}

function positionIn(index: SortedIndex): (path: string) => number {
  return (path) => index.spec.fields.findIndex((field) => field.path === path);
}

/** A test of a predicate on an index key value (strings by a Set: the common case, and the hot loop). */
function entryTest(position: number, predicate: PathPredicate): EntryTest {
  if (predicate.kind === 'range') return { position, test: (value) => inInterval(value, predicate.interval) };
  if (predicate.values.every((value) => typeof value === 'string')) {
    const values = new Set(predicate.values as string[]);
    return { position, test: (value) => typeof value === 'string' && values.has(value) };
  }
  return { position, test: (value) => predicate.values.some((point) => compareValues(value, point) === 0) };
}

/** Positions every range pins to one value: predicates there hold for every entry scanned. */
function pinnedPositions(plan: IndexScanPlan): Set<number> {
  const pinned = new Set<number>();
  const [first] = plan.ranges;
  if (!first) return pinned;
  for (let p = 0; p < first.start.length; p++) {
    const isPoint = plan.ranges.every(
      (range) =>
        range.start.length > p &&
        range.end.length > p &&
        compareValues(range.start[p], range.end[p]) === 0 &&
        (p < range.start.length - 1 || (range.startInclusive && range.endInclusive)),
    );
    if (!isPoint) break;
    pinned.add(p);
  }
  return pinned;
}

/** A scan of `index` bounded by the filter's predicates on it; undefined when they are not all on it. */
function scanOf(
  collection: Collection,
  index: SortedIndex,
  filter: Document,
  predicates: readonly PathPredicate[],
): Scan | undefined {
  const position = positionIn(index);
  const positions = predicates.map((predicate) => position(predicate.path));
  if (positions.some((p) => p < 0)) return undefined;
  // Several conditions on one array path may be met by different elements; an entry holds one.
  if ([...index.multikeyFields].some((m) => positions.filter((p) => p === m).length > 1)) return undefined;
  const plan = planQuery(collection, { filter, skip: 0, limit: 0, hint: index.name });
  if (plan.kind !== 'ixscan') return undefined;
  const pinned = pinnedPositions(plan);
  const residual = predicates.flatMap((predicate, i) =>
    pinned.has(positions[i]) ? [] : [entryTest(positions[i], predicate)],
  );
  return { plan, position, residual };
}

/**
 * Whether `keys` can be read from `index`'s entries. With an unwound key, its position is the
 * only one that may hold arrays (each entry is then one distinct value of one record); without,
 * no key position may (a record with several entries is counted once).
 */
function holdsKeys(index: SortedIndex, keys: readonly GroupKey[], unwound: GroupKey | undefined): boolean {
  const position = positionIn(index);
  if (!index.complete || keys.some((key) => position(key.path) < 0)) return false;
  const multikey = [...index.multikeyFields];
  if (unwound) return multikey.every((m) => m === position(unwound.path));
  return multikey.every((m) => !keys.some((key) => position(key.path) === m));
}

function cheapest(scans: readonly (Scan | undefined)[]): Scan | undefined {
  return scans.reduce<Scan | undefined>(
    (best, scan) => (scan && (!best || scan.plan.estimate < best.plan.estimate) ? scan : best),
    undefined,
  );
}

function planCovered(
  collection: Collection,
  filter: Document,
  predicates: readonly PathPredicate[],
  shape: GroupShape,
): CoveredRun | undefined {
  const indexes = collection.indexList().filter((index) => index.complete);
  const scalars = shape.keys.filter((key) => !shape.unwound.includes(key));
  const [firstArray, secondArray] = shape.unwound;
  const firstKeys = firstArray ? [...scalars, firstArray] : scalars;
  // An index of the first keys, with arrays only at the unwound key: only they may be multikey there.
  const firstHolders = indexes.filter((index) => holdsKeys(index, firstKeys, firstArray));
  // One pass: an index holding the keys also takes the whole filter, unless the filter
  // constrains the unwound array (the keys need every value of a matching record).
  const constrainsUnwound = firstArray !== undefined && predicates.some((p) => p.path === firstArray.path);
  if (!secondArray && !constrainsUnwound) {
    const onePass = cheapest(firstHolders.map((index) => scanOf(collection, index, filter, predicates)));
    if (onePass)
      return {
        keyScans: [{ scan: onePass, keys: firstKeys, dedupe: firstArray === undefined && onePass.plan.index.multikey }],
      };
  }
  // Two phases: the matching records from the cheapest index taking the filter, then the keys
  // from indexes holding them, each scanned whole.
  const match =
    predicates.length === 0
      ? undefined
      : cheapest(indexes.map((index) => scanOf(collection, index, filter, predicates)));
  if (predicates.length > 0 && !match) return undefined;
  const whole = (index: SortedIndex): Scan | undefined => scanOf(collection, index, {}, []);
  const first = cheapest(firstHolders.map(whole));
  if (!first) return undefined;
  const keyScans = [{ scan: first, keys: firstKeys, dedupe: firstArray === undefined && first.plan.index.multikey }];
  if (secondArray) {
    const second = cheapest(indexes.filter((index) => holdsKeys(index, [secondArray], secondArray)).map(whole));
    if (!second) return undefined;
    keyScans.push({ scan: second, keys: [secondArray], dedupe: false });
  }
  return { match, keyScans };
}

function inInterval(value: unknown, interval: Interval): boolean {
  const low = compareValues(value, interval.low);
  const high = compareValues(value, interval.high);
  return (low > 0 || (low === 0 && interval.lowInclusive)) && (high < 0 || (high === 0 && interval.highInclusive));
}

/** Thrown when a key value is not what the covered form can compute (a `$year` of a non-date). */
class NotCovered extends Error {}

/** The UTC year of a time, remembering the last year's bounds (index scans meet dates in runs). */
class YearOf {
  private from = 0;
  private to = -1;
  private year = 0;

  of(date: Date): number {
    const time = date.getTime();
    if (time >= this.from && time < this.to) return this.year;
    this.year = date.getUTCFullYear();
    // setUTCFullYear, unlike Date.UTC, takes years 0 to 99 as they are.
    this.from = new Date(0).setUTCFullYear(this.year, 0, 1);
    this.to = new Date(0).setUTCFullYear(this.year + 1, 0, 1);
    return this.year;
  }
}

function keyValue(value: unknown, key: GroupKey, years: YearOf): unknown {
  const present = value === undefined ? null : value;
  if (key.year) {
    if (!(present instanceof Date) || Number.isNaN(present.getTime())) throw new NotCovered();
    return years.of(present);
  }
  // Other types (ObjectId, binary...) would need mingo's notion of equality to group.
  if (!(present === null || typeof present === 'string' || typeof present === 'number' || typeof present === 'boolean'))
    throw new NotCovered();
  return present;
}

/** A set of record numbers (numbered from 1 in insertion order, so nearly densely). */
class RecordSet {
  private bits = new Uint8Array(1024);
  add(seq: number): void {
    if (seq >= this.bits.length) {
      const grown = new Uint8Array(Math.max(seq + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[seq] = 1;
  }
  has(seq: number): boolean {
    return seq < this.bits.length && this.bits[seq] === 1;
  }
}

/**
 * Visits the entries of a scan that pass its residual tests; their keys hold the values up to
 * position `upTo` (the last one the caller reads), and no further ones are decoded.
 */
function forEachEntry(scan: Scan, visit: (entry: IndexEntry) => void, upTo = -1): void {
  const { residual } = scan;
  const fields = 1 + Math.max(upTo, ...residual.map((test) => test.position));
  for (const range of scan.plan.ranges) {
    scan.plan.index.scan(
      range,
      false,
      (entry) => {
        for (let i = 0; i < residual.length; i++) {
          const value = entry.key[residual[i].position];
          if (!residual[i].test(value === undefined ? null : value)) return true;
        }
        visit(entry);
        return true;
      },
      Math.max(1, fields),
    );
  }
}

/**
 * Counts per combination of values, in nested maps keyed by the values themselves (keyValue lets
 * through only strings, numbers, booleans and null, which a Map tells apart as $group does):
 * the hot loop builds no key strings.
 */
class Tally {
  private readonly root = new Map<unknown, unknown>();
  private readonly counts: { values: unknown[]; count: number }[] = [];

  constructor(private readonly depth: number) {}

  add(values: readonly unknown[]): void {
    let level = this.root;
    for (let i = 0; i < this.depth - 1; i++) {
      let next = level.get(values[i]) as Map<unknown, unknown> | undefined;
      if (!next) {
        next = new Map();
        level.set(values[i], next);
      }
      level = next;
    }
    const last = values[this.depth - 1];
    const found = level.get(last) as { count: number } | undefined;
    if (found) found.count++;
    else {
      const group = { values: [...values], count: 1 };
      level.set(last, group);
      this.counts.push(group);
    }
  }

  groups(): readonly { values: unknown[]; count: number }[] {
    return this.counts;
  }
}

function run(covered: CoveredRun, shape: GroupShape): Document[] {
  let matched: RecordSet | undefined;
  if (covered.match) {
    const set = new RecordSet();
    forEachEntry(covered.match, (entry) => set.add(entry.seq));
    matched = set;
  }
  const [first, second] = covered.keyScans;
  const keys = second ? [...first.keys, ...second.keys] : first.keys;
  const tally = new Tally(keys.length);
  const positions = first.keys.map((key) => first.scan.position(key.path));
  const current: unknown[] = new Array(keys.length);
  const counted = first.dedupe ? new RecordSet() : undefined;
  const years = new YearOf();
  // With a second array, the first scan's values of each record are kept to pair with the second's.
  // (By sequence number, which records have densely from 0: an array is a cheaper map here.)
  const perRecord: (unknown[][] | undefined)[] | undefined = second ? [] : undefined;
  forEachEntry(
    first.scan,
    (entry) => {
      const seq = entry.seq;
      if (matched && !matched.has(seq)) return;
      if (counted) {
        if (counted.has(seq)) return;
        counted.add(seq);
      }
      for (let i = 0; i < positions.length; i++) current[i] = keyValue(entry.key[positions[i]], first.keys[i], years);
      if (!perRecord) return tally.add(current);
      const list = perRecord[seq];
      if (list) list.push(current.slice(0, positions.length));
      else perRecord[seq] = [current.slice(0, positions.length)];
    },
    Math.max(...positions),
  );
  if (second && perRecord) {
    const [key] = second.keys;
    const at = second.scan.position(key.path);
    forEachEntry(
      second.scan,
      (entry) => {
        const firsts = perRecord[entry.seq];
        if (!firsts) return;
        current[keys.length - 1] = keyValue(entry.key[at], key, years);
        for (const values of firsts) {
          for (let i = 0; i < values.length; i++) current[i] = values[i];
          tally.add(current);
        }
      },
      at,
    );
  }
  const names = keys.map((key) => key.name);
  return tally.groups().map((group) => ({
    _id: Object.fromEntries(shape.keys.map((key) => [key.name, group.values[names.indexOf(key.name)]])),
    [shape.countName]: group.count,
  }));
}
