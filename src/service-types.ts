import type { Clock } from './common/clock';
import type { AuditService } from './audit/audit-service';
import type { ApiKeyService } from './auth/api-key-service';
import type { PublishedOperationService } from './operations/published-operation-service';
import type { CoalescedFetch } from './cache/coalesced-fetch';
import type { EpochCache } from './cache/epoch-cache';
import type { ReadEpoch } from './cache/read-epoch';
import type { CandidateDoc, JobOpportunityDoc } from 'candidate-documents';
import type { CandidateQueryService } from './candidates/candidate-query-service';
import type { CandidateRepository } from './candidates/candidate-repository';
import type { SavedListService } from './candidates/saved-list-service';
import type { SavedSearchService } from './candidates/saved-search-service';
import type { JobOpportunityRepository } from './candidates/job-opportunity-repository';
import type { OfferService } from './candidates/offer-service';
import type { RegistrationService } from './candidates/registration-service';
import type { PersistedQueryStore } from './persisted-queries/persisted-query-store';
import type { RateLimiter } from './rate-limit/rate-limiter';
import type { ReferenceCache } from './reference/reference-cache';
import type { ReferenceRepository } from './reference/reference-repository';
import type { ReferenceService } from './reference/reference-service';
import type { StatisticsService } from './statistics/statistics-service';
import type { CandidateChangeService } from './changes/candidate-change-service';
import type { ErasureService } from './changes/erasure-service';
import type { WebhookService } from './webhooks/webhook-service';

/*
 * The types of the core: what the transports (src/graphql/, src/rest/) are handed. The core is
 * built by createServices (services.ts, the composition root), which the transports never import.
 */

/** The repositories, built once per process over the one database handle. */
export interface Repositories {
  readonly candidates: CandidateRepository;
  readonly jobOpportunities: JobOpportunityRepository;
  readonly reference: ReferenceRepository;
  /** The reference data read once at start (src/reference/reference-cache.ts): what the loaders look up. */
  readonly referenceCache: ReferenceCache;
  /** Candidates and job opportunities by publicId, kept between requests under the read epoch (src/cache/). */
  readonly candidateCache: EpochCache<string, CandidateDoc>;
  readonly jobOpportunityCache: EpochCache<string, JobOpportunityDoc>;
  /** What the loaders do not find in the caches, fetched for all concurrent requests at once (src/cache/coalesced-fetch.ts). */
  readonly candidateFetch: CoalescedFetch<CandidateDoc>;
  readonly jobOpportunityFetch: CoalescedFetch<JobOpportunityDoc>;
  /** The same fetches as stored bytes, for the REST reads written from them (src/rest/transcoder/). */
  readonly candidateRawFetch: CoalescedFetch<Uint8Array>;
  readonly jobOpportunityRawFetch: CoalescedFetch<Uint8Array>;
  /** Job opportunities as stored bytes, kept like jobOpportunityCache (a page of candidates joins the same few). */
  readonly jobOpportunityRawCache: EpochCache<string, Uint8Array>;
}

/** The core: every rule of the product. Both transports call these and nothing else. */
export interface Services {
  readonly repositories: Repositories;
  readonly apiKeys: ApiKeyService;
  readonly candidateQueries: CandidateQueryService;
  /** searches saved by API keys, run by candidateQueries (`savedSearch`) */
  readonly savedSearches: SavedSearchService;
  /** partners' own saved lists (the lists of the data are read through candidateQueries) */
  readonly savedLists: SavedListService;
  readonly offers: OfferService;
  readonly registration: RegistrationService;
  readonly reference: ReferenceService;
  /** read and write budgets per API key, shared by every instance */
  readonly rateLimits: RateLimiter;
  /** aggregate statistics under differential privacy, with a budget per key (READ_STATISTICS) */
  readonly statistics: StatisticsService;
  /** the append-only trail of authenticated requests */
  readonly audit: AuditService;
  /** the change feed of candidates (candidateChanges), read from the change-event outbox */
  readonly candidateChanges: CandidateChangeService;
  /** erasure of candidates (ADMIN) */
  readonly erasure: ErasureService;
  /** the store's read epoch: what every cached read is validated against (src/cache/read-epoch.ts) */
  readonly readEpoch: ReadEpoch;
  /** the automatic persisted queries of /graphql, shared by every instance */
  readonly persistedQueries: PersistedQueryStore;
  /** webhooks: registration by ADMIN, delivery state (the dispatcher is started by main.ts) */
  readonly webhooks: WebhookService;
  /** operations published for keys whose policy is `published` (trusted documents) */
  readonly publishedOperations: PublishedOperationService;
  /** what every rule above reads the time from (src/common/clock.ts) */
  readonly clock: Clock;
}
