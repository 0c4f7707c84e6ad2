import fs from 'node:fs';
import path from 'node:path';
import type { Document } from 'bson';
import { isSecureDelete } from '../engine/catalog';
import { CommandError } from '../errors';
import type { StoreRuntime } from '../runtime';
import { collectionArgument } from './arguments';
import type { CommandHandler } from './context';

/** What a backup holds of one collection, counted at its snapshot (the manifest's `collections`). */
export interface BackedUpCollection {
  db: string;
  name: string;
  documents: number;
  indexes: { name: string; entries: number }[];
}

/**
 * compact: as on mongod, rewrites a collection's storage without its free space. Here a
 * collection's storage is a whole file: `data.mdb`, or `secure.mdb` for a secure-delete
 * collection, so the file is rewritten with only its pages in use (LMDB's compacting copy,
 * moved over the old file): what deleted documents left in freed pages is gone from the disk.
 * Writes wait meanwhile; reads go on. Refused while a backup reads `data.mdb`.
 */
const compact: CommandHandler = async (command, { runtime, db }) => {
  const name = collectionArgument(command, 'compact');
  const collection = runtime.catalog.getCollection(db, name);
  if (!collection) throw new CommandError('NamespaceNotFound', `collection does not exist: ${db}.${name}`);
  const { engine } = runtime.catalog;
  try {
    const bytesFreed = await engine.compact(isSecureDelete(collection.options) ? 'secure' : 'main');
    return { bytesFreed, ok: 1 };
  } catch (error) {
    if (error instanceof Error && error.message.includes('backup'))
      throw new CommandError('ConflictingOperationInProgress', `cannot compact while ${error.message}`);
    throw error;
  }
};

/**
 * createBackup (the name Percona Server for MongoDB gives its hot backup): writes a consistent
 * copy of the store's files into `backupDir` (absolute, absent or empty, its parent existing)
 * while the store goes on serving (StorageEngine.backupTo). Answers when the copy is complete
 * and fsync'ed, with the moment of its snapshot and what it holds: every collection with its
 * documents and each index's entries, counted at that moment.
 */
const createBackup: CommandHandler = async (command, { runtime, db }) => {
  if (db !== 'admin')
    throw new CommandError('Unauthorized', 'createBackup may only be run against the admin database.');
  const backupDir: unknown = command.backupDir;
  if (typeof backupDir !== 'string' || !path.isAbsolute(backupDir))
    throw new CommandError('BadValue', "'backupDir' must be an absolute path");
  if (runtime.dbPath === undefined)
    throw new CommandError('IllegalOperation', 'a store in memory has no files to back up');
  if (!fs.existsSync(path.dirname(backupDir)))
    throw new CommandError('BadValue', `the parent of ${backupDir} does not exist`);
  if (fs.existsSync(backupDir) && fs.readdirSync(backupDir).length > 0)
    throw new CommandError('BadValue', `${backupDir} is not empty`);
  const { taken, files } = await runtime.catalog.engine.backupTo(backupDir, () => ({
    snapshotTime: new Date(),
    collections: collectionsNow(runtime),
  }));
  return { ...taken, files, ok: 1 } satisfies Document;
};

function collectionsNow(runtime: StoreRuntime): BackedUpCollection[] {
  const { catalog } = runtime;
  return catalog.databaseNames().flatMap((db) =>
    catalog.collections(db).map((collection) => ({
      db,
      name: collection.name,
      documents: collection.count,
      indexes: collection.indexList().map((index) => ({ name: index.name, entries: index.size })),
    })),
  );
}

export const maintenanceCommands: Record<string, CommandHandler> = { compact, createBackup };
