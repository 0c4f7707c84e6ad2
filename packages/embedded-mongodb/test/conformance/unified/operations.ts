import type { Document } from 'bson';
import { Collection, Db, MongoClient } from 'mongodb';

/** The driver objects a test creates (createEntities) plus saved results. */
export class EntityMap {
  private readonly entities = new Map<string, unknown>();
  private readonly clients: MongoClient[] = [];

  static create(uri: string, definitions: readonly Document[]): EntityMap {
    const map = new EntityMap();
    for (const definition of definitions) {
      const [kind, spec] = Object.entries(definition)[0] as [string, Document];
      switch (kind) {
        case 'client': {
          const client = new MongoClient(uri, (spec.uriOptions as Document | undefined) ?? {});
          map.clients.push(client);
          map.set(spec.id as string, client);
          break;
        }
        case 'database':
          map.set(
            spec.id as string,
            map
              .get<MongoClient>(spec.client as string)
              .db(spec.databaseName as string, spec.databaseOptions as Document | undefined),
          );
          break;
        case 'collection':
          map.set(
            spec.id as string,
            map
              .get<Db>(spec.database as string)
              .collection(spec.collectionName as string, spec.collectionOptions as Document | undefined),
          );
          break;
        default:
          throw new Error(`unsupported entity type ${kind}`);
      }
    }
    return map;
  }

  set(id: string, value: unknown): void {
    if (this.entities.has(id)) throw new Error(`entity ${id} already exists`);
    this.entities.set(id, value);
  }

  get<T>(id: string): T {
    if (!this.entities.has(id)) throw new Error(`no entity named ${id}`);
    return this.entities.get(id) as T;
  }

  asMap(): ReadonlyMap<string, unknown> {
    return this.entities;
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }
}

/** A driver call's outcome, and whether array elements count as root-level documents. */
export interface OperationResult {
  readonly value: unknown;
  readonly rootElements: boolean;
}

/** The CRUD spec's returnDocument is "Before"/"After"; the Node driver wants lower case. */
function driverOptions(args: Document, ...positional: string[]): Document {
  const options: Document = {};
  for (const [key, value] of Object.entries(args)) {
    if (positional.includes(key)) continue;
    options[key] = key === 'returnDocument' && typeof value === 'string' ? value.toLowerCase() : value;
  }
  return options;
}

function hasNullId(doc: unknown): boolean {
  return doc !== null && typeof doc === 'object' && '_id' in doc && (doc as Document)._id === null;
}

/**
 * The Node driver gives a document whose `_id` is null a new ObjectId (NODE-6468), where the
 * spec (create-null-ids) wants the null kept. forceServerObjectId makes the driver send the
 * documents as they are, so the server decides.
 */
function insertOptions(args: Document, documents: readonly unknown[], ...positional: string[]): Document {
  const options = driverOptions(args, ...positional);
  return documents.some(hasNullId) ? { ...options, forceServerObjectId: true } : options;
}

function bulkInsertedDocuments(requests: unknown): unknown[] {
  return Array.isArray(requests) ? requests.map((request) => (request as Document).insertOne?.document) : [];
}

const COLLECTION_OPERATIONS: Record<string, (c: Collection, args: Document) => Promise<unknown>> = {
  aggregate: (c, a) => c.aggregate(a.pipeline as Document[], driverOptions(a, 'pipeline')).toArray(),
  bulkWrite: (c, a) =>
    c.bulkWrite(a.requests as never, insertOptions(a, bulkInsertedDocuments(a.requests), 'requests')),
  count: (c, a) => c.count(a.filter as Document, driverOptions(a, 'filter')),
  countDocuments: (c, a) => c.countDocuments(a.filter as Document, driverOptions(a, 'filter')),
  estimatedDocumentCount: (c, a) => c.estimatedDocumentCount(driverOptions(a)),
  deleteMany: (c, a) => c.deleteMany(a.filter as Document, driverOptions(a, 'filter')),
  deleteOne: (c, a) => c.deleteOne(a.filter as Document, driverOptions(a, 'filter')),
  distinct: (c, a) => c.distinct(a.fieldName as string, a.filter as Document, driverOptions(a, 'fieldName', 'filter')),
  find: (c, a) => c.find(a.filter as Document, driverOptions(a, 'filter')).toArray(),
  findOne: (c, a) => c.findOne(a.filter as Document, driverOptions(a, 'filter')),
  findOneAndDelete: (c, a) => c.findOneAndDelete(a.filter as Document, driverOptions(a, 'filter')),
  findOneAndReplace: (c, a) =>
    c.findOneAndReplace(a.filter as Document, a.replacement as Document, driverOptions(a, 'filter', 'replacement')),
  findOneAndUpdate: (c, a) =>
    c.findOneAndUpdate(a.filter as Document, a.update as Document, driverOptions(a, 'filter', 'update')),
  insertMany: (c, a) =>
    c.insertMany(a.documents as Document[], insertOptions(a, a.documents as Document[], 'documents')),
  insertOne: (c, a) => c.insertOne(a.document as Document, insertOptions(a, [a.document], 'document')),
  replaceOne: (c, a) =>
    c.replaceOne(a.filter as Document, a.replacement as Document, driverOptions(a, 'filter', 'replacement')),
  updateMany: (c, a) => c.updateMany(a.filter as Document, a.update as Document, driverOptions(a, 'filter', 'update')),
  updateOne: (c, a) => c.updateOne(a.filter as Document, a.update as Document, driverOptions(a, 'filter', 'update')),
  createIndex: (c, a) => c.createIndex(a.keys as Document, driverOptions(a, 'keys')),
  dropIndex: (c, a) => c.dropIndex(a.name as string, driverOptions(a, 'name')),
  listIndexes: (c, a) => c.listIndexes(driverOptions(a)).toArray(),
  drop: (c, a) => c.drop(driverOptions(a)),
};

const DATABASE_OPERATIONS: Record<string, (d: Db, args: Document) => Promise<unknown>> = {
  runCommand: (d, a) => d.command(a.command as Document, driverOptions(a, 'command', 'commandName')),
  aggregate: (d, a) => d.aggregate(a.pipeline as Document[], driverOptions(a, 'pipeline')).toArray(),
  listCollections: (d, a) => d.listCollections(a.filter as Document, driverOptions(a, 'filter')).toArray(),
  createCollection: (d, a) => d.createCollection(a.collection as string, driverOptions(a, 'collection')),
  dropCollection: (d, a) => d.dropCollection(a.collection as string, driverOptions(a, 'collection')),
  // The Node driver has no collMod helper; the unified format's modifyCollection is that command.
  modifyCollection: (d, a) => d.command({ collMod: a.collection as string, ...driverOptions(a, 'collection') }),
};

/** Operations whose result is an iterable of documents: each element is a root-level document. */
const ITERABLE_RESULTS = new Set(['aggregate', 'find', 'listCollections', 'listDatabases', 'listIndexes']);

/** Runs a spec operation through the official driver. */
export async function executeOperation(
  entities: EntityMap,
  name: string,
  object: string,
  args: Document = {},
): Promise<OperationResult> {
  const target = entities.get<unknown>(object);
  const rootElements = ITERABLE_RESULTS.has(name);
  if (target instanceof Collection && COLLECTION_OPERATIONS[name]) {
    return { value: await COLLECTION_OPERATIONS[name](target, args), rootElements };
  }
  if (target instanceof Db && DATABASE_OPERATIONS[name]) {
    return { value: await DATABASE_OPERATIONS[name](target, args), rootElements };
  }
  throw new Error(`operation ${name} on ${object} is not supported by this runner`);
}
