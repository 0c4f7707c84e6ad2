import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { Logger } from '../logger';
import type { Metrics } from '../observability/metrics';
import { isQueryDocument, type PersistedQueryStore } from '../persisted-queries/persisted-query-store';
import { BadUserInputError } from '../errors';
import type { GraphQLContext } from './context';
import { httpExtensionOf } from './format-error';

/**
 * Automatic persisted queries keep queries only. A mutation's document may hold what it writes
 * (a registration's identity data written out in it), and what is kept here is kept for days,
 * shared by every instance and reached by no erasure: a mutation sent with the APQ extension
 * (to register it, or by a hash stored before this rule) is refused before Apollo stores it,
 * and PersistedQueryStore refuses to store one anyway.
 *
 * Apollo starts the write of a newly registered query without waiting for it. This also holds
 * the registering request's answer until the write ended, so that once a client has its
 * answer, sending the hash alone works on every instance.
 */
export function persistedQueryPlugin(store: PersistedQueryStore): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ metrics, document }) {
          if (!(metrics.persistedQueryRegister || metrics.persistedQueryHit) || isQueryDocument(document)) return;
          const error = new BadUserInputError(APQ_MUTATION_REFUSAL, {
            parameter: 'extensions.persistedQuery',
            rule: 'a document of queries only',
          });
          throw new GraphQLError(error.message, {
            originalError: error,
            extensions: { code: error.code, http: httpExtensionOf(error) },
          });
        },
        async willSendResponse({ metrics }) {
          if (metrics.persistedQueryRegister) await store.settled();
        },
      };
    },
  };
}

/** What a client that sent a mutation as an automatic persisted query is told. */
export const APQ_MUTATION_REFUSAL =
  'Automatic persisted queries take only queries: send a mutation without the persistedQuery extension, ' +
  'with its input as variables (never written out in the document), or publish it as one of the trusted documents of your key.';

/**
 * The published text a request of a `published` key runs, on its context: Apollo runs each
 * operation with a shallow copy of the context, which keeps this property.
 */
const PUBLISHED_TEXT = Symbol('publishedText');
type WithPublished = { [PUBLISHED_TEXT]?: string };

/** The GraphQL parameters of an HTTP request: the JSON body of a POST, the query string of a GET. */
export interface GraphQLParams {
  query?: unknown;
  extensions?: unknown;
}

/**
 * Trusted documents: a key whose operation policy is `published` runs only the operations
 * published for it (src/operations/). `check` runs in the context factory, where a refusal ends
 * the request with its code and status as an invalid key does: anything but a published
 * operation, an APQ registration included, gets OPERATION_NOT_PUBLISHED (HTTP 403), logged and
 * counted with the operation's id (its SHA-256) only, never its text. The plugin then hands
 * Apollo the published text of a request sent by id alone, before Apollo looks at its automatic
 * persisted queries, which are then neither read nor written (so it works with APQ off too).
 * Keys with policy `any` are not touched.
 */
export function trustedDocuments(logger?: Logger, metrics?: Metrics) {
  return {
    async check(context: GraphQLContext, params: GraphQLParams): Promise<void> {
      const { services, apiKey } = context;
      if (apiKey.operations !== 'published') return;
      const extensions = typeof params.extensions === 'string' ? parseJson(params.extensions) : params.extensions;
      const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery
        ?.sha256Hash;
      const decision = await services.publishedOperations.decide(apiKey, {
        query: typeof params.query === 'string' ? params.query : undefined,
        persistedQueryHash: typeof hash === 'string' ? hash : undefined,
      });
      if (decision.allowed) {
        if (decision.query !== undefined) (context as WithPublished)[PUBLISHED_TEXT] = decision.query;
        return;
      }
      metrics?.operationsRefused.inc({ reason: decision.reason });
      logger?.warn(
        { apiKeyId: apiKey.id, operationId: decision.operationId ?? null, reason: decision.reason },
        'operation refused: not published for this key',
      );
      const error = services.publishedOperations.refusal();
      throw new GraphQLError(error.message, {
        originalError: error,
        extensions: { code: error.code, http: httpExtensionOf(error) },
      });
    },
    plugin: {
      async requestDidStart({ request, contextValue }) {
        const query = (contextValue as WithPublished)[PUBLISHED_TEXT];
        if (query === undefined) return;
        request.query = query;
        if (request.extensions?.persistedQuery !== undefined) {
          const { persistedQuery: _byId, ...others } = request.extensions;
          request.extensions = others;
        }
      },
    } satisfies ApolloServerPlugin<GraphQLContext>,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
