import type { Collection, Db } from 'mongodb';
import { thenAdvanceReadEpoch } from '../cache/read-epoch';
import { findDecodedOnce, findRaw } from '../store/decode-once';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate } from '../store/duplicate-key';
import type { JobOpportunityDoc } from 'candidate-documents';
import { oneBatchFor } from './candidate-repository';

/** The `jobOpportunities` collection (anonymised job opportunities of visa job checks). */
export class JobOpportunityRepository {
  private readonly collection: Collection<JobOpportunityDoc>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<JobOpportunityDoc>(CANDIDATE_COLLECTIONS.jobOpportunities);
  }

  /** The job opportunities of these ids that exist, in no particular order (loaders order them). */
  async findByPublicIds(publicIds: readonly string[]): Promise<JobOpportunityDoc[]> {
    if (publicIds.length === 0) return [];
    return findDecodedOnce(
      this.collection,
      { publicId: { $in: [...publicIds] } },
      { projection: { _id: 0 }, ...oneBatchFor(publicIds) },
    );
  }

  /** findByPublicIds, as stored bytes (undecoded). */
  async findRawByPublicIds(publicIds: readonly string[]): Promise<Uint8Array[]> {
    if (publicIds.length === 0) return [];
    return findRaw(
      this.collection,
      { publicId: { $in: [...publicIds] } },
      { projection: { _id: 0 }, ...oneBatchFor(publicIds) },
    );
  }

  async insertMany(jobOpportunities: readonly JobOpportunityDoc[]): Promise<void> {
    if (jobOpportunities.length === 0) return;
    await thenAdvanceReadEpoch(this.db, () =>
      conflictOnDuplicate(
        () =>
          this.collection.insertMany(
            jobOpportunities.map((j) => ({ ...j })),
            { ordered: false },
          ),
        'A job opportunity with one of these public ids already exists.',
      ),
    );
  }
}
