import type { Document } from 'bson';
import { CommandError } from '../errors';
import type { Collection } from '../engine/collection';
import { checkStorageEngineOptions } from './storage-engine-options';
import { compileFilter } from '../engine/query-executor';
import { assertSimpleCollation, collectionArgument, optionalDocument } from './arguments';
import type { CommandHandler } from './context';
import { cursorBatchSize, firstBatchReply } from './cursor-replies';

/** Command fields that are not collection options (generic arguments every command may carry). */
const GENERIC_ARGUMENTS = new Set([
  'create',
  '$db',
  'lsid',
  'txnNumber',
  '$readPreference',
  '$clusterTime',
  'writeConcern',
  'comment',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  'maxTimeMS',
]);

/**
 * Collection options the store does not honour; refused rather than stored and ignored (a
 * validator that validates nothing, a view read as an empty collection, a collation not applied).
 */
const UNSUPPORTED_OPTIONS = [
  'viewOn',
  'pipeline',
  'timeseries',
  'clusteredIndex',
  'encryptedFields',
  'capped',
  'validator',
  'validationLevel',
  'validationAction',
  'changeStreamPreAndPostImages',
  'expireAfterSeconds',
];

function describeCollection(collection: Collection): Document {
  return {
    name: collection.name,
    type: 'collection',
    options: collection.options,
    info: { readOnly: false, uuid: collection.uuid },
    idIndex: { v: 2, key: { _id: 1 }, name: '_id_' },
  };
}

const listCollections: CommandHandler = (command, context) => {
  const { catalog } = context.runtime;
  const matches = compileFilter(optionalDocument(command, 'filter') ?? {});
  const described = catalog.collections(context.db).map(describeCollection).filter(matches);
  const docs = command.nameOnly === true ? described.map(({ name, type }) => ({ name, type })) : described;
  return firstBatchReply(context, `${context.db}.$cmd.listCollections`, docs, { batchSize: cursorBatchSize(command) });
};

const create: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'create');
  const unsupported = UNSUPPORTED_OPTIONS.find((option) => option in command);
  if (unsupported)
    throw new CommandError(
      'CommandNotSupported',
      `the embedded store does not support the collection option '${unsupported}'`,
    );
  assertSimpleCollation(command);
  checkStorageEngineOptions(command.storageEngine);
  const options: Document = {};
  for (const [key, value] of Object.entries(command)) if (!GENERIC_ARGUMENTS.has(key)) options[key] = value;
  runtime.catalog.createCollection(db, name, options);
  return { ok: 1 };
};

/** collMod changes validators, views and index options, none of which the store has. */
const collMod: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'collMod');
  if (!runtime.catalog.getCollection(db, name))
    throw new CommandError('NamespaceNotFound', `ns does not exist: ${db}.${name}`);
  const changes = Object.keys(command).filter((key) => key !== 'collMod' && !GENERIC_ARGUMENTS.has(key));
  if (changes.length === 0) return { ok: 1 };
  throw new CommandError(
    'CommandNotSupported',
    `the embedded store does not support collMod of ${changes.map((key) => `'${key}'`).join(', ')}`,
  );
};

const drop: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'drop');
  const collection = runtime.catalog.getCollection(db, name);
  // Since 7.0, dropping a collection that does not exist succeeds.
  if (!collection) return { ok: 1 };
  runtime.catalog.dropCollection(db, name);
  return { nIndexesWas: collection.indexList().length, ns: collection.namespace, ok: 1 };
};

const collStats: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'collStats');
  const collection = runtime.catalog.getCollection(db, name);
  if (!collection) throw new CommandError('NamespaceNotFound', `Collection [${db}.${name}] not found.`);
  const indexSizes: Document = {};
  for (const index of collection.indexList()) indexSizes[index.name] = 0;
  return {
    ns: collection.namespace,
    count: collection.count,
    size: collection.dataSize,
    avgObjSize: collection.count > 0 ? Math.round(collection.dataSize / collection.count) : 0,
    storageSize: collection.dataSize,
    nindexes: collection.indexList().length,
    totalIndexSize: 0,
    indexSizes,
    ok: 1,
  };
};

export const collectionCommands: Record<string, CommandHandler> = { listCollections, create, collMod, drop, collStats };
