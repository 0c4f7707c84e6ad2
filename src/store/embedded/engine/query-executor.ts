import type { Document } from 'bson';
import { Query } from 'mingo';
import type { Collection } from './collection';
import { mingoOptions } from './mingo-options';
import { planQuery, type IndexScanPlan, type PlanRequest, type QueryPlan } from './query-planner';
import type { IndexEntry } from './sorted-index';
import { documentSortKeys, sortRecords, type SortSpec } from './sort';
import type { StoredRecord } from './stored-record';

export interface QueryRequest extends PlanRequest {
  readonly variables?: Document;
}

export interface ExecutionStats {
  readonly plan: QueryPlan;
  readonly keysExamined: number;
  readonly docsExamined: number;
  readonly executionTimeMillis: number;
}

export interface QueryResult {
  /** Matching records after sort, skip and limit. */
  readonly records: StoredRecord[];
  readonly stats: ExecutionStats;
}

/** A compiled filter; an empty filter matches without calling mingo. */
export function compileFilter(filter: Document, request: Pick<QueryRequest, 'variables'> = {}): (doc: Document) => boolean {
  if (Object.keys(filter).length === 0) return () => true;
  const query = new Query(filter, mingoOptions({ variables: request.variables }));
  return (doc) => query.test(doc);
}

/**
 * Feeds candidate records to `visit` in plan order until it returns false, counting what the
 * plan reads.
 */
function scanCandidates(
  collection: Collection,
  plan: QueryPlan,
  counters: { keys: number; docs: number },
  visit: (record: StoredRecord, key?: readonly unknown[]) => boolean,
): void {
  if (plan.kind === 'collscan') {
    for (const record of collection.naturalOrder()) {
      counters.docs++;
      if (!visit(record)) return;
    }
    return;
  }
  // A multikey index holds several entries per document; each document is fetched once.
  const seen = plan.index.multikey ? new Set<StoredRecord>() : undefined;
  let going = true;
  for (const range of plan.ranges) {
    plan.index.scan(range, plan.reverse, (entry) => {
      counters.keys++;
      if (seen) {
        if (seen.has(entry.record)) return true;
        seen.add(entry.record);
      }
      counters.docs++;
      going = visit(entry.record, entry.key);
      return going;
    });
    if (!going) return;
  }
}

/**
 * The first `wanted` matching records of a merge plan in sort order: each range is read in
 * order until it has `wanted` matches (no more can be among the first `wanted` overall), and
 * the ranges are merged on the fields after their common prefix. A document in several ranges
 * (several values of a multikey field) is taken once, at its first place.
 */
function mergeRanges(
  plan: IndexScanPlan & { mergeFrom: number },
  wanted: number,
  matches: (record: StoredRecord) => boolean,
  counters: { keys: number; docs: number },
): StoredRecord[] {
  const taken: IndexEntry[] = [];
  for (const range of plan.ranges) {
    let found = 0;
    plan.index.scan(range, plan.reverse, (entry) => {
      counters.keys++;
      counters.docs++;
      if (!matches(entry.record)) return true;
      taken.push(entry);
      return ++found < wanted;
    });
  }
  const sign = plan.reverse ? -1 : 1;
  taken.sort((a, b) => sign * plan.index.compareKeys(a.key, b.key, plan.mergeFrom) || a.record.seq - b.record.seq);
  const seen = new Set<StoredRecord>();
  const records: StoredRecord[] = [];
  for (const { record } of taken) {
    if (records.length >= wanted) break;
    if (seen.has(record)) continue;
    seen.add(record);
    records.push(record);
  }
  return records;
}

/**
 * Whether the entries in a plan's ranges are exactly its matches, one each: the bounds are
 * exact, and a document can only be in one range once. A multikey field breaks that unless it
 * is pinned to the same single value in every range (a document has each value once).
 */
function oneEntryPerMatch(plan: IndexScanPlan): boolean {
  if (!plan.exact) return false;
  if (!plan.index.multikey) return true;
  const first = plan.ranges[0];
  if (first === undefined) return true;
  return [...plan.index.multikeyFields].every(
    (field) =>
      field < first.start.length &&
      plan.ranges.every((range) => range.start.length > field && range.end.length > field && range.start[field] === first.start[field] && range.end[field] === first.start[field]),
  );
}

/**
 * Where the sort fields are in the plan's index keys, when all are there and no document has
 * an array on them (an index key then holds exactly the value the document sorts by): the
 * records of an index scan sort by their entries' keys, without decoding a document.
 */
function indexSortPositions(plan: IndexScanPlan, sort: SortSpec): number[] | undefined {
  const positions = sort.map((field) => plan.index.spec.fields.findIndex((indexField) => indexField.path === field.path));
  if (positions.some((position) => position < 0 || plan.index.multikeyFields.has(position))) return undefined;
  // A sparse or partial index may lack documents, but every record of a scan came from it.
  return positions;
}

/**
 * How many documents a query matches (after skip and limit). When each match is exactly one
 * entry in the index bounds, that is the number of entries in the ranges: counted by binary
 * search, without visiting anything.
 */
export function countMatches(collection: Collection, request: QueryRequest): number {
  const plan = planQuery(collection, { ...request, sort: undefined });
  const countable = plan.kind === 'collscan' ? Object.keys(request.filter).length === 0 : oneEntryPerMatch(plan);
  if (!countable) return runQuery(collection, { ...request, sort: undefined }).records.length;
  const matched = Math.max(0, plan.estimate - request.skip);
  return request.limit > 0 ? Math.min(matched, request.limit) : matched;
}

/**
 * Runs a query: the planner narrows the candidates, mingo decides which of them match (unless
 * the index bounds already say exactly that), and the result is sorted (unless the index
 * already did) and cut to skip/limit.
 */
export function runQuery(collection: Collection, request: QueryRequest): QueryResult {
  const started = performance.now();
  const plan = planQuery(collection, request);
  const counters = { keys: 0, docs: 0 };
  const ordered = !request.sort || (plan.kind === 'ixscan' && plan.providesSort);
  const wanted = request.limit > 0 ? request.skip + request.limit : Infinity;
  const enough = ordered ? wanted : Infinity;
  // Documents are stored as BSON: decoded only when a filter must look at them, and then once
  // (a sort in memory reuses them, unless the index entries hold what it sorts by).
  const decoded = new Map<StoredRecord, Document>();
  const filter = plan.kind === 'ixscan' && plan.exact ? undefined : compileFilter(request.filter, request);
  const sortPositions = !ordered && request.sort && plan.kind === 'ixscan' ? indexSortPositions(plan, request.sort) : undefined;
  const keptDocs = !ordered && request.sort !== undefined && sortPositions === undefined;
  const matches = (record: StoredRecord): boolean => {
    if (filter === undefined) return true;
    const doc = record.doc;
    if (!filter(doc)) return false;
    if (keptDocs) decoded.set(record, doc);
    return true;
  };

  let records: StoredRecord[] = [];
  const sortKeys = new Map<StoredRecord, unknown[]>();
  if (plan.kind === 'ixscan' && plan.mergeFrom !== undefined) {
    records = mergeRanges(plan as IndexScanPlan & { mergeFrom: number }, wanted, matches, counters);
  } else {
    scanCandidates(collection, plan, counters, (record, key) => {
      if (!matches(record)) return true;
      records.push(record);
      if (sortPositions && key) sortKeys.set(record, sortPositions.map((position) => key[position]));
      return records.length < enough;
    });
  }
  if (!ordered && request.sort) {
    const fromIndex = (record: StoredRecord): unknown[] => sortKeys.get(record)!;
    const fromDocuments = documentSortKeys(request.sort, (record) => decoded.get(record) ?? record.doc);
    records = sortRecords(records, request.sort, wanted, sortPositions ? fromIndex : fromDocuments);
  }
  if (request.skip > 0 || wanted !== Infinity) records = records.slice(request.skip, wanted);

  const stats: ExecutionStats = {
    plan,
    keysExamined: counters.keys,
    docsExamined: counters.docs,
    executionTimeMillis: Math.round(performance.now() - started),
  };
  return { records, stats };
}
