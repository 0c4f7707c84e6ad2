import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { Logger } from '../logger';
import type { Metrics } from '../observability/metrics';
import type { PersistedQueryStore } from '../persisted-queries/persisted-query-store';
import type { GraphQLContext } from './context';
import { httpExtensionOf } from './format-error';

/**
 * Persisted documents of /graphql.
 *
 * Trusted documents: a key whose operation policy is `published` runs only the operations
 * published for it (src/operations/). The check comes before Apollo looks at the automatic
 * persisted queries: a request by id alone gets the published text (so it works whether APQ is
 * on or off), an exact published text runs as sent, and anything else, an APQ registration
 * included, ends with OPERATION_NOT_PUBLISHED (HTTP 403). The refusal is logged and counted with
 * the operation's id (its SHA-256) only, never its text. Keys with policy `any` are not touched.
 *
 * APQ: Apollo starts the write of a newly registered query without waiting for it. This holds the
 * registering request's answer until the write ended, so that once a client has its answer,
 * sending the hash alone works on every instance.
 */
export function persistedQueryPlugin(
  store: PersistedQueryStore,
  logger?: Logger,
  metrics?: Metrics,
): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ request, contextValue }) {
      const { services, apiKey } = contextValue;
      if (apiKey.operations === 'published') {
        const hash: unknown = request.extensions?.persistedQuery?.sha256Hash;
        const decision = await services.publishedOperations.decide(apiKey, {
          query: typeof request.query === 'string' ? request.query : undefined,
          persistedQueryHash: typeof hash === 'string' ? hash : undefined,
        });
        if (!decision.allowed) {
          metrics?.operationsRefused.inc({ reason: decision.reason });
          logger?.warn(
            `operation refused: key ${apiKey.id} (policy published), operation ${decision.operationId ?? 'none'}, ${decision.reason}`,
          );
          const error = services.publishedOperations.refusal();
          throw new GraphQLError(error.message, {
            originalError: error,
            extensions: { code: error.code, http: httpExtensionOf(error) },
          });
        }
        request.query = decision.query;
        // The published text stands in for the id: Apollo's APQ cache is neither read nor written.
        if (request.extensions?.persistedQuery !== undefined) {
          const { persistedQuery: _byId, ...others } = request.extensions;
          request.extensions = others;
        }
      }
      return {
        async willSendResponse({ metrics: requestMetrics }) {
          if (requestMetrics.persistedQueryRegister) await store.settled();
        },
      };
    },
  };
}
