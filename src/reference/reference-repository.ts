import type { Db, Filter } from 'mongodb';
import { REFERENCE_DATA_COLLECTIONS } from './reference-indexes';
import {
  REFERENCE_COLLECTIONS,
  type CountryDoc,
  type EducationLevelDoc,
  type EducationMajorDoc,
  type LanguageDoc,
  type LanguageLevelDoc,
  type OccupationDoc,
} from './reference-data';

/** The document type of each reference collection, by collection name. */
export interface ReferenceDocs {
  countries: CountryDoc;
  languages: LanguageDoc;
  languageLevels: LanguageLevelDoc;
  occupations: OccupationDoc;
  educationLevels: EducationLevelDoc;
  educationMajors: EducationMajorDoc;
}
export type ReferenceCollection = keyof ReferenceDocs;

/** The names of the reference collections (also their keys in REFERENCE_DATA_COLLECTIONS). */
export const REFERENCE_COLLECTION_NAMES = Object.keys(REFERENCE_COLLECTIONS) as ReferenceCollection[];

/** The type of the unique key of a reference collection: what candidates store and loaders look up. */
export type ReferenceKey<C extends ReferenceCollection> = ReferenceDocs[C][Extract<
  (typeof REFERENCE_COLLECTIONS)[C]['keyField'],
  keyof ReferenceDocs[C]
>];

/** The name of the unique key field of a reference collection. */
export function referenceKeyField(collection: ReferenceCollection): string {
  return REFERENCE_COLLECTIONS[collection].keyField;
}

export interface ReferenceListOptions {
  /** Case-insensitive part of the name, or the exact key. */
  search?: string;
  limit?: number;
}

/** Read access to the reference collections (countries, languages, occupations, …). */
export class ReferenceRepository {
  constructor(private readonly db: Db) {}

  /** The documents of these keys that exist, in no particular order (loaders order them). */
  async findByKeys<C extends ReferenceCollection>(
    collection: C,
    keys: readonly ReferenceKey<C>[],
  ): Promise<ReferenceDocs[C][]> {
    if (keys.length === 0) return [];
    const field = referenceKeyField(collection);
    return this.collectionOf(collection)
      .find({ [field]: { $in: [...keys] } } as Filter<ReferenceDocs[C]>, { projection: { _id: 0 } })
      .toArray() as Promise<ReferenceDocs[C][]>;
  }

  /** The documents of one collection in key order, optionally narrowed by a search. */
  async list<C extends ReferenceCollection>(
    collection: C,
    options: ReferenceListOptions = {},
  ): Promise<ReferenceDocs[C][]> {
    const field = referenceKeyField(collection);
    const filter: Record<string, unknown> = {};
    const search = options.search?.trim();
    if (search) {
      const alternatives: Record<string, unknown>[] = [{ name: { $regex: escapeRegExp(search), $options: 'i' } }];
      const key = keyFromText(collection, search);
      if (key !== undefined) alternatives.push({ [field]: key });
      filter.$or = alternatives;
    }
    return this.collectionOf(collection)
      .find(filter as Filter<ReferenceDocs[C]>, {
        projection: { _id: 0 },
        sort: { [field]: 1 },
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
      })
      .toArray() as Promise<ReferenceDocs[C][]>;
  }

  private collectionOf<C extends ReferenceCollection>(collection: C) {
    return this.db.collection<ReferenceDocs[C]>(REFERENCE_DATA_COLLECTIONS[collection]);
  }
}

/** The key a search text stands for, in the key's stored form (codes in their usual case). */
function keyFromText(collection: ReferenceCollection, text: string): string | number | undefined {
  switch (collection) {
    case 'countries':
      return /^[A-Za-z]{2}$/.test(text) ? text.toUpperCase() : undefined;
    case 'languages':
      return /^[A-Za-z]{2,3}$/.test(text) ? text.toLowerCase() : undefined;
    case 'occupations':
      return /^\d{4}$/.test(text) ? text : undefined;
    case 'languageLevels':
    case 'educationLevels':
    case 'educationMajors':
      return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
