import type { Collection, Db } from 'mongodb';
import { PUBLISHED_OPERATION_COLLECTION } from './published-operation-indexes';

/** One operation published for one key: its id is the SHA-256 hex of its text, as in Apollo's manifest. */
export interface PublishedOperation {
  keyId: string;
  operationId: string;
  name: string;
  type: string;
  body: string;
  publishedAt: Date;
}

/** The `publishedOperations` collection. Driver objects and errors stay here. */
export class PublishedOperationRepository {
  private readonly collection: Collection<PublishedOperation>;

  constructor(db: Db) {
    this.collection = db.collection<PublishedOperation>(PUBLISHED_OPERATION_COLLECTION);
  }

  /** Stores the operations not stored yet for their key; those already there keep their publication time. */
  async insertMissing(operations: readonly PublishedOperation[]): Promise<number> {
    let inserted = 0;
    for (const operation of operations) {
      const result = await this.collection.updateOne(
        { keyId: operation.keyId, operationId: operation.operationId },
        { $setOnInsert: { ...operation } },
        { upsert: true },
      );
      inserted += result.upsertedCount;
    }
    return inserted;
  }

  async find(keyId: string, operationId: string): Promise<PublishedOperation | null> {
    const doc = await this.collection.findOne({ keyId, operationId }, { projection: { _id: 0 } });
    return doc === null ? null : toOperation(doc);
  }

  /** Every published operation, or those of one key, by key then name. */
  async list(keyId?: string): Promise<PublishedOperation[]> {
    const docs = await this.collection
      .find(keyId === undefined ? {} : { keyId }, { projection: { _id: 0 } })
      .sort({ keyId: 1, name: 1, operationId: 1 })
      .toArray();
    return docs.map(toOperation);
  }

  /** Removes one operation of a key (or all of them); the number removed. */
  async remove(keyId: string, operationId?: string): Promise<number> {
    const result = await this.collection.deleteMany(operationId === undefined ? { keyId } : { keyId, operationId });
    return result.deletedCount;
  }
}

function toOperation(doc: PublishedOperation): PublishedOperation {
  return {
    keyId: doc.keyId,
    operationId: doc.operationId,
    name: doc.name,
    type: doc.type,
    body: doc.body,
    publishedAt: doc.publishedAt,
  };
}
