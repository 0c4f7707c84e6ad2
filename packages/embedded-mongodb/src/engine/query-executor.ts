import type { Document } from 'bson';
import type { Collection } from './collection';
import { compileStoreFilter } from './mingo-options';
import { planQuery, type IndexScanPlan, type PlanRequest, type QueryPlan } from './query-planner';
import type { EntryCursor, IndexEntry } from './sorted-index';
import { documentSortKeys, sortRecords, type SortSpec } from './sort';
import type { StoredRecord } from './stored-record';
import { CommandError } from '../errors';
import {
  countTextMatches,
  runTextQuery,
  textFilterOf,
  type TextCount,
  type TextPlan,
  type TextResult,
} from './text/text-search';

export interface QueryRequest extends PlanRequest {
  readonly variables?: Document;
  /** The projection asks for `{$meta: 'textScore'}`. */
  readonly projectsScore?: boolean;
}

export interface ExecutionStats {
  readonly plan: QueryPlan | TextPlan;
  /** A find (documents returned) or a count (only their number). */
  readonly mode: 'find' | 'count';
  /** The skip was done on index keys, before any document was fetched (MongoDB's SKIP under FETCH). */
  readonly skippedOnKeys: boolean;
  readonly keysExamined: number;
  readonly docsExamined: number;
  readonly executionTimeMillis: number;
}

export interface QueryResult {
  /** Matching records after sort, skip and limit. */
  readonly records: StoredRecord[];
  readonly stats: ExecutionStats;
  /** A `$text` query's text score of each record. */
  readonly textScores?: ReadonlyMap<StoredRecord, number>;
}

/** mongod's refusal of `{$meta: 'textScore'}` in a query without `$text`. */
export function textScoreUnavailable(): CommandError {
  return new CommandError('Location40218', 'query requires text score metadata, but it is not available');
}

/** The `$text` of a request's filter, checked against the collection, or undefined. */
function textOf(collection: Collection, request: QueryRequest) {
  const found = textFilterOf(collection, collection.namespace, request.filter);
  if (!found && (request.projectsScore || request.sort?.some((field) => field.meta))) throw textScoreUnavailable();
  return found;
}

/**
 * What a query on a collection that does not exist answers when it involves `$text`: the errors
 * mongod gives (no text index; no text score without `$text`).
 */
export function assertNoTextQuery(namespace: string, request: QueryRequest): void {
  const found = textFilterOf(undefined, namespace, request.filter);
  if (!found && (request.projectsScore || request.sort?.some((field) => field.meta))) throw textScoreUnavailable();
}

function textStats(result: TextResult | TextCount, started: number, mode: ExecutionStats['mode']): ExecutionStats {
  return statsOf(result.plan, { keys: result.keysExamined, docs: result.docsExamined }, started, mode);
}

/** A compiled filter; an empty filter matches without calling mingo. */
export function compileFilter(
  filter: Document,
  request: Pick<QueryRequest, 'variables'> = {},
): (doc: Document) => boolean {
  if (Object.keys(filter).length === 0) return () => true;
  const matcher = compileStoreFilter(filter, { variables: request.variables });
  return (doc) => matcher(doc);
}

/** Counts of what a query read: index entries, and documents fetched (their BSON decoded or kept). */
interface Counters {
  keys: number;
  docs: number;
}

/** Feeds every record of a collection scan to `visit` until it returns false. */
function scanCollection(collection: Collection, counters: Counters, visit: (record: StoredRecord) => boolean): void {
  for (const record of collection.naturalOrder()) {
    counters.docs++;
    if (!visit(record)) return;
  }
}

/**
 * The index entries of a scan plan in plan order, each document once (a multikey index holds
 * several entries of a document). Every entry it moves over counts as a key examined.
 */
interface EntryStream {
  next(): IndexEntry | undefined;
  /** Moves over the entries of up to `n` documents without fetching them; returns how many. */
  skip(n: number): number;
}

/**
 * Whether each document has at most one entry in the plan's ranges: the index is not multikey,
 * or its multikey fields are pinned to the same single value in every range (an index keeps one
 * entry per distinct value of a document).
 */
function oneEntryPerDocument(plan: IndexScanPlan): boolean {
  if (!plan.index.multikey) return true;
  const first = plan.ranges[0];
  if (first === undefined) return true;
  return [...plan.index.multikeyFields].every(
    (field) =>
      field < first.start.length &&
      plan.ranges.every(
        (range) =>
          range.start.length > field &&
          range.end.length > field &&
          range.start[field] === first.start[field] &&
          range.end[field] === first.start[field],
      ),
  );
}

/**
 * The plan's ranges one after the other, or (a merge plan) interleaved in sort order: a k-way
 * merge of one cursor per range, which reads each entry once, so that the first n documents in
 * sort order cost about n entries in all, however many ranges there are. Without repeats to
 * remove, `skip` jumps over entries inside a range a chunk at a time.
 */
function entryStream(plan: IndexScanPlan, counters: Counters): EntryStream {
  const cursors = plan.ranges.map((range) => plan.index.cursor(range, plan.reverse));
  const seen = oneEntryPerDocument(plan) ? undefined : new Set<number>();
  const from = plan.mergeFrom;
  const sign = plan.reverse ? -1 : 1;
  // Merge order: the fields after the ranges' common prefix, then insertion, as one range's order.
  const mergeOrder = (a: IndexEntry, b: IndexEntry): number =>
    sign * (plan.index.compareKeys(a.key, b.key, from) || a.seq - b.seq);
  let at = 0;
  const nextEntry = (): IndexEntry | undefined => {
    let cursor: EntryCursor<IndexEntry> | undefined;
    if (from === undefined) {
      while (at < cursors.length && cursors[at].current === undefined) at++;
      cursor = cursors[at];
    } else {
      for (const candidate of cursors) {
        const head = candidate.current;
        if (head !== undefined && (cursor === undefined || mergeOrder(head, cursor.current!) < 0)) cursor = candidate;
      }
    }
    const entry = cursor?.current;
    cursor?.advance();
    return entry;
  };
  const next = (): IndexEntry | undefined => {
    for (let entry = nextEntry(); entry !== undefined; entry = nextEntry()) {
      counters.keys++;
      if (!seen) return entry;
      if (seen.has(entry.seq)) continue;
      seen.add(entry.seq);
      return entry;
    }
    return undefined;
  };
  const skip = (n: number): number => {
    let skipped = 0;
    if (seen) {
      while (skipped < n && next() !== undefined) skipped++;
      return skipped;
    }
    if (from !== undefined) {
      skipped = skipMerged(cursors, n, mergeOrder);
    } else {
      for (; skipped < n && at < cursors.length; at++) {
        skipped += cursors[at].skip(n - skipped);
        if (skipped === n) break;
      }
    }
    counters.keys += skipped;
    return skipped;
  };
  return { next, skip };
}

/**
 * Moves the cursors of a merge over its first `n` entries in merge order (`compare`), without
 * reading them one by one: each round takes, of every cursor's next ceil(n / k) entries (k the
 * cursors not yet walked), the cursor whose last such entry comes first in merge order. At most
 * n entries of all come before or at that entry (the others' entries at that depth come after
 * it), so that cursor's whole run belongs to the first n and is skipped a chunk at a time.
 * Each round shortens n by a k-th or ends a cursor: O(k log n) rounds of k positional peeks.
 * Entries must be distinct documents (no repeats to remove). Returns how many were skipped.
 */
function skipMerged(
  cursors: readonly EntryCursor<IndexEntry>[],
  n: number,
  compare: (a: IndexEntry, b: IndexEntry) => number,
): number {
  let left = n;
  let skipped = 0;
  for (;;) {
    const open = cursors.filter((cursor) => cursor.current !== undefined);
    if (left === 0 || open.length === 0) return skipped;
    const depth = Math.ceil(left / open.length);
    let chosen: EntryCursor<IndexEntry> | undefined;
    let chosenDepth = 0;
    let chosenLast: IndexEntry | undefined;
    for (const cursor of open) {
      const run = cursor.remaining(depth);
      const last = cursor.peek(run - 1)!;
      if (!chosenLast || compare(last, chosenLast) < 0) {
        chosen = cursor;
        chosenDepth = run;
        chosenLast = last;
      }
    }
    const moved = chosen!.skip(chosenDepth);
    left -= moved;
    skipped += moved;
  }
}

/**
 * Whether the entries in a plan's ranges are exactly its matches, one each: the bounds are
 * exact, and a document can only be in the ranges once.
 */
function oneEntryPerMatch(plan: IndexScanPlan): boolean {
  return plan.exact && oneEntryPerDocument(plan);
}

/**
 * Where the sort fields are in the plan's index keys, when all are there and no document has
 * an array on them (an index key then holds exactly the value the document sorts by): the
 * records of an index scan sort by their entries' keys, without decoding a document.
 */
function indexSortPositions(plan: IndexScanPlan, sort: SortSpec): number[] | undefined {
  const positions = sort.map((field) =>
    plan.index.spec.fields.findIndex((indexField) => indexField.path === field.path),
  );
  if (positions.some((position) => position < 0 || plan.index.multikeyFields.has(position))) return undefined;
  // A sparse or partial index may lack documents, but every record of a scan came from it.
  return positions;
}

export interface CountResult {
  readonly n: number;
  readonly stats: ExecutionStats;
}

/**
 * How many documents a query matches (after skip and limit), reading no document when the
 * index bounds are exact: when each match is one entry in the ranges, the number of entries in
 * them, counted by binary search without visiting any; when a document may have several
 * entries (several values of a multikey field), the distinct documents of the entries walked.
 */
export function countMatches(collection: Collection, request: QueryRequest): number {
  return countWithStats(collection, request).n;
}

/** countMatches with what it read (explain of a count). */
export function countWithStats(collection: Collection, request: QueryRequest): CountResult {
  const started = performance.now();
  const text = textOf(collection, request);
  if (text) {
    const result = countTextMatches(
      collection,
      text,
      request,
      (filter) => runQuery(collection, { filter, skip: 0, limit: 0, variables: request.variables }).records,
    );
    const afterSkip = Math.max(0, result.matched - request.skip);
    const n = request.limit > 0 ? Math.min(afterSkip, request.limit) : afterSkip;
    return { n, stats: textStats(result, started, 'count') };
  }
  const plan = planQuery(collection, { ...request, sort: undefined });
  const counters: Counters = { keys: 0, docs: 0 };
  let matched: number;
  if (plan.kind === 'collscan' && Object.keys(request.filter).length === 0) {
    matched = collection.count;
  } else if (plan.kind === 'ixscan' && oneEntryPerMatch(plan)) {
    // The plan's estimate stops counting at a cap: the entries in its ranges, counted to the end.
    matched = plan.ranges.reduce((sum, range) => sum + plan.index.count(range), 0);
    // As MongoDB's COUNT_SCAN reports it: the keys counted.
    counters.keys = matched;
  } else if (plan.kind === 'ixscan' && plan.exact) {
    const stream = entryStream(plan, counters);
    matched = stream.skip(Infinity);
  } else {
    const { records, stats } = runQuery(collection, { ...request, sort: undefined, skip: 0, limit: 0 });
    matched = records.length;
    counters.keys = stats.keysExamined;
    counters.docs = stats.docsExamined;
  }
  const afterSkip = Math.max(0, matched - request.skip);
  const n = request.limit > 0 ? Math.min(afterSkip, request.limit) : afterSkip;
  return { n, stats: statsOf(plan, counters, started, 'count') };
}

function statsOf(
  plan: QueryPlan | TextPlan,
  counters: Counters,
  started: number,
  mode: ExecutionStats['mode'],
  skippedOnKeys = false,
): ExecutionStats {
  return {
    plan,
    mode,
    skippedOnKeys,
    keysExamined: counters.keys,
    docsExamined: counters.docs,
    executionTimeMillis: Math.round(performance.now() - started),
  };
}

/**
 * Runs a query: the planner narrows the candidates, mingo decides which of them match (unless
 * the index bounds already say exactly that), and the result is sorted (unless the index
 * already did) and cut to skip/limit. When the index yields the order and its bounds are exact,
 * the skipped matches are moved over on index keys and only the returned documents are fetched.
 */
export function runQuery(collection: Collection, request: QueryRequest): QueryResult {
  const started = performance.now();
  const text = textOf(collection, request);
  if (text) {
    const result = runTextQuery(
      collection,
      text,
      request,
      (filter) => runQuery(collection, { filter, skip: 0, limit: 0, variables: request.variables }).records,
    );
    return { records: result.records, stats: textStats(result, started, 'find'), textScores: result.scores };
  }
  const plan = planQuery(collection, request);
  const counters: Counters = { keys: 0, docs: 0 };
  const wanted = request.limit > 0 ? request.skip + request.limit : Infinity;
  // Documents are stored as BSON: decoded only when a filter must look at them, and then once
  // (a sort in memory reuses them, unless the index entries hold what it sorts by).
  const decoded = new Map<StoredRecord, Document>();
  const filter = plan.kind === 'ixscan' && plan.exact ? undefined : compileFilter(request.filter, request);
  const matches = (record: StoredRecord, keep: boolean): boolean => {
    if (filter === undefined) return true;
    const doc = record.doc;
    if (!filter(doc)) return false;
    if (keep) decoded.set(record, doc);
    return true;
  };

  if (plan.kind === 'ixscan' && (!request.sort || plan.providesSort)) {
    const records = readInOrder(
      plan,
      request,
      counters,
      filter === undefined ? undefined : (record) => matches(record, false),
    );
    return { records, stats: statsOf(plan, counters, started, 'find', filter === undefined && request.skip > 0) };
  }

  let records: StoredRecord[] = [];
  const sortKeys = new Map<StoredRecord, unknown[]>();
  const sortPositions = request.sort && plan.kind === 'ixscan' ? indexSortPositions(plan, request.sort) : undefined;
  const keepDocs = request.sort !== undefined && sortPositions === undefined;
  if (plan.kind === 'collscan') {
    const enough = request.sort ? Infinity : wanted;
    scanCollection(collection, counters, (record) => {
      if (matches(record, keepDocs)) records.push(record);
      return records.length < enough;
    });
  } else {
    const stream = entryStream(plan, counters);
    for (let entry = stream.next(); entry !== undefined; entry = stream.next()) {
      counters.docs++;
      if (!matches(entry.record, keepDocs)) continue;
      records.push(entry.record);
      if (sortPositions)
        sortKeys.set(
          entry.record,
          sortPositions.map((position) => entry.key[position]),
        );
    }
  }
  if (request.sort) {
    const fromIndex = (record: StoredRecord): unknown[] => sortKeys.get(record)!;
    const fromDocuments = documentSortKeys(request.sort, (record) => decoded.get(record) ?? record.doc);
    records = sortRecords(records, request.sort, wanted, sortPositions ? fromIndex : fromDocuments);
  }
  if (request.skip > 0 || wanted !== Infinity) records = records.slice(request.skip, wanted);
  return { records, stats: statsOf(plan, counters, started, 'find') };
}

/**
 * A page of an index scan that yields the requested order. Exact bounds (no `matches`): the
 * skipped entries are moved over without fetching a document, and only the page is fetched.
 * Otherwise every entry's document is fetched and filtered, and the skip counts matches.
 */
function readInOrder(
  plan: IndexScanPlan,
  request: QueryRequest,
  counters: Counters,
  matches: ((record: StoredRecord) => boolean) | undefined,
): StoredRecord[] {
  const stream = entryStream(plan, counters);
  const limit = request.limit > 0 ? request.limit : Infinity;
  const records: StoredRecord[] = [];
  let toSkip = request.skip;
  if (!matches) {
    if (stream.skip(toSkip) < toSkip) return records;
    toSkip = 0;
  }
  while (records.length < limit) {
    const entry = stream.next();
    if (entry === undefined) break;
    counters.docs++;
    if (matches && !matches(entry.record)) continue;
    if (toSkip > 0) {
      toSkip--;
      continue;
    }
    records.push(entry.record);
  }
  return records;
}
