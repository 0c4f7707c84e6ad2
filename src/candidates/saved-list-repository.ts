import type { Collection, Db } from 'mongodb';
import { thenAdvanceReadEpoch } from '../cache/read-epoch';
import { findOneDecodedOnce } from '../store/decode-once';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate } from '../store/duplicate-key';
import type { SavedListDoc } from 'candidate-documents';

/** The `savedLists` collection. A list keeps its candidates in the order they were saved. */
export class SavedListRepository {
  private readonly collection: Collection<SavedListDoc>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<SavedListDoc>(CANDIDATE_COLLECTIONS.savedLists);
  }

  async findByPublicId(publicId: string): Promise<SavedListDoc | null> {
    return findOneDecodedOnce(this.collection, { publicId }, { projection: { _id: 0 } });
  }

  async insert(savedList: SavedListDoc): Promise<void> {
    await thenAdvanceReadEpoch(this.db, () =>
      conflictOnDuplicate(
        () => this.collection.insertOne({ ...savedList, candidatePublicIds: [...savedList.candidatePublicIds] }),
        'A saved list with this public id already exists.',
      ),
    );
  }
}
