import type { Collection, Db, Filter, ObjectId } from 'mongodb';
import { thenAdvanceReadEpoch } from '../cache/read-epoch';
import { findDecodedOnce, findOneDecodedOnce, findRaw } from '../store/decode-once';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate } from '../store/duplicate-key';
import {
  SEARCH_FIELD_NAMES,
  searchFieldsOf,
  statisticsListsOf,
  type CandidateDoc,
  type StoredCandidateDoc,
} from 'candidate-documents';
import { occupationNameOf, storedCandidate } from './stored-candidate';
import {
  andAlso,
  CANDIDATE_ORDER,
  exclusionSplit,
  RELEVANCE_ORDER,
  searchQuery,
  type CandidateOrder,
  type ResolvedSearchFilter,
} from './search-query';

export {
  CANDIDATE_ORDER,
  RELEVANCE_ORDER,
  searchQuery,
  type CandidateSearchFilter,
  type LanguageCondition,
  type ResolvedSearchFilter,
} from './search-query';

export interface PageRequest {
  skip: number;
  limit: number;
}

/** Position in the search order, as carried by a cursor. */
export interface CandidatePosition {
  createdDate: Date;
  publicId: string;
}

/** Every field of the read model: neither `_id` nor the stored-only derived fields (DerivedCandidateFields). */
const READ_MODEL: Record<string, 0> = {
  _id: 0,
  listed: 0,
  statisticsOccupations: 0,
  statisticsLanguages: 0,
  ...Object.fromEntries(SEARCH_FIELD_NAMES.map((name) => [name, 0])),
};

/** Candidates given their derived fields per write of a backfill. */
const BACKFILL_BATCH = 1000;

/** The `candidates` collection: the anonymised read model. */
export class CandidateRepository {
  private readonly collection: Collection<StoredCandidateDoc>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<StoredCandidateDoc>(CANDIDATE_COLLECTIONS.candidates);
  }

  /**
   * Sets `listed` on the candidates stored without it (data written before the field existed).
   * Idempotent: when the listed and unlisted candidates (two counts of index keys) are all of
   * them, nothing is written. Returns how many candidates it changed.
   */
  async backfillListed(): Promise<number> {
    const { collection } = this;
    const [all, listed, unlisted] = await Promise.all([
      collection.countDocuments({}),
      collection.countDocuments({ listed: true }),
      collection.countDocuments({ listed: false }),
    ]);
    if (listed + unlisted === all) return 0;
    const missing = { listed: { $exists: false } } as const;
    const hidden = await collection.updateMany({ ...missing, status: 'EMPLOYED' }, { $set: { listed: false } });
    const shown = await collection.updateMany(missing, { $set: { listed: true } });
    return hidden.modifiedCount + shown.modifiedCount;
  }

  /**
   * Sets `statisticsOccupations` and `statisticsLanguages` (statisticsListsOf) on the candidates
   * stored without them (data written before the fields existed), in batches. Idempotent: a
   * candidate that has both is not written again. Returns how many candidates it changed.
   *
   * With `doneWhenIndexed`, the name of an index of the lists that the start creates only after
   * this has run to its end: while that index exists, every candidate has the lists (each write
   * since gives them, storedCandidate), so the search for candidates without them (a scan of
   * every candidate: seconds at 100,000 on the embedded store) is not repeated at every start.
   */
  async backfillStatisticsLists(
    doneWhenIndexed?: string,
    /** candidates read and written at a time (tests pass a small one to cross batches with few candidates) */
    batchSize = BACKFILL_BATCH,
  ): Promise<number> {
    if (doneWhenIndexed !== undefined && (await this.hasIndex(doneWhenIndexed))) return 0;
    return this.backfill(
      { $or: [{ statisticsOccupations: { $exists: false } }, { statisticsLanguages: { $exists: false } }] },
      { _id: 1, candidateOccupations: 1, candidateLanguages: 1 },
      statisticsListsOf,
      batchSize,
    );
  }

  /**
   * Sets the search fields (searchFieldsOf of candidate-documents, with the names of the shipped
   * occupations) on the candidates stored without them, in batches; as backfillStatisticsLists,
   * with `doneWhenIndexed` the name of an index of those fields that the start creates after it.
   */
  async backfillSearchFields(doneWhenIndexed?: string): Promise<number> {
    if (doneWhenIndexed !== undefined && (await this.hasIndex(doneWhenIndexed))) return 0;
    return this.backfill(
      { $or: SEARCH_FIELD_NAMES.map((name) => ({ [name]: { $exists: false } })) },
      { _id: 1, candidateOccupations: 1, candidateLanguages: 1, candidateExams: 1 },
      (candidate) => searchFieldsOf(candidate, occupationNameOf),
    );
  }

  /** Sets `fieldsOf` on every candidate `missing` selects, reading only `projection`; returns how many changed. */
  private async backfill(
    missing: Filter<StoredCandidateDoc>,
    projection: Record<string, 1>,
    fieldsOf: (candidate: StoredCandidateDoc) => object,
    batchSize = BACKFILL_BATCH,
  ): Promise<number> {
    let changed = 0;
    // In `_id` order, each batch after the last: a batch does not scan again the candidates before
    // it. `$gt` compares only ids of one BSON type, so when no batch is left, one search from the
    // start makes sure that no candidate with an id of another type is left.
    let after: ObjectId | undefined;
    for (;;) {
      const query = after === undefined ? missing : { $and: [missing, { _id: { $gt: after } }] };
      const batch = await this.collection.find(query, { projection, sort: { _id: 1 }, limit: batchSize }).toArray();
      if (batch.length === 0) {
        if (after === undefined) return changed;
        after = undefined;
        continue;
      }
      after = batch[batch.length - 1]._id;
      const result = await this.collection.bulkWrite(
        batch.map((candidate) => ({
          updateOne: { filter: { _id: candidate._id }, update: { $set: fieldsOf(candidate) } },
        })),
        { ordered: false },
      );
      changed += result.modifiedCount;
    }
  }

  private async hasIndex(name: string): Promise<boolean> {
    try {
      const indexes = await this.collection.listIndexes().toArray();
      return indexes.some((index: { name?: unknown }) => index.name === name);
    } catch (error) {
      // NamespaceNotFound: no candidates collection yet, so no index either.
      if ((error as { code?: unknown }).code === 26) return false;
      throw error;
    }
  }

  /**
   * One page of matching candidates in the order asked (search order unless a keyword search is
   * ranked), and the number of all matches (counted while the page is read). With `fields`, the
   * candidates hold only those top-level fields (the caller reads nothing else), which saves
   * encoding and decoding the rest.
   */
  async search(
    filter: ResolvedSearchFilter,
    page: PageRequest,
    fields?: readonly string[],
    order: CandidateOrder = 'CREATED',
  ): Promise<{ items: CandidateDoc[]; total: number }> {
    const [items, total] = await Promise.all([
      findDecodedOnce(this.collection, searchQuery(filter), findOptions(page, fields, order)),
      this.count(filter),
    ]);
    return { items, total };
  }

  /** search, with the candidates as their stored bytes (undecoded), each holding only `fields` when given. */
  async searchRaw(
    filter: ResolvedSearchFilter,
    page: PageRequest,
    fields?: readonly string[],
    order: CandidateOrder = 'CREATED',
  ): Promise<{ items: Uint8Array[]; total: number }> {
    const [items, total] = await Promise.all([
      findRaw(this.collection, searchQuery(filter), findOptions(page, fields, order)),
      this.count(filter),
    ]);
    return { items, total };
  }

  /**
   * Up to `limit` matching candidates strictly after `after` in search order (keyset
   * pagination): a cursor stays on the same candidate while others are added before it.
   * `fields` as in search.
   */
  async searchAfter(
    filter: ResolvedSearchFilter,
    after: CandidatePosition | null,
    limit: number,
    fields?: readonly string[],
  ): Promise<CandidateDoc[]> {
    const query = searchQuery(filter);
    const keyset: Filter<StoredCandidateDoc> | null = after
      ? {
          $or: [
            { createdDate: { $gt: after.createdDate } },
            { createdDate: after.createdDate, publicId: { $gt: after.publicId } },
          ],
        }
      : null;
    return findDecodedOnce(this.collection, keyset ? andAlso(query, keyset) : query, {
      projection: projectionOf(fields),
      sort: CANDIDATE_ORDER,
      limit,
    });
  }

  /**
   * The number of candidates matching `filter` (a page's total, a connection's totalCount). An
   * exclusion by saved lists is counted as the candidates without it less the excluded ones
   * among them: two counts an index answers, where the exclusion itself is checked per candidate.
   */
  async count(filter: ResolvedSearchFilter): Promise<number> {
    const split = exclusionSplit(filter);
    if (split === undefined) return this.collection.countDocuments(searchQuery(filter));
    const [all, excluded] = await Promise.all([
      this.collection.countDocuments(searchQuery(split.without)),
      this.collection.countDocuments(split.excludedAmongThem),
    ]);
    return all - excluded;
  }

  /** The candidates of these ids that exist, in no particular order (loaders order them). */
  async findByPublicIds(publicIds: readonly string[]): Promise<CandidateDoc[]> {
    if (publicIds.length === 0) return [];
    return findDecodedOnce(
      this.collection,
      { publicId: { $in: [...publicIds] } },
      { projection: READ_MODEL, ...oneBatchFor(publicIds) },
    );
  }

  /** findByPublicIds, as stored bytes (undecoded). */
  async findRawByPublicIds(publicIds: readonly string[]): Promise<Uint8Array[]> {
    if (publicIds.length === 0) return [];
    return findRaw(
      this.collection,
      { publicId: { $in: [...publicIds] } },
      { projection: READ_MODEL, ...oneBatchFor(publicIds) },
    );
  }

  async findByPublicId(publicId: string): Promise<CandidateDoc | null> {
    return findOneDecodedOnce(this.collection, { publicId }, { projection: READ_MODEL });
  }

  /** Which of these ids belong to a candidate. */
  async findExistingPublicIds(publicIds: readonly string[]): Promise<Set<string>> {
    if (publicIds.length === 0) return new Set();
    const found = await findDecodedOnce(
      this.collection,
      { publicId: { $in: [...publicIds] } },
      { projection: { _id: 0, publicId: 1 }, ...oneBatchFor(publicIds) },
    );
    return new Set(found.map((doc) => doc.publicId));
  }

  /** Inserts one candidate; a publicId already taken is a ConflictError. */
  async insert(candidate: CandidateDoc): Promise<void> {
    await thenAdvanceReadEpoch(this.db, () =>
      conflictOnDuplicate(
        () => this.collection.insertOne(storedCandidate(candidate)),
        'A candidate with this public id already exists.',
      ),
    );
  }

  /**
   * Inserts many candidates, unordered (a duplicate does not stop the others); any
   * duplicate publicId is reported as a ConflictError after the rest are written.
   */
  async insertMany(candidates: readonly CandidateDoc[]): Promise<void> {
    if (candidates.length === 0) return;
    await thenAdvanceReadEpoch(this.db, () =>
      conflictOnDuplicate(
        () => this.collection.insertMany(candidates.map(storedCandidate), { ordered: false }),
        'A candidate with one of these public ids already exists.',
      ),
    );
  }

  /** Deletes one candidate (undoes a half-done registration); true when one was deleted. */
  async deleteByPublicId(publicId: string): Promise<boolean> {
    const result = await thenAdvanceReadEpoch(this.db, () => this.collection.deleteOne({ publicId }));
    return result.deletedCount === 1;
  }

  /** The number of candidates stored, whatever their status. */
  async countAll(): Promise<number> {
    return this.collection.countDocuments({});
  }
}

/**
 * A lookup by unique ids has at most one document per id: asking for that many in the first
 * batch answers it in one round trip (the default first batch is 101 documents, after which
 * the driver sends a getMore), so a request's commands do not depend on how many ids it looks up.
 */
export function oneBatchFor(ids: readonly unknown[]): { batchSize: number } {
  return { batchSize: Math.max(ids.length, 1) };
}

/** Only these top-level fields (never `_id`), or every field but `_id`. */
function projectionOf(fields: readonly string[] | undefined): Record<string, 0 | 1> {
  return fields === undefined ? READ_MODEL : { _id: 0, ...Object.fromEntries(fields.map((field) => [field, 1])) };
}

/** The options of a page of a search: its fields, its order, its slice. */
function findOptions(page: PageRequest, fields: readonly string[] | undefined, order: CandidateOrder) {
  return {
    projection: projectionOf(fields),
    sort: order === 'RELEVANCE' ? RELEVANCE_ORDER : CANDIDATE_ORDER,
    skip: page.skip,
    limit: page.limit,
  };
}
