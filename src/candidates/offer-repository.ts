import type { Collection, Db } from 'mongodb';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate, isDuplicateKeyError } from '../store/duplicate-key';
import { WriteTransactions, type CompanionWrite } from '../store/write-transaction';
import type { OfferDoc } from 'candidate-documents';
import { ChangeEventRepository, type ChangeKind } from '../changes/change-events';

/**
 * The `offers` collection: job matches and offers to assist, as recorded. An offer is written with
 * the request's companions (its audit event, the answer kept for its Idempotency-Key): in one
 * transaction where the store has them; on a standalone MongoDB the offer first, so that a retry
 * finds it by its id (derived from the retry token) and answers with it.
 */
export class OfferRepository {
  private readonly collection: Collection<OfferDoc>;
  private readonly transactions: WriteTransactions;
  private readonly changes: ChangeEventRepository;

  constructor(db: Db) {
    this.collection = db.collection<OfferDoc>(CANDIDATE_COLLECTIONS.offers);
    this.transactions = new WriteTransactions(db);
    this.changes = new ChangeEventRepository(db);
  }

  async findByPublicId(publicId: string): Promise<OfferDoc | null> {
    return this.collection.findOne({ publicId }, { projection: { _id: 0 } });
  }

  /**
   * Stores `offer` with its companions and returns it. When `retried` and its publicId is taken
   * by an offer of the same caller and kind, that one is this request's own, stored by an attempt
   * a crash cut short: it is returned (and the companions of this attempt are not written). Any
   * other duplicate is a ConflictError. One JOB_MATCH or OFFER change event per candidate named
   * is written last (the change-event outbox, for webhooks).
   */
  async insert(offer: OfferDoc, companions: readonly CompanionWrite[] = [], retried = false): Promise<OfferDoc> {
    const kind: ChangeKind = offer.kind === 'JOB_MATCH' ? 'JOB_MATCH' : 'OFFER';
    const events = offer.candidates.map(({ publicId }) => ({
      kind,
      publicId,
      at: offer.createdDate,
      offerPublicId: offer.publicId,
      keyId: offer.apiKeyId,
    }));
    try {
      await this.transactions.run(
        async (session) => {
          await this.collection.insertOne({ ...offer }, { session });
        },
        [...companions, this.changes.companion(events)],
      );
      return offer;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (retried) {
        const earlier = await this.findByPublicId(offer.publicId);
        if (earlier !== null && earlier.apiKeyId === offer.apiKeyId && earlier.kind === offer.kind) return earlier;
      }
      // The driver's error, turned into a ConflictError that names only the index.
      return conflictOnDuplicate(() => Promise.reject(error as Error), 'An offer with this public id already exists.');
    }
  }
}
