import type { Document } from 'bson';
import type { Collection } from '../engine/collection';
import { compileFilter } from '../engine/query-executor';
import { optionalDocument } from './arguments';
import type { CommandHandler } from './context';

export function storageSize(collections: readonly Collection[]): number {
  return collections.reduce((sum, collection) => sum + collection.dataSize, 0);
}

const listDatabases: CommandHandler = (command, { runtime }) => {
  const { catalog } = runtime;
  const all = catalog
    .databaseNames()
    .map((name) => ({ name, sizeOnDisk: storageSize(catalog.collections(name)), empty: false }));
  const matches = compileFilter(optionalDocument(command, 'filter') ?? {});
  const databases = all.filter(matches);
  const totalSize = databases.reduce((sum, db) => sum + db.sizeOnDisk, 0);
  if (command.nameOnly === true) return { databases: databases.map(({ name }) => ({ name })), ok: 1 };
  return { databases, totalSize, totalSizeMb: Math.round(totalSize / (1024 * 1024)), ok: 1 };
};

const dropDatabase: CommandHandler = (_command, { runtime, db }) => {
  runtime.catalog.dropDatabase(db);
  return { dropped: db, ok: 1 };
};

const dbStats: CommandHandler = (_command, { runtime, db }) => {
  const collections = runtime.catalog.collections(db);
  const objects = collections.reduce((sum, c) => sum + c.count, 0);
  const dataSize = storageSize(collections);
  const indexes = collections.reduce((sum, c) => sum + c.indexList().length, 0);
  const stats: Document = {
    db,
    collections: collections.length,
    views: 0,
    objects,
    avgObjSize: objects > 0 ? dataSize / objects : 0,
    dataSize,
    storageSize: dataSize,
    indexes,
    indexSize: 0,
    totalSize: dataSize,
    scaleFactor: 1,
    ok: 1,
  };
  return stats;
};

export const databaseCommands: Record<string, CommandHandler> = { listDatabases, dropDatabase, dbStats };
