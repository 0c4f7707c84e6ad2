import type { AuditTransport } from '../audit/audit-event';
import { RequestAudit } from '../audit/request-audit';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import type { Metrics } from '../observability/metrics';
import type { Services } from '../services';
import { createLoaders, type Loaders } from './loaders';

/** The one context of every GraphQL operation, built per request by the context factory. */
export interface GraphQLContext {
  /** id of the HTTP request, for logs */
  requestId: string;
  /** the authenticated caller */
  apiKey: ApiKeyRecord;
  services: Services;
  loaders: Loaders;
  /** what the audit trail records of this request: resolvers add the candidates they return or affect */
  audit: RequestAudit;
}

/**
 * The context factory of both transports (Apollo for /graphql, the persisted operations of
 * /v1): authenticates the presented key (UnauthenticatedError when it is missing or invalid)
 * and builds fresh DataLoaders and a fresh audit record, so nothing of one request serves another.
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
  const apiKey = await services.apiKeys.authenticate(Array.isArray(presentedKey) ? presentedKey[0] : presentedKey);
  return {
    requestId,
    apiKey,
    services,
    loaders: createLoaders(services.repositories, metrics?.dataloaderBatchSize),
    audit: new RequestAudit(apiKey.id, transport, requestId),
  };
}
