import type { Collection, Db } from 'mongodb';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate } from '../store/duplicate-key';
import type { OfferDoc } from './candidate-document';

/** The `offers` collection: job matches and offers to assist, as recorded. */
export class OfferRepository {
  private readonly collection: Collection<OfferDoc>;

  constructor(db: Db) {
    this.collection = db.collection<OfferDoc>(CANDIDATE_COLLECTIONS.offers);
  }

  async findByPublicId(publicId: string): Promise<OfferDoc | null> {
    return this.collection.findOne({ publicId }, { projection: { _id: 0 } });
  }

  async insert(offer: OfferDoc): Promise<void> {
    await conflictOnDuplicate(
      () => this.collection.insertOne({ ...offer }),
      'An offer with this public id already exists.',
    );
  }
}
