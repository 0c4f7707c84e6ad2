import type { Db, IndexDescription } from 'mongodb';
import { apiKeyIndexes } from '../auth/api-key-indexes';
import { IDEMPOTENCY_COLLECTION, idempotencyIndexes } from '../rest/idempotency-indexes';
import { RATE_LIMIT_COLLECTION, rateLimitIndexes } from '../rate-limit/rate-limit-indexes';
import { AUDIT_COLLECTION, auditIndexes } from '../audit/audit-indexes';
import { PERSISTED_QUERY_COLLECTION, persistedQueryIndexes } from '../persisted-queries/persisted-query-indexes';
import { statisticsIndexes, supersededStatisticsIndexes } from '../statistics/statistics-indexes';
import { ConflictError } from '../errors';

/**
 * Names of every collection. They are part of the operator contract (backups, a real
 * MongoDB prepared by hand, monitoring), so they never change silently.
 */
export const COLLECTIONS = {
  candidates: 'candidates',
  candidateIdentities: 'candidateIdentities',
  countries: 'countries',
  languages: 'languages',
  languageLevels: 'languageLevels',
  occupations: 'occupations',
  educationLevels: 'educationLevels',
  educationMajors: 'educationMajors',
  jobOpportunities: 'jobOpportunities',
  savedLists: 'savedLists',
  offers: 'offers',
  apiKeys: 'apiKeys',
  idempotencyKeys: IDEMPOTENCY_COLLECTION,
  rateLimits: RATE_LIMIT_COLLECTION,
  auditEvents: AUDIT_COLLECTION,
  persistedQueries: PERSISTED_QUERY_COLLECTION,
} as const;
export type CollectionName = (typeof COLLECTIONS)[keyof typeof COLLECTIONS];

/**
 * One index: its collection, key pattern and options as `createIndex` takes them. The name
 * is explicit, so that an operator can recognise the index and a changed key fails loudly.
 * (Same shape as `apiKeyIndexes`.)
 */
export interface IndexSpec {
  readonly collection: string;
  readonly key: Readonly<Record<string, 1 | -1>>;
  readonly options: { readonly name: string; readonly unique?: boolean; readonly expireAfterSeconds?: number };
}

const OCCUPATION_PATH = 'candidateOccupations.occupation.isco08Code';

/**
 * The index of searches filtered on `fields`: those, then `listed`, then the search order. A
 * search names exact values for all of them (candidate-repository's searchQuery), so it reads
 * one sorted stretch per combination of values, merged in search order.
 */
function searchIndex(fields: readonly string[]): IndexSpec {
  const key: Record<string, 1> = {};
  for (const field of [...fields, 'listed', 'createdDate', 'publicId']) key[field] = 1;
  const name = ['candidates_search', ...fields.map((field) => (field === OCCUPATION_PATH ? 'occupation' : field.replace(/IsoCode$/, ''))), 'listed'].join('_');
  return { collection: COLLECTIONS.candidates, key, options: { name } };
}

/** Every index the repositories rely on, for every collection. */
export const INDEXES: readonly IndexSpec[] = [
  // candidates
  { collection: COLLECTIONS.candidates, key: { publicId: 1 }, options: { name: 'candidates_publicId_unique', unique: true } },
  // Every search filter combination, with or without includeEmployed: a page is one ordered
  // walk of one index (merged over the filter's values), skipped on index keys, and its count
  // comes from index keys alone, however many candidates match.
  searchIndex([]),
  searchIndex(['countryIsoCode']),
  searchIndex(['nationalityIsoCode']),
  searchIndex([OCCUPATION_PATH]),
  searchIndex(['countryIsoCode', 'nationalityIsoCode']),
  searchIndex(['countryIsoCode', OCCUPATION_PATH]),
  searchIndex(['nationalityIsoCode', OCCUPATION_PATH]),
  searchIndex(['countryIsoCode', 'nationalityIsoCode', OCCUPATION_PATH]),

  // candidateIdentities: the unique e-mail is what detects a duplicate registration.
  { collection: COLLECTIONS.candidateIdentities, key: { emailNormalised: 1 }, options: { name: 'candidateIdentities_emailNormalised_unique', unique: true } },
  { collection: COLLECTIONS.candidateIdentities, key: { candidatePublicId: 1 }, options: { name: 'candidateIdentities_candidatePublicId_unique', unique: true } },

  // reference data: one unique key each
  { collection: COLLECTIONS.countries, key: { isoCode: 1 }, options: { name: 'countries_isoCode_unique', unique: true } },
  { collection: COLLECTIONS.languages, key: { isoCode: 1 }, options: { name: 'languages_isoCode_unique', unique: true } },
  { collection: COLLECTIONS.languageLevels, key: { level: 1 }, options: { name: 'languageLevels_level_unique', unique: true } },
  { collection: COLLECTIONS.occupations, key: { isco08Code: 1 }, options: { name: 'occupations_isco08Code_unique', unique: true } },
  { collection: COLLECTIONS.educationLevels, key: { level: 1 }, options: { name: 'educationLevels_level_unique', unique: true } },
  { collection: COLLECTIONS.educationMajors, key: { id: 1 }, options: { name: 'educationMajors_id_unique', unique: true } },

  { collection: COLLECTIONS.jobOpportunities, key: { publicId: 1 }, options: { name: 'jobOpportunities_publicId_unique', unique: true } },
  { collection: COLLECTIONS.savedLists, key: { publicId: 1 }, options: { name: 'savedLists_publicId_unique', unique: true } },
  { collection: COLLECTIONS.offers, key: { publicId: 1 }, options: { name: 'offers_publicId_unique', unique: true } },
  { collection: COLLECTIONS.offers, key: { apiKeyId: 1 }, options: { name: 'offers_apiKeyId' } },

  ...apiKeyIndexes,
  ...idempotencyIndexes,
  ...rateLimitIndexes,
  ...auditIndexes,
  ...persistedQueryIndexes,
  ...statisticsIndexes(COLLECTIONS.candidates),
];

/**
 * Indexes earlier releases created that INDEXES no longer has: searches bounded by status (now
 * by `listed`), the search order alone (every search now names `listed`), and the statistics
 * indexes led by status. Dropped by name at start, so that an existing data directory or
 * database does not keep maintaining them (memory, and work on every write).
 */
export const SUPERSEDED_INDEXES: readonly { readonly collection: string; readonly name: string }[] = [
  ...[
    'candidates_search_status',
    'candidates_search_country_status',
    'candidates_search_nationality_status',
    'candidates_search_occupation_status',
    'candidates_search_country_nationality_status',
    'candidates_search_country_occupation_status',
    'candidates_search_nationality_occupation_status',
    'candidates_search_country_nationality_occupation_status',
    'candidates_createdDate_publicId',
  ].map((name) => ({ collection: COLLECTIONS.candidates, name })),
  ...supersededStatisticsIndexes(COLLECTIONS.candidates),
];

/** Drops the indexes of SUPERSEDED_INDEXES that exist; idempotent. */
export async function dropSupersededIndexes(db: Db, superseded = SUPERSEDED_INDEXES): Promise<void> {
  for (const { collection, name } of superseded) {
    await db
      .collection(collection)
      .dropIndex(name)
      .catch((error: unknown) => {
        // IndexNotFound (27), NamespaceNotFound (26): nothing to drop.
        const code = (error as { code?: unknown }).code;
        if (code !== 27 && code !== 26) throw error;
      });
  }
}

/**
 * Creates every index of INDEXES, once per collection. Idempotent: an index that already
 * exists with the same name and key is left alone. An index of the same name with another
 * key or options makes this throw (the server's IndexOptionsConflict / IndexKeySpecsConflict):
 * such drift is for an operator to resolve, never silently dropped at start.
 */
export async function ensureIndexes(db: Db, indexes: readonly IndexSpec[] = INDEXES): Promise<void> {
  const byCollection = new Map<string, IndexDescription[]>();
  for (const spec of indexes) {
    const descriptions = byCollection.get(spec.collection) ?? [];
    descriptions.push({ ...spec.options, key: { ...spec.key } });
    byCollection.set(spec.collection, descriptions);
  }
  for (const [collection, descriptions] of byCollection) {
    await db.collection(collection).createIndexes(descriptions);
  }
}

/** True for a MongoDB duplicate-key error (E11000), single write or bulk write. */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, writeErrors } = error as { code?: unknown; writeErrors?: unknown };
  if (code === 11000 || code === 11001) return true;
  return Array.isArray(writeErrors) && writeErrors.some((w) => (w as { code?: unknown })?.code === 11000);
}

/**
 * Runs a write and turns a duplicate-key error into a ConflictError carrying `message`
 * (shown to callers). The cause names only the index: the driver's own message also holds
 * the duplicate value, which may be personal data (an e-mail) and must not reach the logs.
 */
export async function conflictOnDuplicate<T>(write: () => Promise<T>, message: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    throw new ConflictError(message, { cause: new Error(`duplicate key on index ${duplicateIndexName(error)}`) });
  }
}

function duplicateIndexName(error: unknown): string {
  const message = (error as { message?: unknown }).message;
  const text = typeof message === 'string' ? message : '';
  return /index: ([A-Za-z0-9_.$-]+)/.exec(text)?.[1] ?? '(unknown)';
}
