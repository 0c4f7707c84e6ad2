import type { Collection, Db } from 'mongodb';
import { PERSISTED_QUERY_COLLECTION } from './persisted-query-indexes';

/** One document of `persistedQueries`: a query text under the key Apollo gives it (its SHA-256, prefixed). */
export interface PersistedQueryDoc {
  _id: string;
  query: string;
  /** the TTL index drops the document after this instant */
  expiresAt: Date;
}

/** The `persistedQueries` collection. Driver objects and errors stay here. */
export class PersistedQueryRepository {
  private readonly collection: Collection<PersistedQueryDoc>;

  constructor(db: Db) {
    this.collection = db.collection<PersistedQueryDoc>(PERSISTED_QUERY_COLLECTION);
  }

  /** The query stored under `key`, unless it expired by `now`. */
  async find(key: string, now: Date): Promise<string | undefined> {
    const found = await this.collection.findOne({ _id: key, expiresAt: { $gt: now } }, { projection: { query: 1 } });
    return found?.query;
  }

  /** Stores (or refreshes) `query` under `key`. */
  async save(key: string, query: string, expiresAt: Date): Promise<void> {
    await this.collection.updateOne({ _id: key }, { $set: { query, expiresAt } }, { upsert: true });
  }

  async remove(key: string): Promise<void> {
    await this.collection.deleteOne({ _id: key });
  }

  /** Removes every query whose text `remove` picks (read one at a time); resolves with how many. */
  async removeWhere(remove: (query: string) => boolean): Promise<number> {
    const picked: string[] = [];
    for await (const doc of this.collection.find({}, { projection: { query: 1 } })) {
      if (remove(doc.query)) picked.push(doc._id);
    }
    if (picked.length === 0) return 0;
    const { deletedCount } = await this.collection.deleteMany({ _id: { $in: picked } });
    return deletedCount;
  }

  /** Removes what expired by `now`, then the earliest to expire beyond `maxEntries`. */
  async trim(now: Date, maxEntries: number): Promise<void> {
    await this.collection.deleteMany({ expiresAt: { $lte: now } });
    const excess = (await this.collection.countDocuments({})) - maxEntries;
    if (excess <= 0) return;
    const oldest = await this.collection
      .find({}, { projection: { _id: 1 }, sort: { expiresAt: 1 }, limit: excess })
      .toArray();
    await this.collection.deleteMany({ _id: { $in: oldest.map((doc) => doc._id) } });
  }
}
