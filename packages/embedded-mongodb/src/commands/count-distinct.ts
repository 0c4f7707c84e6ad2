import type { Document } from 'bson';
import { CommandError } from '../errors';
import { valuesAtPath } from '../engine/path-values';
import { checkFilter } from '../engine/mingo-options';
import { assertNoTextQuery, countMatches, runQuery } from '../engine/query-executor';
import { compareValues } from '../engine/value-order';
import {
  collectionArgument,
  evaluationOptions,
  nonNegativeInteger,
  optionalDocument,
  optionalInteger,
} from './arguments';
import type { CommandHandler } from './context';

const count: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'count');
  const collection = runtime.catalog.getCollection(db, name);
  const filter = optionalDocument(command, 'query') ?? {};
  if (!collection) {
    assertNoTextQuery(`${db}.${name}`, { filter, skip: 0, limit: 0 });
    checkFilter(filter, evaluationOptions(command));
    return { n: 0, ok: 1 };
  }
  const skip = nonNegativeInteger(command, 'skip');
  const limit = Math.abs(optionalInteger(command, 'limit') ?? 0);
  return {
    n: countMatches(collection, { filter, skip, limit, hint: command.hint, ...evaluationOptions(command) }),
    ok: 1,
  };
};

/** Values of a path across documents, arrays contributing their elements, without repeats. */
function distinctValues(docs: readonly Document[], path: string): unknown[] {
  const parts = path.split('.');
  const all: unknown[] = [];
  for (const doc of docs) {
    const { values } = valuesAtPath(doc, parts, false);
    for (const value of values) all.push(value);
  }
  all.sort(compareValues);
  return all.filter((value, i) => i === 0 || compareValues(value, all[i - 1]) !== 0);
}

const distinct: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'distinct');
  const key = command.key as unknown;
  if (typeof key !== 'string' || key.length === 0)
    throw new CommandError('TypeMismatch', "distinct 'key' must be a non-empty string");
  const collection = runtime.catalog.getCollection(db, name);
  const filter = optionalDocument(command, 'query') ?? {};
  if (!collection) {
    checkFilter(filter, evaluationOptions(command));
    return { values: [], ok: 1 };
  }
  const { records } = runQuery(collection, {
    filter,
    skip: 0,
    limit: 0,
    hint: command.hint,
    ...evaluationOptions(command),
  });
  return {
    values: distinctValues(
      records.map((record) => record.doc),
      key,
    ),
    ok: 1,
  };
};

export const countDistinctCommands: Record<string, CommandHandler> = { count, distinct };
