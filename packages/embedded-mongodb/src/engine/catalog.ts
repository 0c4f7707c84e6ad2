import { deserialize, serialize, type Document, type UUID } from 'bson';
import { CommandError } from '../errors';
import { asBuffer, type StorageEngine } from '../persistence/storage-engine';
import type { Change, ChangeLog } from './change-log';
import { DISCARD_CHANGES } from './change-log';
import { Collection, type CollectionHost } from './collection';
import { describeIndex, parseIndexSpec } from './index-spec';

const INVALID_DB_NAME = /[/\\. "$*<>:|?\0]/;

export function assertValidDatabaseName(name: string): void {
  if (name.length === 0 || name.length > 63 || INVALID_DB_NAME.test(name)) {
    throw new CommandError('InvalidNamespace', `Invalid database name: '${name}'`);
  }
}

export function assertValidCollectionName(db: string, name: string): void {
  if (name.length === 0 || name.includes('\0') || name.startsWith('.') || name.includes('$')) {
    throw new CommandError('InvalidNamespace', `Invalid collection name: ${db}.${name}`);
  }
}

/**
 * Whether collection options ask for secure deletion (`storageEngine: { embedded: { secureDelete:
 * true } }`, checked by the `create` command): no byte of a deleted or replaced document stays on
 * the disk after its commit (secure-space.ts).
 */
export function isSecureDelete(options: Document): boolean {
  const storageEngine: unknown = options.storageEngine;
  if (typeof storageEngine !== 'object' || storageEngine === null) return false;
  const embedded: unknown = (storageEngine as Document)[STORAGE_ENGINE_NAME];
  return typeof embedded === 'object' && embedded !== null && (embedded as Document).secureDelete === true;
}

/** The store's name for its storage engine (buildInfo's `storageEngines`, a collection's `storageEngine` options). */
export const STORAGE_ENGINE_NAME = 'embedded';

/** The catalog's one record in the engine's `catalog` space. */
const CATALOG_KEY = Buffer.from('catalog');
/** The layout of that record; a store refuses a data directory of a newer layout. */
const CATALOG_FORMAT = 1;

interface StoredCatalog {
  format: number;
  nextId: number;
  collections: {
    db: string;
    c: string;
    id: number;
    uuid: UUID;
    options: Document;
    indexes: { id: number; spec: Document; multikey: number[] }[];
  }[];
}

/**
 * Every database and collection of one store. Databases exist while they hold a collection.
 * Their definitions (options, indexes, multikey paths, the ids of their key spaces) are one
 * small record in the engine, read at open and written in the transaction of any change to
 * them; documents and index entries stay in the engine.
 */
export class Catalog {
  private readonly databases = new Map<string, Map<string, Collection>>();
  private changes: ChangeLog = DISCARD_CHANGES;
  private nextId = 1;
  private readonly host: CollectionHost;
  /** The host of secure-delete collections (their documents in the secure space), made on first use. */
  private secureHost: CollectionHost | undefined;

  constructor(readonly engine: StorageEngine) {
    this.host = {
      engine,
      allocateId: () => this.nextId++,
      save: () => this.save(),
      log: (change, before) => this.changes.append(change, before),
    };
    const stored = engine.catalog.getBinary(CATALOG_KEY);
    if (stored !== undefined) this.load(deserialize(stored) as StoredCatalog);
  }

  /** Where changes go from now on (a transaction capturing its writes; nowhere otherwise). */
  recordChangesTo(log: ChangeLog): void {
    this.changes = log;
  }

  /**
   * Runs `work` with its changes sent to `log` instead (a transaction capturing or replaying
   * its writes). `work` must be synchronous: nothing else may run while the log is swapped.
   */
  withChangesTo<T>(log: ChangeLog, work: () => T): T {
    const previous = this.changes;
    this.changes = log;
    try {
      return work();
    } finally {
      this.changes = previous;
    }
  }

  databaseNames(): string[] {
    return [...this.databases.keys()];
  }

  collections(db: string): Collection[] {
    return [...(this.databases.get(db)?.values() ?? [])];
  }

  getCollection(db: string, name: string): Collection | undefined {
    return this.databases.get(db)?.get(name);
  }

  /** The collection, created on first use as MongoDB does for writes and createIndexes. */
  ensureCollection(db: string, name: string): Collection {
    return this.getCollection(db, name) ?? this.createCollection(db, name, {});
  }

  createCollection(db: string, name: string, options: Document): Collection {
    assertValidDatabaseName(db);
    assertValidCollectionName(db, name);
    if (this.getCollection(db, name)) {
      throw new CommandError('NamespaceExists', `Collection ${db}.${name} already exists.`);
    }
    return this.engine.atomic(() => {
      const collection = new Collection(db, name, options, this.hostFor(options));
      this.collectionsOf(db).set(name, collection);
      this.save();
      this.changes.append({ t: 'createCollection', db, c: name, options });
      return collection;
    });
  }

  dropCollection(db: string, name: string): boolean {
    const collections = this.databases.get(db);
    const collection = collections?.get(name);
    if (!collections || !collection) return false;
    this.engine.atomic(() => {
      collection.clear();
      collections.delete(name);
      if (collections.size === 0) this.databases.delete(db);
      this.save();
    });
    this.changes.append({ t: 'dropCollection', db, c: name });
    return true;
  }

  dropDatabase(db: string): boolean {
    const collections = this.databases.get(db);
    if (!collections) return false;
    this.engine.atomic(() => {
      for (const collection of collections.values()) collection.clear();
      this.databases.delete(db);
      this.save();
    });
    this.changes.append({ t: 'dropDatabase', db });
    return true;
  }

  /**
   * Applies a change as written by an earlier release's journal (converting a data directory)
   * or taken back by a transaction: "set state" records, idempotent.
   */
  applyChange(change: Change): void {
    switch (change.t) {
      case 'txn':
        for (const part of change.changes) this.applyChange(part);
        return;
      case 'put': {
        const collection = this.ensureCollection(change.db, change.c);
        const existing = collection.findById(change.d._id);
        if (existing) collection.replace(existing, change.d);
        else collection.insert(change.d);
        return;
      }
      case 'del': {
        const collection = this.getCollection(change.db, change.c);
        const existing = collection?.findById(change.id);
        if (collection && existing) collection.remove(existing);
        return;
      }
      case 'createCollection':
        if (!this.getCollection(change.db, change.c)) this.createCollection(change.db, change.c, change.options);
        return;
      case 'dropCollection':
        this.dropCollection(change.db, change.c);
        return;
      case 'dropDatabase':
        this.dropDatabase(change.db);
        return;
      case 'createIndex':
        this.ensureCollection(change.db, change.c).createIndexes([parseIndexSpec(change.spec)]);
        return;
      case 'dropIndex': {
        const collection = this.getCollection(change.db, change.c);
        if (collection?.getIndex(change.name)) collection.dropIndex(change.name);
        return;
      }
    }
  }

  /** Where a collection with `options` keeps its documents: the secure space for `secureDelete`. */
  private hostFor(options: Document): CollectionHost {
    if (!isSecureDelete(options)) return this.host;
    this.secureHost ??= { ...this.host, engine: this.engine.secureSpace() };
    return this.secureHost;
  }

  private collectionsOf(db: string): Map<string, Collection> {
    let collections = this.databases.get(db);
    if (!collections) {
      collections = new Map();
      this.databases.set(db, collections);
    }
    return collections;
  }

  private load(stored: StoredCatalog): void {
    if (stored.format !== CATALOG_FORMAT) {
      throw new Error(
        `the data directory's catalog has format ${stored.format}; this store reads format ${CATALOG_FORMAT}`,
      );
    }
    this.nextId = stored.nextId;
    for (const entry of stored.collections) {
      const collection = new Collection(entry.db, entry.c, entry.options, this.hostFor(entry.options), {
        id: entry.id,
        uuid: entry.uuid,
        indexes: entry.indexes.map((index) => ({
          id: index.id,
          spec: parseIndexSpec(index.spec),
          multikey: index.multikey,
        })),
      });
      this.collectionsOf(entry.db).set(entry.c, collection);
    }
  }

  /** Writes the definitions (inside the caller's transaction, or in one of its own). */
  private save(): void {
    const stored: StoredCatalog = {
      format: CATALOG_FORMAT,
      nextId: this.nextId,
      collections: [...this.databases.entries()].flatMap(([db, collections]) =>
        [...collections.values()].map((collection) => {
          const definition = collection.definition;
          return {
            db,
            c: collection.name,
            id: definition.id,
            uuid: definition.uuid,
            options: collection.options,
            indexes: definition.indexes.map((index) => {
              const { v: _version, ...spec } = describeIndex(index.spec);
              return { id: index.id, spec, multikey: [...index.multikey] };
            }),
          };
        }),
      ),
    };
    this.engine.write(() => this.engine.catalog.putSync(CATALOG_KEY, asBuffer(serialize(stored))));
  }
}
