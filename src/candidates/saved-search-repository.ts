import type { Collection, Db } from 'mongodb';
import { thenAdvanceReadEpoch } from '../cache/read-epoch';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate } from '../store/duplicate-key';
import type { FilterInput } from './search-input';

/** One document of `savedSearches`: a filter as its owner gave it (ages and levels are resolved when it runs). */
export interface SavedSearchDoc {
  /** a public id (candidate-documents' newPublicId) */
  id: string;
  /** the API key that saved it */
  ownerKeyId: string;
  name: string;
  filter: FilterInput;
  includeEmployed: boolean;
  createdDate: Date;
  updatedDate: Date;
}

export type SavedSearchChanges = Partial<Pick<SavedSearchDoc, 'name' | 'filter' | 'includeEmployed'>> & {
  updatedDate: Date;
};

/** The `savedSearches` collection. */
export class SavedSearchRepository {
  private readonly collection: Collection<SavedSearchDoc>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<SavedSearchDoc>(CANDIDATE_COLLECTIONS.savedSearches);
  }

  async insert(search: SavedSearchDoc): Promise<void> {
    await conflictOnDuplicate(
      () => this.collection.insertOne({ ...search }),
      'A saved search with this id already exists.',
    );
  }

  findById(id: string): Promise<SavedSearchDoc | null> {
    return this.collection.findOne({ id }, { projection: { _id: 0 } });
  }

  /** The searches of one key (every key's when `ownerKeyId` is undefined), oldest first. */
  list(ownerKeyId: string | undefined): Promise<SavedSearchDoc[]> {
    return this.collection
      .find(ownerKeyId === undefined ? {} : { ownerKeyId }, { projection: { _id: 0 } })
      .sort({ createdDate: 1, id: 1 })
      .toArray();
  }

  countOf(ownerKeyId: string): Promise<number> {
    return this.collection.countDocuments({ ownerKeyId });
  }

  /**
   * The search after the change; null when no search has the id. Changes and deletions advance
   * the read epoch: the answers kept for running a search are answers of its saved filter.
   */
  update(id: string, changes: SavedSearchChanges): Promise<SavedSearchDoc | null> {
    return thenAdvanceReadEpoch(this.db, () =>
      this.collection.findOneAndUpdate({ id }, { $set: changes }, { returnDocument: 'after', projection: { _id: 0 } }),
    );
  }

  /** True when a search was deleted. */
  async remove(id: string): Promise<boolean> {
    return thenAdvanceReadEpoch(this.db, async () => (await this.collection.deleteOne({ id })).deletedCount === 1);
  }
}
