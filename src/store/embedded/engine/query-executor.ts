import type { Document } from 'bson';
import { Query } from 'mingo';
import type { Collection } from './collection';
import { mingoOptions } from './mingo-options';
import { planQuery, type PlanRequest, type QueryPlan } from './query-planner';
import { sortRecords } from './sort';
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
export function compileFilter(filter: Document, request: Pick<QueryRequest, 'collation' | 'variables'> = {}): (doc: Document) => boolean {
  if (Object.keys(filter).length === 0) return () => true;
  const query = new Query(filter, mingoOptions({ collation: request.collation, variables: request.variables }));
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
  visit: (record: StoredRecord) => boolean,
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
      going = visit(entry.record);
      return going;
    });
    if (!going) return;
  }
}

/**
 * How many documents a query matches (after skip and limit). When the index bounds are exact
 * and each document has one entry, that is the number of entries in the ranges: counted by
 * binary search, without visiting anything.
 */
export function countMatches(collection: Collection, request: QueryRequest): number {
  const plan = planQuery(collection, { ...request, sort: undefined });
  const countable = plan.kind === 'collscan' ? Object.keys(request.filter).length === 0 : plan.exact && !plan.index.multikey;
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
  const matches = plan.kind === 'ixscan' && plan.exact ? () => true : compileFilter(request.filter, request);
  const counters = { keys: 0, docs: 0 };
  const ordered = !request.sort || (plan.kind === 'ixscan' && plan.providesSort);
  const wanted = request.limit > 0 ? request.skip + request.limit : Infinity;
  const enough = ordered ? wanted : Infinity;

  let records: StoredRecord[] = [];
  scanCandidates(collection, plan, counters, (record) => {
    if (matches(record.doc)) records.push(record);
    return records.length < enough;
  });
  if (!ordered && request.sort) records = sortRecords(records, request.sort, wanted);
  if (request.skip > 0 || wanted !== Infinity) records = records.slice(request.skip, wanted);

  const stats: ExecutionStats = {
    plan,
    keysExamined: counters.keys,
    docsExamined: counters.docs,
    executionTimeMillis: Math.round(performance.now() - started),
  };
  return { records, stats };
}
