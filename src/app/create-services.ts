import type { Db } from 'mongodb';
import { createApiKeyRepository } from '../auth/api-key-repository';
import { ApiKeyService } from '../auth/api-key-service';
import { CandidateQueryService } from '../candidates/candidate-query-service';
import { CandidateRepository } from '../candidates/candidate-repository';
import { JobOpportunityRepository } from '../candidates/job-opportunity-repository';
import { OfferRepository } from '../candidates/offer-repository';
import { OfferService } from '../candidates/offer-service';
import { RegistrationRepository } from '../candidates/registration-repository';
import { RegistrationService } from '../candidates/registration-service';
import { SavedListRepository } from '../candidates/saved-list-repository';
import { SavedListService } from '../candidates/saved-list-service';
import { SavedSearchRepository } from '../candidates/saved-search-repository';
import { SavedSearchService } from '../candidates/saved-search-service';
import { ReferenceCache } from '../reference/reference-cache';
import { ReferenceRepository } from '../reference/reference-repository';
import { ReferenceService } from '../reference/reference-service';
import { AuditRepository } from '../audit/audit-repository';
import { AuditService } from '../audit/audit-service';
import { CoalescedFetch } from '../cache/coalesced-fetch';
import { publicIdOf } from '../store/raw-bson';
import { EpochCache } from '../cache/epoch-cache';
import { ReadEpoch } from '../cache/read-epoch';
import { settings, type Config } from '../config';
import type { Services } from '../service-types';
import { systemClock, type Clock } from '../common/clock';
import { RateLimitRepository } from '../rate-limit/rate-limit-repository';
import { RateLimiter, type RateLimitBudgets } from '../rate-limit/rate-limiter';
import { withAvailability } from '../store/availability';
import { PersistedQueryRepository } from '../persisted-queries/persisted-query-repository';
import { PublishedOperationRepository } from '../operations/published-operation-repository';
import { PublishedOperationService } from '../operations/published-operation-service';
import { PersistedQueryStore, type PersistedQueryBounds } from '../persisted-queries/persisted-query-store';
import { PrivacyLedgerRepository } from '../statistics/privacy-ledger-repository';
import { StatisticsRepository } from '../statistics/statistics-repository';
import { StatisticsService, type PrivacyRules } from '../statistics/statistics-service';
import { CandidateChangeService } from '../changes/candidate-change-service';
import { ChangeEventRepository } from '../changes/change-events';
import { ErasureRepository } from '../changes/erasure-repository';
import { ErasureService } from '../changes/erasure-service';
import { erasureLogFor, type ErasureLog } from '../changes/erasure-log';
import type { EndpointPolicy } from '../webhooks/address-guard';
import { changeOutbox } from '../webhooks/outbox-source';
import { createSecretBox } from '../webhooks/secret-box';
import { WebhookRepository } from '../webhooks/webhook-repository';
import { WebhookService } from '../webhooks/webhook-service';

export interface ServiceOptions {
  /** budgets of keys without their own (RATE_LIMIT_READS / RATE_LIMIT_WRITES); absent: the settings' defaults */
  rateLimits?: RateLimitBudgets;
  /** READ_CACHE_ENTRIES: candidates, job opportunities and key records kept between requests; absent: the settings' default */
  readCacheEntries?: number;
  /** GRAPHQL_APQ_MAX_ENTRIES / GRAPHQL_APQ_TTL_SECONDS; absent: the settings' defaults */
  persistedQueries?: PersistedQueryBounds;
  /** STATISTICS_EPSILON / STATISTICS_BUDGET / STATISTICS_BUDGET_PERIOD_HOURS; absent: the settings' defaults */
  privacy?: PrivacyRules;
  /** WRITE_LEASE_MS: after this, an unfinished registration is taken for dead (crash recovery); absent: the setting's default */
  writeLeaseMs?: number;
  /** RATE_LIMIT_FLUSH_MS: buffered rate-limit counting (0: every request counted in the store); absent: the setting's default */
  rateLimitFlushMs?: number;
  /** AUDIT_FLUSH_MS: how long the first audit event of a batch waits for others; absent: the setting's default */
  auditFlushMs?: number;
  /** AUDIT_BUFFER_SIZE: audit events held in memory until stored; absent: the setting's default */
  auditBufferSize?: number;
  /** what every time-based rule reads (src/common/clock.ts); tests move it by hand; absent: the system clock */
  clock?: Clock;
  /** WEBHOOK_ALLOW_HTTP / WEBHOOK_ALLOW_PRIVATE_ADDRESSES; absent: the settings' defaults (https, public addresses only) */
  webhookEndpoints?: EndpointPolicy;
  /** WEBHOOK_SECRET_KEY: seals the webhooks' signing secrets; absent: stored unsealed */
  webhookSecretKey?: Buffer;
  /** ERASURE_LOG (erasureLogFor): where every erasure is written before it is carried out; absent: none */
  erasureLog?: ErasureLog;
}

const DEFAULT_PERSISTED_QUERIES: PersistedQueryBounds = {
  maxEntries: Number(settings.graphqlApqMaxEntries.default),
  ttlSeconds: Number(settings.graphqlApqTtlSeconds.default),
};

const DEFAULT_PRIVACY: PrivacyRules = {
  defaultEpsilon: Number(settings.statisticsEpsilon.default),
  defaultBudget: Number(settings.statisticsBudget.default),
  periodHours: Number(settings.statisticsBudgetPeriodHours.default),
};

const DEFAULT_RATE_LIMITS: RateLimitBudgets = {
  reads: Number(settings.rateLimitReads.default),
  writes: Number(settings.rateLimitWrites.default),
};

/** The options of createServices that the configuration sets: the service's, and every command-line tool's. */
export function serviceOptions(config: Config, clock: Clock = systemClock): ServiceOptions {
  const erasureLog = erasureLogFor(config);
  return {
    rateLimits: { reads: config.rateLimitReads, writes: config.rateLimitWrites },
    readCacheEntries: config.readCacheEntries,
    persistedQueries: { maxEntries: config.graphqlApqMaxEntries, ttlSeconds: config.graphqlApqTtlSeconds },
    privacy: {
      defaultEpsilon: config.statisticsEpsilon,
      defaultBudget: config.statisticsBudget,
      periodHours: config.statisticsBudgetPeriodHours,
    },
    writeLeaseMs: config.writeLeaseMs,
    rateLimitFlushMs: config.rateLimitFlushMs,
    auditFlushMs: config.auditFlushMs,
    auditBufferSize: config.auditBufferSize,
    clock,
    webhookEndpoints: {
      allowHttp: config.webhookAllowHttp,
      allowPrivateAddresses: config.webhookAllowPrivateAddresses,
    },
    webhookSecretKey: config.webhookSecretKey,
    // Every erasure, by the service or by a CLI, is logged before it is carried out.
    ...(erasureLog === undefined ? {} : { erasureLog }),
  };
}

export function createServices(db: Db, options: ServiceOptions = {}): Services {
  const clock = options.clock ?? systemClock;
  // Every repository is built through withAvailability: a database outage reaches the services
  // as a ServiceUnavailableError (503), never as a driver error (src/store/availability.ts).
  const candidates = withAvailability(new CandidateRepository(db));
  const reference = withAvailability(new ReferenceRepository(db));
  const cached = options.readCacheEntries ?? Number(settings.readCacheEntries.default);
  const referenceCache = new ReferenceCache(reference);
  const jobOpportunities = withAvailability(new JobOpportunityRepository(db));
  const savedLists = withAvailability(new SavedListRepository(db));
  const savedSearches = new SavedSearchService(withAvailability(new SavedSearchRepository(db)), referenceCache, clock);
  return {
    repositories: {
      candidates,
      reference,
      referenceCache,
      jobOpportunities,
      candidateCache: new EpochCache(cached),
      jobOpportunityCache: new EpochCache(cached),
      candidateFetch: new CoalescedFetch(
        (ids) => candidates.findByPublicIds(ids),
        (doc) => doc.publicId,
      ),
      jobOpportunityFetch: new CoalescedFetch(
        (ids) => jobOpportunities.findByPublicIds(ids),
        (doc) => doc.publicId,
      ),
      candidateRawFetch: new CoalescedFetch((ids) => candidates.findRawByPublicIds(ids), publicIdOf),
      jobOpportunityRawFetch: new CoalescedFetch((ids) => jobOpportunities.findRawByPublicIds(ids), publicIdOf),
      jobOpportunityRawCache: new EpochCache(cached),
    },
    apiKeys: new ApiKeyService(withAvailability(createApiKeyRepository(db)), clock, cached),
    candidateQueries: new CandidateQueryService(
      candidates,
      savedLists,
      Math.ceil(cached / 10),
      referenceCache,
      clock,
      savedSearches,
    ),
    savedSearches,
    savedLists: new SavedListService(savedLists, candidates, clock),
    offers: new OfferService(candidates, withAvailability(new OfferRepository(db)), clock),
    registration: new RegistrationService(
      withAvailability(
        new RegistrationRepository(db, {
          leaseMs: options.writeLeaseMs ?? Number(settings.writeLeaseMs.default),
          clock,
        }),
      ),
      referenceCache,
      clock,
    ),
    reference: new ReferenceService(reference),
    candidateChanges: new CandidateChangeService(withAvailability(new ChangeEventRepository(db))),
    erasure: new ErasureService(withAvailability(new ErasureRepository(db)), clock, options.erasureLog),
    rateLimits: new RateLimiter(
      withAvailability(new RateLimitRepository(db)),
      options.rateLimits ?? DEFAULT_RATE_LIMITS,
      clock,
      options.rateLimitFlushMs ?? Number(settings.rateLimitFlushMs.default),
    ),
    statistics: new StatisticsService(
      withAvailability(new StatisticsRepository(db)),
      withAvailability(new PrivacyLedgerRepository(db)),
      referenceCache,
      options.privacy ?? DEFAULT_PRIVACY,
      clock,
      undefined,
      savedLists,
    ),
    audit: new AuditService(withAvailability(new AuditRepository(db)), clock, {
      flushDelayMs: options.auditFlushMs ?? Number(settings.auditFlushMs.default),
      bufferSize: options.auditBufferSize ?? Number(settings.auditBufferSize.default),
    }),
    readEpoch: withAvailability(new ReadEpoch(db)),
    persistedQueries: new PersistedQueryStore(
      withAvailability(new PersistedQueryRepository(db)),
      options.persistedQueries ?? DEFAULT_PERSISTED_QUERIES,
      clock,
    ),
    webhooks: new WebhookService(
      withAvailability(new WebhookRepository(db)),
      withAvailability(createApiKeyRepository(db)),
      changeOutbox(db),
      options.webhookEndpoints ?? { allowHttp: false, allowPrivateAddresses: false },
      clock,
      createSecretBox(options.webhookSecretKey),
    ),
    publishedOperations: new PublishedOperationService(withAvailability(new PublishedOperationRepository(db)), clock),
    clock,
  };
}
