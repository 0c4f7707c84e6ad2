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

  /** The candidates of the lists of these public ids, each once, in no particular order (an unknown id has none). */
  async candidatesOf(publicIds: readonly string[]): Promise<string[]> {
    if (publicIds.length === 0) return [];
    const lists = await this.collection
      .find({ publicId: { $in: [...publicIds] } }, { projection: { _id: 0, candidatePublicIds: 1 } })
      .toArray();
    return [...new Set(lists.flatMap((list) => list.candidatePublicIds))];
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
