import type { Collection, Db, Filter } from 'mongodb';
import { thenAdvanceReadEpoch } from '../cache/read-epoch';
import { findOneDecodedOnce } from '../store/decode-once';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate } from '../store/duplicate-key';
import type { SavedListDoc } from 'candidate-documents';

/**
 * Whose lists a read may see: the lists loaded with the data and those of `keyId`, or every
 * list (`all`, an ADMIN key). Absent: every list (the store's own tools, the loaders of data).
 */
export interface ListReader {
  keyId: string;
  all: boolean;
}

/** The `savedLists` collection. A list keeps its candidates in the order they were saved. */
export class SavedListRepository {
  private readonly collection: Collection<SavedListDoc>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<SavedListDoc>(CANDIDATE_COLLECTIONS.savedLists);
  }

  async findByPublicId(publicId: string, reader?: ListReader): Promise<SavedListDoc | null> {
    return findOneDecodedOnce(this.collection, { publicId, ...readable(reader) }, { projection: { _id: 0 } });
  }

  /**
   * The candidates of the lists of these public ids that `reader` may see, each once, in no
   * particular order (an unknown id, or one of a list it may not see, has none).
   */
  async candidatesOf(publicIds: readonly string[], reader?: ListReader): Promise<string[]> {
    if (publicIds.length === 0) return [];
    const lists = await this.collection
      .find(
        { publicId: { $in: [...publicIds] }, ...readable(reader) },
        { projection: { _id: 0, candidatePublicIds: 1 } },
      )
      .toArray();
    return [...new Set(lists.flatMap((list) => list.candidatePublicIds))];
  }

  /** The lists `reader` may see, without their members: those loaded with the data first, then by creation. */
  listReadable(reader: ListReader): Promise<(Omit<SavedListDoc, 'candidatePublicIds'> & { size: number })[]> {
    return this.collection
      .aggregate<Omit<SavedListDoc, 'candidatePublicIds'> & { size: number }>([
        { $match: readable(reader) },
        { $sort: { createdDate: 1, publicId: 1 } },
        {
          $project: {
            _id: 0,
            publicId: 1,
            name: 1,
            createdDate: 1,
            ownerKeyId: 1,
            updatedDate: 1,
            size: { $size: '$candidatePublicIds' },
          },
        },
      ])
      .toArray();
  }

  countOwnedBy(keyId: string): Promise<number> {
    return this.collection.countDocuments({ ownerKeyId: keyId });
  }

  async insert(savedList: SavedListDoc): Promise<void> {
    await thenAdvanceReadEpoch(this.db, () =>
      conflictOnDuplicate(
        () => this.collection.insertOne({ ...savedList, candidatePublicIds: [...savedList.candidatePublicIds] }),
        'A saved list with this public id already exists.',
      ),
    );
  }

  /**
   * Appends the candidates not in the partner's list yet, in the order given, unless the list
   * would then hold more than `maxSize`: null when no partner list has the id (a list loaded with
   * the data is never changed here), `full` when it would grow past `maxSize`.
   */
  async append(
    publicId: string,
    candidatePublicIds: readonly string[],
    maxSize: number,
    updatedDate: Date,
  ): Promise<SavedListDoc | 'full' | null> {
    return thenAdvanceReadEpoch(this.db, async () => {
      const current = await this.collection.findOne({ publicId, ownerKeyId: { $exists: true } });
      if (current === null) return null;
      const present = new Set(current.candidatePublicIds);
      const added = candidatePublicIds.filter((id) => !present.has(id));
      if (current.candidatePublicIds.length + added.length > maxSize) return 'full';
      if (added.length === 0) return withoutId(current);
      // Guarded by the size that was checked: a concurrent change makes this match nothing and try again.
      const updated = await this.collection.findOneAndUpdate(
        { publicId, ownerKeyId: { $exists: true }, candidatePublicIds: { $size: current.candidatePublicIds.length } },
        { $push: { candidatePublicIds: { $each: added } }, $set: { updatedDate } },
        { returnDocument: 'after', projection: { _id: 0 } },
      );
      return updated ?? this.append(publicId, candidatePublicIds, maxSize, updatedDate);
    });
  }

  /** Removes these candidates from the partner's list; null when no partner list has the id. */
  remove(publicId: string, candidatePublicIds: readonly string[], updatedDate: Date): Promise<SavedListDoc | null> {
    return thenAdvanceReadEpoch(this.db, () =>
      this.collection.findOneAndUpdate(
        { publicId, ownerKeyId: { $exists: true } },
        { $pull: { candidatePublicIds: { $in: [...candidatePublicIds] } }, $set: { updatedDate } },
        { returnDocument: 'after', projection: { _id: 0 } },
      ),
    );
  }

  /** Renames the partner's list; null when no partner list has the id. */
  rename(publicId: string, name: string, updatedDate: Date): Promise<SavedListDoc | null> {
    return thenAdvanceReadEpoch(this.db, () =>
      this.collection.findOneAndUpdate(
        { publicId, ownerKeyId: { $exists: true } },
        { $set: { name, updatedDate } },
        { returnDocument: 'after', projection: { _id: 0 } },
      ),
    );
  }

  /** Deletes the partner's list; null when no partner list has the id. */
  delete(publicId: string): Promise<SavedListDoc | null> {
    return thenAdvanceReadEpoch(this.db, () =>
      this.collection.findOneAndDelete({ publicId, ownerKeyId: { $exists: true } }, { projection: { _id: 0 } }),
    );
  }
}

function readable(reader: ListReader | undefined): Filter<SavedListDoc> {
  if (reader === undefined || reader.all) return {};
  return { $or: [{ ownerKeyId: { $exists: false } }, { ownerKeyId: reader.keyId }] };
}

function withoutId(doc: SavedListDoc & { _id?: unknown }): SavedListDoc {
  const { _id: _ignored, ...rest } = doc;
  return rest;
}
