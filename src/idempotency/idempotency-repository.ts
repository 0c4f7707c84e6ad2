import type { ClientSession, Collection, Db } from 'mongodb';
import type { CompanionWrite } from '../store/write-transaction';
import { isDuplicateKeyError } from '../store/duplicate-key';
import { IDEMPOTENCY_COLLECTION } from './idempotency-indexes';

/** One document of `idempotencyKeys`: the first request made with one key by one API key. */
export interface IdempotencyRecord {
  /** id of the API key: keys are scoped per caller */
  apiKeyId: string;
  /** SHA-256 of the Idempotency-Key header (the key is the caller's free text, so it is not kept) */
  keyHash: string;
  /** SHA-256 of the method, path and canonical JSON of the body (the body itself is not kept: it may be identity data) */
  fingerprint: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  /** random id of the attempt that holds the record, so a superseded attempt cannot complete it */
  attempt: string;
  /** start of the record; the TTL index counts from here */
  createdDate: Date;
  /** while IN_PROGRESS: after this instant the attempt is presumed dead and may be taken over */
  leaseUntil?: Date;
  /** when COMPLETED: what the first request answered (removed when the candidate it registered is erased) */
  response?: { status: number; body: string };
  /** the candidate the request registered, so that its erasure finds the record (removed by the erasure) */
  candidatePublicId?: string;
  /** the candidate the request registered was erased since: a replay answers that, and nothing of the candidate is kept */
  candidateErased?: true;
}

/** The `idempotencyKeys` collection. Driver objects and errors stay here. */
export class IdempotencyRepository {
  private readonly collection: Collection<IdempotencyRecord>;

  constructor(db: Db) {
    this.collection = db.collection<IdempotencyRecord>(IDEMPOTENCY_COLLECTION);
  }

  /** Inserts `record` unless one exists for its (apiKeyId, keyHash): then returns that one. */
  async claim(record: IdempotencyRecord): Promise<IdempotencyRecord | null> {
    // A record deleted between the insert and the read (expired, or released after a failed
    // attempt) is claimed again; three rounds are plenty outside a pathological race.
    for (let round = 0; round < 3; round++) {
      try {
        await this.collection.insertOne({ ...record });
        return null;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      const existing = await this.collection.findOne(
        { apiKeyId: record.apiKeyId, keyHash: record.keyHash },
        { projection: { _id: 0 } },
      );
      if (existing !== null) return existing;
    }
    throw new Error('idempotency record kept appearing and disappearing');
  }

  /** Moves an in-progress record from attempt `from` to `to`; false when another attempt got there first. */
  async takeOver(record: IdempotencyRecord, to: string, leaseUntil: Date): Promise<boolean> {
    const result = await this.collection.updateOne(
      { apiKeyId: record.apiKeyId, keyHash: record.keyHash, attempt: record.attempt, state: 'IN_PROGRESS' },
      { $set: { attempt: to, leaseUntil } },
    );
    return result.modifiedCount === 1;
  }

  async complete(
    apiKeyId: string,
    keyHash: string,
    attempt: string,
    response: { status: number; body: string },
  ): Promise<void> {
    await this.collection.updateOne(
      { apiKeyId, keyHash, attempt },
      { $set: { state: 'COMPLETED', response }, $unset: { leaseUntil: '' } },
    );
  }

  /**
   * The completion of the record as a companion of the write it guards (WriteTransactions):
   * stored in the write's transaction, so that the write and the answer a retry gets back are
   * stored together. Whichever attempt holds the record: the write is the request's one write.
   */
  completion(
    apiKeyId: string,
    keyHash: string,
    response: { status: number; body: string },
    /** the candidate the write registered, if it did */
    candidatePublicId?: string,
  ): CompanionWrite {
    return {
      write: async (session) => {
        await this.collection.updateOne(
          { apiKeyId, keyHash },
          {
            $set: { state: 'COMPLETED', response, ...(candidatePublicId === undefined ? {} : { candidatePublicId }) },
            $unset: { leaseUntil: '' },
          },
          { session },
        );
      },
    };
  }

  /**
   * The records of requests that registered `candidatePublicId`, as its erasure leaves them (in
   * the erasure's transaction): the answer that named it and the link to it removed, marked so
   * that a replay says the candidate was erased instead of registering it again.
   */
  async forgetCandidate(candidatePublicId: string, session?: ClientSession): Promise<void> {
    await this.collection.updateMany(
      { candidatePublicId },
      { $set: { candidateErased: true }, $unset: { candidatePublicId: '', response: '' } },
      { session },
    );
  }

  /** Which of `candidatePublicIds` a record still links (its erasure has not forgotten it yet). */
  async linkedCandidates(candidatePublicIds: readonly string[]): Promise<string[]> {
    const records = await this.collection
      .find({ candidatePublicId: { $in: [...candidatePublicIds] } }, { projection: { _id: 0, candidatePublicId: 1 } })
      .toArray();
    return records.flatMap((record) => (record.candidatePublicId === undefined ? [] : [record.candidatePublicId]));
  }

  /** Removes the record held by `attempt` (an expired record). */
  async release(apiKeyId: string, keyHash: string, attempt: string): Promise<void> {
    await this.collection.deleteOne({ apiKeyId, keyHash, attempt });
  }

  /**
   * Removes the record of a failed attempt while it is still in progress: a record completed with
   * the write it guards (which then failed after its commit, say) keeps that write's answer.
   */
  async abandon(apiKeyId: string, keyHash: string, attempt: string): Promise<void> {
    await this.collection.deleteOne({ apiKeyId, keyHash, attempt, state: 'IN_PROGRESS' });
  }
}
