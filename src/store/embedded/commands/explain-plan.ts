import type { Document } from 'bson';
import type { ExecutionStats, QueryRequest } from '../engine/query-executor';
import type { QueryPlan } from '../engine/query-planner';
import type { KeyRange } from '../engine/sorted-index';
import { TypeEdge } from '../engine/value-order';
import { SERVER_VERSION } from './handshake';

/** Stats of a query on a collection that does not exist: nothing read. */
export const MISSING_COLLECTION_STATS: ExecutionStats = Object.freeze({
  plan: { kind: 'collscan', estimate: 0 } as const,
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

/** MongoDB-style indexBounds: per field, the intervals scanned. */
function indexBounds(plan: Extract<QueryPlan, { kind: 'ixscan' }>): Document {
  const bounds: Document = {};
  plan.index.spec.fields.forEach((field, i) => {
    const intervals = plan.ranges.map((range: KeyRange) => {
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

/**
 * The winning plan as MongoDB describes it: COLLSCAN, or FETCH over IXSCAN (over SORT_MERGE of
 * the index's ranges when they are merged in sort order); SORT on top for in-memory sorts.
 */
export function describePlan(plan: QueryPlan, request: QueryRequest): Document {
  const sortPattern: Document = {};
  for (const field of request.sort ?? []) sortPattern[field.path] = field.direction;
  const ixscan = (inner: Document): Document =>
    plan.kind === 'ixscan' && plan.mergeFrom !== undefined ? { stage: 'SORT_MERGE', sortPattern, inputStages: [inner] } : inner;
  const scan: Document =
    plan.kind === 'collscan'
      ? { stage: 'COLLSCAN', filter: request.filter, direction: 'forward' }
      : {
          stage: 'FETCH',
          filter: request.filter,
          inputStage: ixscan({
            stage: 'IXSCAN',
            keyPattern: plan.index.spec.key,
            indexName: plan.index.name,
            isMultiKey: plan.index.multikey,
            isUnique: plan.index.spec.unique,
            isSparse: plan.index.spec.sparse,
            isPartial: plan.index.spec.partialFilterExpression !== undefined,
            direction: plan.reverse ? 'backward' : 'forward',
            indexBounds: indexBounds(plan),
          }),
        };
  const sortedInMemory = request.sort && !(plan.kind === 'ixscan' && plan.providesSort);
  if (!sortedInMemory) return scan;
  return { stage: 'SORT', sortPattern, ...(request.limit > 0 ? { limitAmount: request.skip + request.limit } : {}), inputStage: scan };
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
  const winningPlan = describePlan(stats.plan, request);
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
      executionStages: { ...winningPlan, nReturned, docsExamined: stats.docsExamined, keysExamined: stats.keysExamined },
    };
  }
  return { ...reply, ...extra, command, serverInfo: { host: '127.0.0.1', version: SERVER_VERSION, gitVersion: 'embedded' }, ok: 1 };
}
