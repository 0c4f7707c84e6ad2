import type { Document } from 'bson';
import { CommandError } from '../errors';
import { checkFilter } from '../engine/mingo-options';
import type { QueryRequest } from '../engine/query-executor';
import { countWithStats, runQuery } from '../engine/query-executor';
import { parseSort } from '../engine/sort';
import { explainAggregate } from './aggregate';
import {
  collectionArgument,
  evaluationOptions,
  nonNegativeInteger,
  optionalDocument,
  optionalFlag,
  optionalInteger,
} from './arguments';
import type { CommandContext, CommandHandler } from './context';
import { explainReply, MISSING_COLLECTION_STATS } from './explain-plan';
import { parseFind } from './find';

/** What an explained command reads: its collection and query. */
interface ExplainedRead {
  readonly collection: string;
  readonly request: QueryRequest;
  /** Only the number of matches is wanted (a count). */
  readonly counts?: boolean;
}

function firstStatement(command: Document, field: string): Document {
  const statements = command[field] as unknown;
  const first = Array.isArray(statements) ? (statements[0] as unknown) : undefined;
  if (first === null || typeof first !== 'object')
    throw new CommandError('BadValue', `explain of ${field} needs one statement`);
  return first;
}

/**
 * The read part of each explainable command. Writes are explained by the query that selects
 * their documents; nothing is written.
 */
const READS: Record<string, (command: Document) => ExplainedRead> = {
  find: (command) => {
    const { collection, query } = parseFind(command);
    return { collection, request: query };
  },
  count: (command) => ({
    collection: collectionArgument(command, 'count'),
    counts: true,
    request: {
      filter: optionalDocument(command, 'query') ?? {},
      skip: nonNegativeInteger(command, 'skip'),
      limit: Math.abs(optionalInteger(command, 'limit') ?? 0),
      hint: command.hint,
      ...evaluationOptions(command),
    },
  }),
  distinct: (command) => ({
    collection: collectionArgument(command, 'distinct'),
    request: {
      filter: optionalDocument(command, 'query') ?? {},
      skip: 0,
      limit: 0,
      hint: command.hint,
      ...evaluationOptions(command),
    },
  }),
  update: (command) => {
    const statement = firstStatement(command, 'updates');
    return {
      collection: collectionArgument(command, 'update'),
      request: {
        filter: optionalDocument(statement, 'q') ?? {},
        skip: 0,
        limit: optionalFlag(statement, 'multi', 'update.updates.multi') ? 0 : 1,
        hint: statement.hint,
      },
    };
  },
  delete: (command) => {
    const statement = firstStatement(command, 'deletes');
    return {
      collection: collectionArgument(command, 'delete'),
      request: {
        filter: optionalDocument(statement, 'q') ?? {},
        skip: 0,
        limit: statement.limit === 1 ? 1 : 0,
        hint: statement.hint,
      },
    };
  },
  findAndModify: (command) => ({
    collection: collectionArgument(command, 'findAndModify'),
    request: {
      filter: optionalDocument(command, 'query') ?? {},
      sort: parseSort(command.sort),
      skip: 0,
      limit: 1,
      hint: command.hint,
    },
  }),
};

function explainRead(inner: Document, context: CommandContext, verbosity: unknown, read: ExplainedRead): Document {
  const namespace = `${context.db}.${read.collection}`;
  const collection = context.runtime.catalog.getCollection(context.db, read.collection);
  if (!collection) checkFilter(read.request.filter, read.request);
  if (read.counts) {
    // A count returns no documents (its COUNT stage's nReturned is 0 on MongoDB too).
    const counted = collection ? countWithStats(collection, read.request) : undefined;
    return explainReply(namespace, inner, verbosity, read.request, counted?.stats ?? MISSING_COLLECTION_STATS, 0);
  }
  const result = collection ? runQuery(collection, read.request) : undefined;
  return explainReply(
    namespace,
    inner,
    verbosity,
    read.request,
    result?.stats ?? MISSING_COLLECTION_STATS,
    result?.records.length ?? 0,
  );
}

const explain: CommandHandler = (command, context) => {
  const inner = optionalDocument(command, 'explain');
  if (!inner) throw new CommandError('FailedToParse', 'explain takes the command to explain as an object');
  const verbosity = command.verbosity ?? 'allPlansExecution';
  const name = Object.keys(inner)[0];
  if (name === 'aggregate') return explainAggregate(inner, context, verbosity);
  const read = READS[name];
  if (!read) throw new CommandError('CommandNotFound', `Explain failed due to unknown command: ${name}`);
  return explainRead(inner, context, verbosity, read(inner));
};

export const explainCommands: Record<string, CommandHandler> = { explain };
