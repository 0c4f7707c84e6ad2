import type { Document } from 'bson';
import { CommandError } from '../errors';
import type { Change, ChangeLog } from './change-log';
import { DISCARD_CHANGES } from './change-log';
import { Collection } from './collection';
import { parseIndexSpec } from './index-spec';
import type { RecordPlace } from './stored-record';

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

/** Every database and collection of one store. Databases exist while they hold a collection. */
export class Catalog {
  private readonly databases = new Map<string, Map<string, Collection>>();
  private changes: ChangeLog = DISCARD_CHANGES;

  /** Where changes go from now on: the journal once recovery is over, nowhere in memory mode. */
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

  /** Records a change made outside the catalog's own methods (a committed transaction). */
  record(change: Change): void {
    this.changes.append(change);
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
    let collections = this.databases.get(db);
    if (!collections) {
      collections = new Map();
      this.databases.set(db, collections);
    }
    const collection = new Collection(db, name, options, (change, record, before) =>
      this.changes.append(change, record, before),
    );
    collections.set(name, collection);
    this.changes.append({ t: 'createCollection', db, c: name, options });
    return collection;
  }

  dropCollection(db: string, name: string): boolean {
    const collections = this.databases.get(db);
    if (!collections?.delete(name)) return false;
    if (collections.size === 0) this.databases.delete(db);
    this.changes.append({ t: 'dropCollection', db, c: name });
    return true;
  }

  dropDatabase(db: string): boolean {
    if (!this.databases.delete(db)) return false;
    this.changes.append({ t: 'dropDatabase', db });
    return true;
  }

  /**
   * Re-applies a journaled change during recovery (changes are idempotent "set state" records).
   * `place`: where a put's document is in the journal, for the record to keep only that.
   */
  applyChange(change: Change, place?: RecordPlace): void {
    switch (change.t) {
      case 'txn':
        for (const part of change.changes) this.applyChange(part);
        return;
      case 'put': {
        const collection = this.ensureCollection(change.db, change.c);
        const existing = collection.findById(change.d._id);
        if (existing) collection.replace(existing, change.d, place);
        else collection.insert(change.d, place);
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
        this.applyIndexCreations(change.db, change.c, [change.spec]);
        return;
      case 'dropIndex': {
        const collection = this.getCollection(change.db, change.c);
        if (collection?.getIndex(change.name)) collection.dropIndex(change.name);
        return;
      }
    }
  }

  /**
   * Re-applies journaled createIndex changes on one collection together, reading each document
   * once for all of them, so their entries share the decoded values. All or nothing.
   */
  applyIndexCreations(db: string, c: string, specs: readonly Document[]): void {
    this.ensureCollection(db, c).createIndexes(specs.map(parseIndexSpec));
  }
}
