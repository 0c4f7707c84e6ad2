import type { AuditTransport } from '../audit/audit-event';
import { RequestAudit } from '../audit/request-audit';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { isWellFormedApiKey } from '../auth/api-key-format';
import type { Metrics } from '../observability/metrics';
import type { Services } from '../service-types';
import type { ReferenceCache } from '../reference/reference-cache';
import type { CompanionWrite, WriteOutcome, WriteRequest } from '../store/write-transaction';
import { createLoaders, type Loaders } from './loaders';

/** The one context of every GraphQL operation, built per request by the context factory. */
export interface GraphQLContext {
  /** id of the HTTP request, for logs */
  requestId: string;
  /** the authenticated caller */
  apiKey: ApiKeyRecord;
  services: Services;
  loaders: Loaders;
  /** the reference data read at start: what reference fields resolve to, without a loader */
  reference: ReferenceCache;
  /** what the audit trail records of this request: resolvers add the candidates they return or affect */
  audit: RequestAudit;
  /** the read epoch this request read before anything else: cached reads serve it only if loaded under it */
  readEpoch: string;
  /**
   * Set by REST for a POST with an Idempotency-Key: identifies the request (API key, key and
   * body), so that a retry of a request a crash cut short after it was written gets that write
   * back instead of a conflict with it (registration), or instead of a second copy (offer).
   */
  retryToken?: string;
  /**
   * What the request's writes store with them, in their transaction: its audit event (from the
   * context factory); REST adds the answer kept for the request's Idempotency-Key.
   */
  writeCompanions: ((outcome: WriteOutcome) => CompanionWrite)[];
  /**
   * For a subscription (src/graphql/subscription-server.ts): the caller's key as it is now,
   * authenticated again (UnauthenticatedError once revoked); what every event is checked by.
   */
  liveKey?: () => Promise<ApiKeyRecord>;
}

/** What the services' writes take from the request: its retry token and its companions. */
export function writeRequestOf(context: GraphQLContext): WriteRequest {
  return {
    retryToken: context.retryToken,
    companions: (outcome) => context.writeCompanions.map((companionOf) => companionOf(outcome)),
  };
}

/**
 * The context factory of both transports (Apollo for /graphql, the persisted operations of
 * /v1): reads the store's read epoch, authenticates the presented key (UnauthenticatedError
 * when it is missing or invalid) and builds fresh DataLoaders and a fresh audit record. What
 * one request gets from another is only what the read caches hold for the epoch it read, which
 * is what the store holds (src/cache/read-epoch.ts).
 */
export async function createContext(
  services: Services,
  presentedKey: string | string[] | undefined,
  requestId: string,
  /** the edge the request came through, for the audit trail */
  transport: AuditTransport,
  /** the app's metrics: the loaders report their batch sizes there */
  metrics?: Metrics,
): Promise<GraphQLContext> {
  const key = Array.isArray(presentedKey) ? presentedKey[0] : presentedKey;
  // A malformed key is refused without a round trip (authenticate checks the format first).
  const readEpoch = isWellFormedApiKey(key) ? await services.readEpoch.current() : '';
  const apiKey = await services.apiKeys.authenticate(key, readEpoch);
  const audit = new RequestAudit(apiKey.id, transport, requestId);
  return {
    requestId,
    apiKey,
    services,
    loaders: createLoaders(services.repositories, readEpoch, metrics?.dataloaderBatchSize),
    reference: services.repositories.referenceCache,
    audit,
    readEpoch,
    writeCompanions: [services.audit.companionOf(audit)],
  };
}
