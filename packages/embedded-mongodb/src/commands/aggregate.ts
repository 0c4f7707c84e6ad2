import type { Document } from 'bson';
import { CommandError } from '../errors';
import { runAggregation, splitPipeline } from '../engine/aggregation';
import { replaceCollectionContents } from '../engine/write-operations';
import { collectionArgument, evaluationOptions, requiredArray } from './arguments';
import type { CommandContext, CommandHandler } from './context';
import { cursorBatchSize, firstBatchReply } from './cursor-replies';
import { explainReply, MISSING_COLLECTION_STATS } from './explain-plan';

/** Where a final $out stage writes: a collection name, or {db, coll}. */
function outTarget(spec: unknown, db: string): { db: string; collection: string } {
  if (typeof spec === 'string') return { db, collection: spec };
  if (spec !== null && typeof spec === 'object' && typeof (spec as Document).coll === 'string') {
    const target = spec as Document;
    return { db: typeof target.db === 'string' ? target.db : db, collection: target.coll as string };
  }
  throw new CommandError('BadValue', '$out takes a collection name or {db, coll}');
}

interface PipelineArguments {
  readonly collection?: string;
  readonly stages: Document[];
  readonly out?: { db: string; collection: string };
}

function parsePipeline(command: Document, db: string): PipelineArguments {
  // `aggregate: 1` runs a collectionless pipeline (starting with $documents).
  const collection = command.aggregate === 1 ? undefined : collectionArgument(command, 'aggregate');
  const pipeline = requiredArray(command, 'pipeline') as Document[];
  if (pipeline.some((stage) => stage !== null && typeof stage === 'object' && '$merge' in stage)) {
    throw new CommandError('CommandNotSupported', '$merge is not supported by the embedded store; use $out');
  }
  const outAt = pipeline.findIndex((stage) => stage !== null && typeof stage === 'object' && '$out' in stage);
  if (outAt >= 0 && outAt !== pipeline.length - 1)
    throw new CommandError('BadValue', '$out can only be the final stage in the pipeline');
  if (outAt < 0) return { collection, stages: pipeline };
  // As mongod: a write stage cannot honour a linearizable read (it is not a read of one primary's majority).
  if ((command.readConcern as Document | undefined)?.level === 'linearizable') {
    throw new CommandError('InvalidOptions', "$out cannot be used with a 'linearizable' read concern level");
  }
  return { collection, stages: pipeline.slice(0, -1), out: outTarget(pipeline[outAt].$out, db) };
}

/** explain of an aggregate: how its leading stages were answered, then the remaining stages. */
export function explainAggregate(command: Document, context: CommandContext, verbosity: unknown): Document {
  const args = parsePipeline(command, context.db);
  const options = evaluationOptions(command);
  const { query, rest } = splitPipeline(args.stages);
  const { docs, stats } = runAggregation(
    context.runtime.catalog,
    { db: context.db, collection: args.collection },
    args.stages,
    options,
    true,
  );
  const namespace = `${context.db}.${args.collection ?? '$cmd.aggregate'}`;
  const extra = rest.length > 0 ? { stages: rest } : {};
  return explainReply(
    namespace,
    command,
    verbosity,
    { ...query, ...options },
    stats ?? MISSING_COLLECTION_STATS,
    docs.length,
    extra,
  );
}

const aggregate: CommandHandler = (command, context) => {
  if (command.explain === true) return explainAggregate(command, context, 'queryPlanner');
  if (command.cursor === undefined) {
    throw new CommandError(
      'FailedToParse',
      "The 'cursor' option is required, except for aggregate with the explain argument",
    );
  }
  const args = parsePipeline(command, context.db);
  const { catalog } = context.runtime;
  const { docs } = runAggregation(
    catalog,
    { db: context.db, collection: args.collection },
    args.stages,
    evaluationOptions(command),
  );
  if (args.out) replaceCollectionContents(catalog, args.out, docs);
  const namespace = `${context.db}.${args.collection ?? '$cmd.aggregate'}`;
  return firstBatchReply(context, namespace, args.out ? [] : docs, { batchSize: cursorBatchSize(command) });
};

export const aggregateCommands: Record<string, CommandHandler> = { aggregate };
