import type { Collection, Db, Document } from 'mongodb';
import type { StoredCandidateDoc } from 'candidate-documents';
import { searchQuery, type ResolvedSearchFilter } from '../candidates/candidate-repository';
import { CANDIDATE_COLLECTIONS } from '../candidates/candidate-indexes';
import type { StoredKey } from './dimensions';

/** One combination of stored values (null: none) and how many candidates have it. */
export interface GroupCount {
  values: unknown[];
  count: number;
}

/**
 * Counts of candidates computed in the store (an aggregation; never candidates read into the
 * service). Filters select exactly what a search selects (candidate-repository's searchQuery).
 */
export class StatisticsRepository {
  private readonly collection: Collection<StoredCandidateDoc>;

  constructor(db: Db) {
    this.collection = db.collection<StoredCandidateDoc>(CANDIDATE_COLLECTIONS.candidates);
  }

  /** The number of candidates the filter selects. */
  async count(filter: ResolvedSearchFilter): Promise<number> {
    return this.collection.countDocuments(searchQuery(filter));
  }

  /**
   * Candidates per combination of the keys' values: each candidate once per distinct
   * combination (a multi-valued key contributes each value of the candidate's stored statistics
   * list, already distinct and capped: candidate-documents), missing values and empty lists as
   * null. Only non-empty combinations are returned, in no particular order.
   */
  async groupCounts(filter: ResolvedSearchFilter, keys: readonly StoredKey[]): Promise<GroupCount[]> {
    const names = keys.map((_key, i) => `k${i}`);
    const groups = await this.collection
      .aggregate<{ _id: Record<string, unknown>; count: number }>(groupingPipeline(filter, keys, names))
      .toArray();
    return groups.map((group) => ({ values: names.map((name) => group._id[name] ?? null), count: group.count }));
  }
}

/**
 * Without a multi-valued key: one `$group` of the matched candidates. With one: `$unwind` the
 * stored statistics list (keeping candidates without elements), one group per candidate and
 * combination, then the count per combination. These are the shapes the embedded store answers
 * from index entries alone (its covered-group.ts) where indexes of statistics-indexes.ts hold the
 * keys; MongoDB runs them as they are. Bounded contribution needs no stage here: the lists are
 * capped when a candidate is written, and a stage cutting them would defeat the covered path.
 */
export function groupingPipeline(
  filter: ResolvedSearchFilter,
  keys: readonly StoredKey[],
  names: readonly string[],
): Document[] {
  const valueOf = (key: StoredKey): Document =>
    key.year ? { $year: `$${key.path}` } : { $ifNull: [`$${key.path}`, null] };
  const byKey = Object.fromEntries(keys.map((key, i) => [names[i], valueOf(key)]));
  const match = { $match: searchQuery(filter) };
  const arrays = [...new Set(keys.flatMap((key) => (key.array ? [key.array] : [])))];
  if (arrays.length === 0) return [match, { $group: { _id: byKey, count: { $sum: 1 } } }];
  return [
    match,
    ...arrays.map((array) => ({ $unwind: { path: `$${array}`, preserveNullAndEmptyArrays: true } })),
    { $group: { _id: { candidate: '$_id', ...byKey } } },
    { $group: { _id: Object.fromEntries(names.map((name) => [name, `$_id.${name}`])), count: { $sum: 1 } } },
  ];
}
