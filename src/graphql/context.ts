import type { ApiKeyRecord } from '../auth/api-key-repository';
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
}

/**
 * The context factory of both transports (Apollo for /graphql, the persisted operations of
 * /v1): authenticates the presented key (UnauthenticatedError when it is missing or invalid)
 * and builds fresh DataLoaders, so nothing loaded for one request serves another.
 */
export async function createContext(
  services: Services,
  presentedKey: string | string[] | undefined,
  requestId: string,
): Promise<GraphQLContext> {
  const apiKey = await services.apiKeys.authenticate(Array.isArray(presentedKey) ? presentedKey[0] : presentedKey);
  return { requestId, apiKey, services, loaders: createLoaders(services.repositories) };
}
