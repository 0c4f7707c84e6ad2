import type { Db } from 'mongodb';
import { API_KEY_COLLECTION, apiKeyIndexes } from '../auth/api-key-indexes';
import { AUDIT_COLLECTION, auditIndexes } from '../audit/audit-indexes';
import {
  CANDIDATE_COLLECTIONS,
  candidateIndexes,
  candidateSecureDeleteCollections,
  supersededCandidateIndexes,
  supersededIdentityIndexes,
} from '../candidates/candidate-indexes';
import { CHANGE_COLLECTIONS, changeIndexes } from '../changes/change-indexes';
import { PERSISTED_QUERY_COLLECTION, persistedQueryIndexes } from '../persisted-queries/persisted-query-indexes';
import { PUBLISHED_OPERATION_COLLECTION, publishedOperationIndexes } from '../operations/published-operation-indexes';
import { RATE_LIMIT_COLLECTION, rateLimitIndexes } from '../rate-limit/rate-limit-indexes';
import { REFERENCE_DATA_COLLECTIONS, referenceIndexes } from '../reference/reference-indexes';
import { IDEMPOTENCY_COLLECTION, idempotencyIndexes } from '../idempotency/idempotency-indexes';
import { PRIVACY_LEDGER_COLLECTIONS, privacyLedgerIndexes } from '../statistics/privacy-ledger-repository';
import { statisticsIndexes, supersededStatisticsIndexes } from '../statistics/statistics-indexes';
import { WEBHOOK_COLLECTIONS, webhookIndexes } from '../webhooks/webhook-indexes';
import * as store from '../store/indexes';
import { ensureSecureDeleteCollections } from '../store/secure-delete';
import type { IndexSpec, SupersededIndex } from '../store/indexes';

/**
 * Composition root of the data model: every area declares its own collections and indexes
 * (`src/<area>/*-indexes.ts`), this module gathers them for the start (main.ts) and the CLIs,
 * and src/store/indexes.ts creates them without knowing any area.
 */

/**
 * Names of every collection. They are part of the operator contract (backups, a real
 * MongoDB prepared by hand, monitoring), so they never change silently.
 */
export const COLLECTIONS = {
  candidates: CANDIDATE_COLLECTIONS.candidates,
  candidateIdentities: CANDIDATE_COLLECTIONS.candidateIdentities,
  candidateIdentityKeys: CANDIDATE_COLLECTIONS.candidateIdentityKeys,
  countries: REFERENCE_DATA_COLLECTIONS.countries,
  languages: REFERENCE_DATA_COLLECTIONS.languages,
  languageLevels: REFERENCE_DATA_COLLECTIONS.languageLevels,
  occupations: REFERENCE_DATA_COLLECTIONS.occupations,
  educationLevels: REFERENCE_DATA_COLLECTIONS.educationLevels,
  educationMajors: REFERENCE_DATA_COLLECTIONS.educationMajors,
  jobOpportunities: CANDIDATE_COLLECTIONS.jobOpportunities,
  savedLists: CANDIDATE_COLLECTIONS.savedLists,
  savedSearches: CANDIDATE_COLLECTIONS.savedSearches,
  offers: CANDIDATE_COLLECTIONS.offers,
  apiKeys: API_KEY_COLLECTION,
  idempotencyKeys: IDEMPOTENCY_COLLECTION,
  rateLimits: RATE_LIMIT_COLLECTION,
  auditEvents: AUDIT_COLLECTION,
  persistedQueries: PERSISTED_QUERY_COLLECTION,
  statisticsBudgets: PRIVACY_LEDGER_COLLECTIONS.budgets,
  statisticsAnswers: PRIVACY_LEDGER_COLLECTIONS.answers,
  changeEvents: CHANGE_COLLECTIONS.changeEvents,
  webhooks: WEBHOOK_COLLECTIONS.webhooks,
  webhookDeliveries: WEBHOOK_COLLECTIONS.webhookDeliveries,
  publishedOperations: PUBLISHED_OPERATION_COLLECTION,
} as const;
export type CollectionName = (typeof COLLECTIONS)[keyof typeof COLLECTIONS];

/** Every index the repositories rely on, for every collection. */
export const INDEXES: readonly IndexSpec[] = [
  ...candidateIndexes,
  ...referenceIndexes,
  ...apiKeyIndexes,
  ...idempotencyIndexes,
  ...rateLimitIndexes,
  ...auditIndexes,
  ...persistedQueryIndexes,
  ...webhookIndexes,
  ...publishedOperationIndexes,
  ...statisticsIndexes(COLLECTIONS.candidates),
  ...privacyLedgerIndexes,
  ...changeIndexes,
];

/**
 * Indexes earlier releases created that INDEXES no longer has: searches bounded by status (now
 * by `listed`), the search order alone (every search now names `listed`), and the statistics
 * indexes led by status. Dropped by name at start, so that an existing data directory or
 * database does not keep maintaining them (memory, and work on every write).
 */
export const SUPERSEDED_INDEXES: readonly SupersededIndex[] = [
  ...supersededCandidateIndexes,
  ...supersededIdentityIndexes,
  ...supersededStatisticsIndexes(COLLECTIONS.candidates),
];

/** Drops the indexes of SUPERSEDED_INDEXES (or of `superseded`) that exist; idempotent. */
export function dropSupersededIndexes(
  db: Db,
  superseded: readonly SupersededIndex[] = SUPERSEDED_INDEXES,
): Promise<void> {
  return store.dropSupersededIndexes(db, superseded);
}

/** Collections whose deleted documents must leave no bytes on the disk (src/store/secure-delete.ts). */
export const SECURE_DELETE_COLLECTIONS: readonly string[] = [...candidateSecureDeleteCollections];

/**
 * Creates every index of INDEXES (or of `indexes`); idempotent (src/store/indexes.ts). The
 * secure-delete collections are created first, as such, where the store can have them.
 */
export async function ensureIndexes(db: Db, indexes: readonly IndexSpec[] = INDEXES): Promise<void> {
  await ensureSecureDeleteCollections(db, SECURE_DELETE_COLLECTIONS);
  await store.ensureIndexes(db, indexes);
}
