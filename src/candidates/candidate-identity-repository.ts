import type { Collection, Db } from 'mongodb';
import { COLLECTIONS, conflictOnDuplicate } from '../store/indexes';
import type { CandidateIdentityDoc } from './identity-document';

/**
 * The `candidateIdentities` collection. Write-only by design: nothing here returns identity
 * data, so no read path of the product can expose it by mistake.
 */
export class CandidateIdentityRepository {
  private readonly collection: Collection<CandidateIdentityDoc>;

  constructor(db: Db) {
    this.collection = db.collection<CandidateIdentityDoc>(COLLECTIONS.candidateIdentities);
  }

  /**
   * Stores the identity of a newly registered candidate. A normalised e-mail (or candidate)
   * already present is a ConflictError: the candidate is already registered.
   */
  async insert(identity: CandidateIdentityDoc): Promise<void> {
    await conflictOnDuplicate(
      () => this.collection.insertOne({ ...identity }),
      'A candidate with this e-mail address is already registered.',
    );
  }

  /** True when a candidate registered with this normalised e-mail. */
  async existsByEmail(emailNormalised: string): Promise<boolean> {
    const found = await this.collection.findOne({ emailNormalised }, { projection: { _id: 1 } });
    return found !== null;
  }

  /** Deletes the identity of one candidate (undoes a half-done registration). */
  async deleteByCandidatePublicId(candidatePublicId: string): Promise<boolean> {
    const result = await this.collection.deleteOne({ candidatePublicId });
    return result.deletedCount === 1;
  }
}
