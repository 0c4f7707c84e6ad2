import type { Document } from 'bson';
import type { ExecutionStats, QueryRequest } from '../engine/query-executor';
import type { QueryPlan } from '../engine/query-planner';
import type { KeyRange } from '../engine/sorted-index';
import { describeTextPlan } from '../engine/text/text-explain';
import { TypeEdge } from '../engine/value-order';
import { SERVER_VERSION } from './handshake';

/** Stats of a query on a collection that does not exist: nothing read. */
export const MISSING_COLLECTION_STATS: ExecutionStats = Object.freeze({
  plan: { kind: 'collscan', estimate: 0 } as const,
  mode: 'find',
  skippedOnKeys: false,
  keysExamined: 0,
  docsExamined: 0,
  executionTimeMillis: 0,
});

function formatBound(value: unknown): string {
  if (value instanceof TypeEdge) return value.edge < 0 ? '-inf' : 'inf';
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

type IndexScanPlan = Extract<QueryPlan, { kind: 'ixscan' }>;

/** MongoDB-style indexBounds of some ranges: per field, the intervals scanned. */
function indexBounds(plan: IndexScanPlan, ranges: readonly KeyRange[]): Document {
  const bounds: Document = {};
  plan.index.spec.fields.forEach((field, i) => {
    const intervals = ranges.map((range: KeyRange) => {
      if (i >= range.start.length || i >= range.end.length) return '[MinKey, MaxKey]';
      const last = i === range.start.length - 1;
      const open = last && !range.startInclusive ? '(' : '[';
      const close = last && !range.endInclusive ? ')' : ']';
      return `${open}${formatBound(range.start[i])}, ${formatBound(range.end[i])}${close}`;
    });
    bounds[field.path] = [...new Set(intervals)];
  });
  return bounds;
}

function ixscanStage(plan: IndexScanPlan, ranges: readonly KeyRange[]): Document {
  return {
    stage: 'IXSCAN',
    keyPattern: plan.index.spec.key,
    indexName: plan.index.name,
    isMultiKey: plan.index.multikey,
    isUnique: plan.index.spec.unique,
    isSparse: plan.index.spec.sparse,
    isPartial: plan.index.spec.partialFilterExpression !== undefined,
    direction: plan.reverse ? 'backward' : 'forward',
    indexBounds: indexBounds(plan, ranges),
  };
}

/**
 * The index walk: one IXSCAN over all ranges, or, when the ranges are merged in sort order,
 * SORT_MERGE over one IXSCAN per range (MongoDB's plan for point intervals exploded for a sort).
 */
function indexWalk(plan: IndexScanPlan, sortPattern: Document): Document {
  if (plan.mergeFrom === undefined) return ixscanStage(plan, plan.ranges);
  return { stage: 'SORT_MERGE', sortPattern, inputStages: plan.ranges.map((range) => ixscanStage(plan, [range])) };
}

/**
 * The plan of a count: from the collection's size (RECORD_STORE_FAST_COUNT), from index keys
 * alone (COUNT_SCAN over one range counted without its documents, IXSCAN otherwise), or from the
 * documents (FETCH with the filter, or COLLSCAN).
 */
function describeCount(stats: ExecutionStats, request: QueryRequest): Document {
  const { plan } = stats;
  if (plan.kind === 'text') return describeTextPlan(plan, request, 'count');
  if (plan.kind === 'collscan') {
    if (Object.keys(request.filter).length === 0) return { stage: 'RECORD_STORE_FAST_COUNT' };
    return { stage: 'COUNT', inputStage: { stage: 'COLLSCAN', filter: request.filter, direction: 'forward' } };
  }
  if (!plan.exact)
    return {
      stage: 'COUNT',
      inputStage: { stage: 'FETCH', filter: request.filter, inputStage: ixscanStage(plan, plan.ranges) },
    };
  if (plan.ranges.length === 1 && !plan.index.multikey) {
    return { stage: 'COUNT', inputStage: { ...ixscanStage(plan, plan.ranges), stage: 'COUNT_SCAN' } };
  }
  return { stage: 'COUNT', inputStage: ixscanStage(plan, plan.ranges) };
}

/**
 * The winning plan as MongoDB describes it, stages from the top: LIMIT, SKIP, SORT (in memory),
 * FETCH (with the filter when the bounds do not say everything), then COLLSCAN or the index
 * walk. When the skip was done on index keys, SKIP sits under FETCH, as MongoDB places it when
 * the fetch has no filter to apply. A count is described by describeCount.
 */
export function describePlan(stats: ExecutionStats, request: QueryRequest): Document {
  if (stats.mode === 'count') return describeCount(stats, request);
  const { plan } = stats;
  if (plan.kind === 'text') return describeTextPlan(plan, request, 'find');
  const sortPattern: Document = {};
  for (const field of request.sort ?? []) sortPattern[field.path] = field.direction;
  const skip = (inner: Document): Document =>
    request.skip > 0 ? { stage: 'SKIP', skipAmount: request.skip, inputStage: inner } : inner;
  let stage: Document;
  if (plan.kind === 'collscan') {
    stage = { stage: 'COLLSCAN', filter: request.filter, direction: 'forward' };
  } else if (stats.skippedOnKeys) {
    stage = { stage: 'FETCH', inputStage: skip(indexWalk(plan, sortPattern)) };
  } else {
    stage = {
      stage: 'FETCH',
      ...(plan.exact ? {} : { filter: request.filter }),
      inputStage: indexWalk(plan, sortPattern),
    };
  }
  const sortedInMemory = request.sort && !(plan.kind === 'ixscan' && plan.providesSort);
  if (sortedInMemory)
    stage = {
      stage: 'SORT',
      sortPattern,
      ...(request.limit > 0 ? { limitAmount: request.skip + request.limit } : {}),
      inputStage: stage,
    };
  if (!stats.skippedOnKeys) stage = skip(stage);
  return request.limit > 0 ? { stage: 'LIMIT', limitAmount: request.limit, inputStage: stage } : stage;
}

export function explainReply(
  namespace: string,
  command: Document,
  verbosity: unknown,
  request: QueryRequest,
  stats: ExecutionStats,
  nReturned: number,
  extra: Document = {},
): Document {
  const winningPlan = describePlan(stats, request);
  const reply: Document = {
    explainVersion: '1',
    queryPlanner: {
      namespace,
      indexFilterSet: false,
      parsedQuery: request.filter,
      winningPlan,
      rejectedPlans: [],
    },
  };
  if (verbosity !== 'queryPlanner') {
    reply.executionStats = {
      executionSuccess: true,
      nReturned,
      executionTimeMillis: stats.executionTimeMillis,
      totalKeysExamined: stats.keysExamined,
      totalDocsExamined: stats.docsExamined,
      executionStages: {
        ...winningPlan,
        nReturned,
        docsExamined: stats.docsExamined,
        keysExamined: stats.keysExamined,
      },
    };
  }
  return {
    ...reply,
    ...extra,
    command,
    serverInfo: { host: '127.0.0.1', version: SERVER_VERSION, gitVersion: 'embedded' },
    ok: 1,
  };
}
