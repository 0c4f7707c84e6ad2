import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Db } from 'mongodb';
import { isDuplicateKeyError, isDuplicateKeyWriteError } from '../store/duplicate-key';
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

/** One window's counter: which key, budget and minute. */
export interface RateLimitWindow {
  apiKeyId: string;
  kind: RateLimitKind;
  windowStart: Date;
}

/** Units to add to one window's counter. */
export interface RateLimitIncrement extends RateLimitWindow {
  cost: number;
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

  /**
   * Adds each increment to its window's counter, creating it if needed, in one unordered bulk
   * write. An upsert that lost the race to create its counter to another instance is retried
   * once as an update (the unique index made the other one win).
   */
  async addMany(increments: readonly RateLimitIncrement[]): Promise<void> {
    let todo = increments;
    for (let round = 0; todo.length > 0; round++) {
      try {
        await this.collection.bulkWrite(todo.map(toUpsert), { ordered: false });
        return;
      } catch (error) {
        const failed = error instanceof MongoBulkWriteError ? duplicateKeyPositions(error, todo.length) : undefined;
        if (failed === undefined || round > 0) throw error;
        todo = failed.map((position) => todo[position]);
      }
    }
  }

  /** The counters of these windows, by `windowKey`; a window without a counter is absent. */
  async counts(windows: readonly RateLimitWindow[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (windows.length === 0) return counts;
    const docs = await this.collection
      .find(
        { $or: windows.map(({ apiKeyId, kind, windowStart }) => ({ apiKeyId, kind, windowStart })) },
        { projection: { _id: 0, apiKeyId: 1, kind: 1, windowStart: 1, count: 1 } },
      )
      .toArray();
    for (const doc of docs) counts.set(windowKey(doc), doc.count);
    return counts;
  }

  /** Deletes the key's counters whose windows have ended. */
  async removeEnded(apiKeyId: string, now: Date): Promise<void> {
    await this.collection.deleteMany({ apiKeyId, expiresAt: { $lte: now } });
  }
}

/** A string naming one window's counter (key id, kind and start), for maps. */
export function windowKey({ apiKeyId, kind, windowStart }: RateLimitWindow): string {
  return `${apiKeyId}\u0000${kind}\u0000${windowStart.getTime()}`;
}

function toUpsert({
  apiKeyId,
  kind,
  windowStart,
  cost,
  expiresAt,
}: RateLimitIncrement): AnyBulkWriteOperation<RateLimitWindowDoc> {
  return {
    updateOne: {
      filter: { apiKeyId, kind, windowStart },
      update: { $inc: { count: cost }, $setOnInsert: { expiresAt } },
      upsert: true,
    },
  };
}

/** The positions of the refused upserts when every refusal is a duplicate key (a lost creation race); otherwise undefined. */
function duplicateKeyPositions(error: MongoBulkWriteError, count: number): number[] | undefined {
  const writeErrors = [error.writeErrors].flat();
  if (writeErrors.length === 0 || error.result.getWriteConcernError() !== undefined) return undefined;
  if (!writeErrors.every((writeError) => isDuplicateKeyWriteError(writeError) && writeError.index < count))
    return undefined;
  return writeErrors.map((writeError) => writeError.index);
}
