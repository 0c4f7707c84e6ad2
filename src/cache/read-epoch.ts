import { ObjectId, type Db } from 'mongodb';
import { RunStartedAfter } from './run-started-after';

/** The collection of the one epoch document. */
export const READ_EPOCH_COLLECTION = 'readEpoch';
const EPOCH_ID = 'reads';

interface EpochDoc {
  _id: string;
  value: ObjectId;
}

/**
 * How long a shared epoch read or advance may take before its waiters give up on it (503) and
 * the next caller starts another: far above the few milliseconds one takes, below the request
 * timeout, so a run caught by a store crash holds requests for seconds, not for good.
 */
export const SHARED_EPOCH_RUN_DEADLINE_MS = 5_000;

/** The epoch of a store no writer has marked yet. */
const INITIAL_EPOCH = 'initial';

/**
 * Marks that what the read caches hold may have changed: every write of data that reads
 * return (candidates, saved lists, job opportunities, API keys) calls this after its write
 * and before it is acknowledged. Each mark is a new ObjectId, so an epoch never repeats, not
 * even after the collection is dropped.
 */
export async function advanceReadEpoch(db: Db): Promise<void> {
  await db
    .collection<EpochDoc>(READ_EPOCH_COLLECTION)
    .updateOne({ _id: EPOCH_ID }, { $set: { value: new ObjectId() } }, { upsert: true });
}

/**
 * The current read epoch, for validating cached reads. A cached value is served only when it
 * was loaded under the epoch a request reads, so a write acknowledged by any instance before a
 * request arrives is seen by that request: revocations and new data take effect at once, on
 * every instance.
 *
 * The read is shared: a request waits for the next epoch read that starts after it arrived,
 * and all requests waiting for it get its answer. Under load that is one small round trip for
 * many requests instead of the lookups each would make.
 */
export class ReadEpoch {
  /** A read in flight started before a caller and may predate a write it must see. */
  private readonly reads = new RunStartedAfter(() => this.read(), SHARED_EPOCH_RUN_DEADLINE_MS);

  constructor(private readonly db: Db) {}

  /** An epoch read that started after this call. */
  current(): Promise<string> {
    return this.reads.run();
  }

  private async read(): Promise<string> {
    const doc = await this.db.collection<EpochDoc>(READ_EPOCH_COLLECTION).findOne({ _id: EPOCH_ID });
    return doc === null ? INITIAL_EPOCH : doc.value.toHexString();
  }
}

/**
 * Runs a write of data that reads return, then advances the read epoch: also when the write
 * failed, since part of it (an unordered insertMany) may have landed.
 */
export async function thenAdvanceReadEpoch<T>(db: Db, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    await advanceReadEpoch(db);
  }
}
