import type { Document } from 'bson';
import { CommandError } from '../errors';
import { defaultIndexName, describeIndex, ID_INDEX_NAME, parseIndexSpec } from '../engine/index-spec';
import { assertSimpleCollation, collectionArgument, requiredArray } from './arguments';
import type { CommandHandler } from './context';
import { cursorBatchSize, firstBatchReply } from './cursor-replies';

const createIndexes: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'createIndexes');
  const specs = requiredArray(command, 'indexes').map(parseIndexSpec);
  // Index keys compare strings binarily: a collated (say case-insensitive) unique index would
  // let in what MongoDB refuses.
  for (const spec of specs) assertSimpleCollation(spec.options);
  if (specs.length === 0) throw new CommandError('BadValue', 'Must specify at least one index to create');
  const existed = runtime.catalog.getCollection(db, name) !== undefined;
  const collection = runtime.catalog.ensureCollection(db, name);
  const before = collection.indexList().length;
  // One pass over the documents for all of them, as MongoDB builds the indexes of one command
  // together: each document is read once, and all or none of the indexes are created.
  const created = collection.createIndexes(specs);
  const reply: Document = {
    numIndexesBefore: before,
    numIndexesAfter: collection.indexList().length,
    createdCollectionAutomatically: !existed,
    ok: 1,
  };
  if (created === 0) reply.note = 'all indexes already exist';
  return reply;
};

const listIndexes: CommandHandler = (command, context) => {
  const name = collectionArgument(command, 'listIndexes');
  const collection = context.runtime.catalog.getCollection(context.db, name);
  if (!collection) throw new CommandError('NamespaceNotFound', `ns does not exist: ${context.db}.${name}`);
  const docs = collection.indexList().map((index) => describeIndex(index.spec));
  return firstBatchReply(context, `${context.db}.${name}`, docs, { batchSize: cursorBatchSize(command) });
};

/** The index names a dropIndexes `index` argument designates ('*', a name, names, or a key pattern). */
function indexNamesToDrop(argument: unknown, existing: readonly { name: string; key: Document }[]): string[] {
  if (argument === '*') return existing.map((index) => index.name).filter((name) => name !== ID_INDEX_NAME);
  if (typeof argument === 'string') return [argument];
  if (Array.isArray(argument) && argument.every((item) => typeof item === 'string')) return argument;
  if (argument !== null && typeof argument === 'object' && !Array.isArray(argument)) {
    const pattern = defaultIndexName(argument);
    const match = existing.find((index) => defaultIndexName(index.key) === pattern);
    if (!match) throw new CommandError('IndexNotFound', `can't find index with key: ${JSON.stringify(argument)}`);
    return [match.name];
  }
  throw new CommandError('TypeMismatch', "dropIndexes 'index' must be a string, an array of strings or an object");
}

const dropIndexes: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, Object.keys(command)[0]);
  const collection = runtime.catalog.getCollection(db, name);
  if (!collection) throw new CommandError('NamespaceNotFound', `ns not found ${db}.${name}`);
  const nIndexesWas = collection.indexList().length;
  const names = indexNamesToDrop(
    command.index,
    collection.indexList().map((index) => ({ name: index.name, key: index.spec.key })),
  );
  for (const indexName of names) {
    if (indexName === ID_INDEX_NAME) throw new CommandError('InvalidOptions', 'cannot drop _id index');
    if (!collection.getIndex(indexName))
      throw new CommandError('IndexNotFound', `index not found with name [${indexName}]`);
  }
  for (const indexName of names) collection.dropIndex(indexName);
  return { nIndexesWas, ok: 1 };
};

export const indexCommands: Record<string, CommandHandler> = {
  createIndexes,
  listIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes,
};
