import type { Document } from 'bson';
import { compileBsonProjection } from '../engine/projection';
import { checkFilter } from '../engine/mingo-options';
import { assertNoTextQuery, runQuery, type QueryRequest } from '../engine/query-executor';
import { compileScoreProjection, projectsTextScore } from '../engine/text/score-projection';
import { parseSort } from '../engine/sort';
import {
  collectionArgument,
  evaluationOptions,
  nonNegativeInteger,
  optionalDocument,
  optionalInteger,
} from './arguments';
import type { CommandHandler } from './context';
import { batchSizeValue, firstBatchReply } from './cursor-replies';

export interface FindArguments {
  readonly collection: string;
  readonly query: QueryRequest;
  readonly projection?: Document;
  readonly batchSize?: number;
  readonly singleBatch: boolean;
}

/** Reads a find command; explain reuses it. */
export function parseFind(command: Document): FindArguments {
  const limit = optionalInteger(command, 'limit') ?? 0;
  const options = evaluationOptions(command);
  return {
    collection: collectionArgument(command, 'find'),
    query: {
      filter: optionalDocument(command, 'filter') ?? {},
      sort: parseSort(command.sort),
      skip: nonNegativeInteger(command, 'skip'),
      // A negative limit is the legacy way of asking for a single batch.
      limit: Math.abs(limit),
      hint: command.hint,
      projectsScore: projectsTextScore(command.projection),
      ...options,
    },
    projection: optionalDocument(command, 'projection'),
    batchSize: batchSizeValue(optionalInteger(command, 'batchSize')),
    singleBatch: command.singleBatch === true || limit < 0,
  };
}

const find: CommandHandler = (command, context) => {
  const args = parseFind(command);
  const namespace = `${context.db}.${args.collection}`;
  const collection = context.runtime.catalog.getCollection(context.db, args.collection);
  if (!collection) {
    assertNoTextQuery(namespace, args.query);
    checkFilter(args.query.filter, args.query);
  }
  const options = { batchSize: args.batchSize, singleBatch: args.singleBatch };
  if (args.query.projectsScore) {
    const result = collection ? runQuery(collection, args.query) : undefined;
    const scored = (result?.records ?? []).map((record) => ({
      bson: record.bson,
      score: result?.textScores?.get(record),
    }));
    const encode = compileScoreProjection(args.projection!, args.query.filter, args.query);
    return firstBatchReply(context, namespace, scored, { ...options, encode });
  }
  // The bytes as matched: a later update gives a record new bytes, never changes these.
  const stored = collection ? runQuery(collection, args.query).records.map((record) => record.bson) : [];
  return firstBatchReply(context, namespace, stored, {
    ...options,
    encode: compileBsonProjection(args.projection, args.query.filter, args.query),
  });
};

export const findCommands: Record<string, CommandHandler> = { find };
