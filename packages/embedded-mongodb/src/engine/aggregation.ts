import type { Document } from 'bson';
import { Aggregator } from 'mingo/aggregator';
import * as pipelineOperators from 'mingo/operators/pipeline';
import { cloneDeep } from 'mingo/util';
import { CommandError } from '../errors';
import type { Catalog } from './catalog';
import { checkFilter, mingoOptions, type EvaluationOptions } from './mingo-options';
import { isPlainObject } from './path-values';
import { coveredGroupCount } from './covered-group';
import { assertNoTextQuery, countWithStats, runQuery, type ExecutionStats, type QueryRequest } from './query-executor';
import { assertTextMatchFirst, readingTextScore, usesTextScore, withTextScores } from './text/pipeline-score';
import { mentionsText } from './text/text-query';
import { parseSort } from './sort';

/** Stages that build new documents and never write into their input. */
const NON_MUTATING_STAGES = new Set([
  '$match',
  '$sort',
  '$skip',
  '$limit',
  '$count',
  '$group',
  '$sortByCount',
  '$sample',
  '$bucket',
  '$bucketAuto',
  '$replaceRoot',
  '$replaceWith',
  '$documents',
  // mingo runs every facet on copies of its input.
  '$facet',
]);

/**
 * MongoDB 7.0 stages mingo does not run: refused as not supported, where a stage MongoDB does
 * not know either is unrecognised. ($merge is refused with the pipeline, see the aggregate command.)
 */
const UNSUPPORTED_STAGES = new Set([
  '$changeStream',
  '$changeStreamSplitLargeEvent',
  '$collStats',
  '$currentOp',
  '$geoNear',
  '$indexStats',
  '$listLocalSessions',
  '$listSampledQueries',
  '$listSearchIndexes',
  '$listSessions',
  '$planCacheStats',
  '$search',
  '$searchMeta',
  '$shardedDataDistribution',
  '$vectorSearch',
]);

function stageName(stage: unknown): string {
  const keys = isPlainObject(stage) ? Object.keys(stage) : [];
  if (keys.length !== 1)
    throw new CommandError('BadValue', 'A pipeline stage specification object must contain exactly one field.');
  if (UNSUPPORTED_STAGES.has(keys[0]))
    throw new CommandError(
      'CommandNotSupported',
      `the pipeline stage '${keys[0]}' is not supported by the embedded store`,
    );
  if (!(keys[0] in pipelineOperators))
    throw new CommandError('UnrecognizedPipelineStage', `Unrecognized pipeline stage name: '${keys[0]}'`);
  return keys[0];
}

/**
 * The values of a command's `let`: each is an expression, evaluated once before the command
 * runs (`{$literal: '$x'}` is the string '$x', `{$rand: {}}` one number for every document).
 */
export function evaluateLetVariables(raw: Document): Document {
  const [values] = new Aggregator([{ $replaceWith: raw }], mingoOptions()).run<Document>([{}]);
  return values;
}

/**
 * Whether mingo might modify the documents it is given. Stored documents are shared, never
 * copied per query, so a pipeline that might write into them ($addFields, $unwind, nested
 * $project paths...) runs on copies instead.
 */
function mayMutate(pipeline: readonly Document[]): boolean {
  return pipeline.some((stage) => {
    const name = stageName(stage);
    const spec = stage[name] as unknown;
    if (NON_MUTATING_STAGES.has(name)) return false;
    if (name === '$project' || name === '$unset') {
      const paths = Array.isArray(spec) ? spec : typeof spec === 'string' ? [spec] : Object.keys(spec as Document);
      return paths.some((path) => String(path).includes('.'));
    }
    if (name === '$lookup' || name === '$unionWith') {
      const nested = isPlainObject(spec) ? spec.pipeline : undefined;
      return Array.isArray(nested) && mayMutate(nested as Document[]);
    }
    return true;
  });
}

/**
 * The leading $match / $sort / $skip / $limit of a pipeline, which the query engine answers
 * with its indexes, and the stages left for mingo.
 */
export function splitPipeline(pipeline: readonly Document[]): { query: QueryRequest; rest: Document[] } {
  let i = 0;
  const next = (name: string): unknown =>
    pipeline[i] && stageName(pipeline[i]) === name ? pipeline[i++][name] : undefined;
  const filter = next('$match');
  if (filter !== undefined && !isPlainObject(filter))
    throw new CommandError('BadValue', 'the match filter must be an expression in an object');
  const sort = parseSort(next('$sort'));
  const skip = next('$skip');
  const limit = next('$limit');
  if ((skip !== undefined && typeof skip !== 'number') || (limit !== undefined && typeof limit !== 'number')) {
    throw new CommandError('BadValue', '$skip and $limit take a non-negative number');
  }
  return {
    query: { filter: filter ?? {}, sort, skip: skip ?? 0, limit: limit ?? 0 },
    rest: pipeline.slice(i),
  };
}

/** `{_id: <constant>, <field>: {$sum: 1}, ...}`: the driver's countDocuments ends with one. */
function isCountingGroup(spec: unknown): spec is Document {
  if (!isPlainObject(spec) || !('_id' in spec)) return false;
  const id = spec._id;
  const constantId = id === null || typeof id === 'number' || (typeof id === 'string' && !id.startsWith('$'));
  return (
    constantId &&
    Object.entries(spec).every(
      ([key, value]) => key === '_id' || (isPlainObject(value) && Object.keys(value).length === 1 && value.$sum === 1),
    )
  );
}

/**
 * A pipeline ending in a lone `$count` or counting `$group` (countDocuments) is answered from
 * the number of matches, without handing every matched document to mingo only to count it.
 */
function isCountingStage(stages: readonly Document[]): boolean {
  return stages.length === 1 && (typeof stages[0].$count === 'string' || isCountingGroup(stages[0].$group));
}

function countedResult(stage: Document, count: number): Document[] {
  if (count === 0) return [];
  if (typeof stage.$count === 'string') return [{ [stage.$count]: count }];
  const group = stage.$group as Document;
  return [Object.fromEntries(Object.keys(group).map((key) => [key, key === '_id' ? group._id : count]))];
}

export interface AggregationResult {
  readonly docs: Document[];
  /** How the leading stages were answered (explain). */
  readonly stats?: ExecutionStats;
}

/** Runs a pipeline over a collection (or over nothing, for `aggregate: 1` with $documents). */
export function runAggregation(
  catalog: Catalog,
  source: { db: string; collection?: string },
  pipeline: readonly Document[],
  options: EvaluationOptions = {},
  /** explain wants execution stats, which only a real run of the leading stages produces. */
  explaining = false,
): AggregationResult {
  assertTextMatchFirst(pipeline);
  const split = splitPipeline(pipeline);
  const { query } = split;
  let { rest } = split;
  const collection = source.collection === undefined ? undefined : catalog.getCollection(source.db, source.collection);
  const scoreLater = usesTextScore(rest);
  const text = mentionsText(query.filter);
  if (!collection && source.collection !== undefined)
    assertNoTextQuery(`${source.db}.${source.collection}`, { ...query, projectsScore: scoreLater });
  if (!collection) checkFilter(query.filter, options);
  if (isCountingStage(rest)) {
    const counted = collection ? countWithStats(collection, { ...query, ...options }) : undefined;
    return { docs: countedResult(rest[0], counted?.n ?? 0), stats: counted?.stats };
  }
  const covered =
    collection && !explaining && !text ? coveredGroupCount(collection, { ...query, ...options }, rest) : undefined;
  if (covered) return { docs: covered };
  const result = collection ? runQuery(collection, { ...query, ...options, projectsScore: scoreLater }) : undefined;
  // mingo's expressions compute on JavaScript numbers: stages see ints and doubles by value.
  let docs = result ? result.records.map((record) => record.plainDoc) : [];
  if (rest.length === 0) return { docs, stats: result?.stats };
  if (scoreLater && result) {
    docs = withTextScores(
      docs,
      result.records.map((record) => result.textScores?.get(record)),
    );
    rest = readingTextScore(rest);
  }

  const copy = mayMutate(rest);
  if (copy) docs = docs.map((doc) => cloneDeep(doc));
  const aggregator = new Aggregator(rest, {
    ...mingoOptions(options),
    collectionResolver: (name: string) => {
      const foreign = catalog.getCollection(source.db, name);
      const stored = foreign ? [...foreign.naturalOrder()].map((record) => record.plainDoc) : [];
      return copy ? stored.map((doc) => cloneDeep(doc)) : stored;
    },
  });
  return { docs: aggregator.run<Document>(docs), stats: result?.stats };
}
