import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from '../store/indexes';
import { RATE_LIMIT_COLLECTION } from './rate-limit-indexes';

/** The two budgets of an API key. */
export type RateLimitKind = 'reads' | 'writes';

/** One document of `rateLimits`: what one API key spent of one budget in one fixed window. */
export interface RateLimitWindowDoc {
  /** id of the API key (never the key) */
  apiKeyId: string;
  kind: RateLimitKind;
  /** start of the fixed window (a whole minute) */
  windowStart: Date;
  /** units spent in the window so far, rejected requests included */
  count: number;
  /** when the counter may be deleted (the TTL index reads it) */
  expiresAt: Date;
}

/** The `rateLimits` collection. Driver objects and errors stay here. */
export class RateLimitRepository {
  private readonly collection: Collection<RateLimitWindowDoc>;

  constructor(db: Db) {
    this.collection = db.collection<RateLimitWindowDoc>(RATE_LIMIT_COLLECTION);
  }

  /**
   * Adds `cost` to the window's counter, creating it if needed, in one atomic operation, and
   * resolves with the counter after the addition: concurrent requests on any instance each see
   * a distinct total.
   */
  async add(apiKeyId: string, kind: RateLimitKind, windowStart: Date, cost: number, expiresAt: Date): Promise<number> {
    for (let round = 0; ; round++) {
      try {
        const after = await this.collection.findOneAndUpdate(
          { apiKeyId, kind, windowStart },
          { $inc: { count: cost }, $setOnInsert: { expiresAt } },
          { upsert: true, returnDocument: 'after', projection: { _id: 0, count: 1 } },
        );
        if (after === null) throw new Error('the rate-limit upsert returned no document');
        return after.count;
      } catch (error) {
        // Two first requests of a window may both try to insert; the loser's retry updates.
        if (!isDuplicateKeyError(error) || round > 0) throw error;
      }
    }
  }

  /** Deletes the key's counters whose windows have ended. */
  async removeEnded(apiKeyId: string, now: Date): Promise<void> {
    await this.collection.deleteMany({ apiKeyId, expiresAt: { $lte: now } });
  }
}
