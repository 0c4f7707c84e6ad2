import { ApolloServer } from '@apollo/server';
import { graphqlTracingPlugin, tracedGraphQL } from './graphql-tracing';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { RequestHandler } from 'express';
import type { Config } from '../config';
import { isAppError } from '../errors';
import type { Logger } from '../logger';
import { recordGraphQLOperations } from './graphql-operation';
import type { Metrics } from '../observability/metrics';
import { requestIdOf } from '../observability/request-id';
import type { Services } from '../service-types';
import { protectionOf } from './armor';
import { auditPlugin } from './apollo-audit-plugin';
import { auditWhenClosed } from '../audit/audit-on-close';
import { persistedQueryPlugin, trustedDocuments, type GraphQLParams } from './persisted-query-plugin';
import { rateLimitPlugin } from './apollo-rate-limit-plugin';
import { createContext, type GraphQLContext } from './context';
import { executorGateway } from './execution/apollo-gateway';
import { withoutFieldInstrumentation } from './execution/no-field-instrumentation';
import { operationExecutorOf } from './execution/operation-executor';
import { createErrorFormatter, httpExtensionOf, serviceUnavailablePlugin } from './format-error';
import { createSchema } from './schema';

export interface GraphQLEndpoint {
  /** Handles POST (and GET queries) on /graphql. */
  readonly handler: RequestHandler;
  stop(): Promise<void>;
}

/**
 * Apollo Server over the one schema. Abuse limits come from graphql-armor (depth, cost,
 * aliases, tokens); batched HTTP requests are off; CSRF prevention is on and accepts the
 * X-API-Key header as proof that the request is not a simple cross-site one. Automatic
 * persisted queries are kept in the store (src/persisted-queries/), shared by every instance.
 */
export async function createGraphQLEndpoint(
  config: Config,
  services: Services,
  logger: Logger,
  /** the one executable schema, shared with the persisted operations of /v1 */
  schema: GraphQLSchema = createSchema(),
  /** the app's metrics (absent: the loaders report nothing) */
  metrics?: Metrics,
): Promise<GraphQLEndpoint> {
  const development = config.environment === 'development';
  const armor = protectionOf(config);
  const operations = recordGraphQLOperations<GraphQLContext>();
  const trusted = trustedDocuments(logger, metrics);
  const server = new ApolloServer<GraphQLContext>({
    parseOptions: { maxTokens: config.graphqlMaxTokens },
    // GRAPHQL_JIT: Apollo hands each validated operation to the app's executor, which runs it compiled.
    ...(config.graphqlJit
      ? { gateway: executorGateway(schema, operationExecutorOf(schema, { compiled: true })) }
      : { schema }),
    plugins: [
      ...armor.plugins,
      ApolloServerPluginLandingPageDisabled(),
      ...withoutFieldInstrumentation<GraphQLContext>(),
      operations.plugin,
      serviceUnavailablePlugin(),
      rateLimitPlugin(services.rateLimits),
      auditPlugin(services.audit),
      persistedQueryPlugin(services.persistedQueries),
      trusted.plugin,
      graphqlTracingPlugin<GraphQLContext>(),
    ],
    // Automatic persisted queries: Apollo checks the hash and registers a query only after it
    // passed the context factory (the key), validation (the limits) and the rate limit.
    persistedQueries:
      config.graphqlApqMaxEntries === 0
        ? false
        : { cache: services.persistedQueries, ttl: config.graphqlApqTtlSeconds },
    validationRules: armor.validationRules,
    allowBatchedHttpRequests: false,
    csrfPrevention: { requestHeaders: ['x-api-key', 'x-apollo-operation-name', 'apollo-require-preflight'] },
    introspection: true,
    // The composition root drains and exits on SIGTERM; Apollo's own handler would re-raise the signal.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: development,
    hideSchemaDetailsFromClientErrors: !development,
    formatError: createErrorFormatter(logger, { schema, development }),
    logger: {
      debug: () => {},
      info: () => {},
      warn: (m) => logger.warn(String(m)),
      error: (m) => logger.error(String(m)),
    },
  });
  await server.start();

  const handler = expressMiddleware(server, {
    context: async ({ req, res }): Promise<GraphQLContext> => {
      try {
        const context = await createContext(
          services,
          req.headers['x-api-key'],
          requestIdOf(req, res),
          'GRAPHQL',
          metrics,
        );
        auditWhenClosed(res, services.audit, context.audit, logger);
        // For the request log: the key's id (never the key) and, once Apollo resolves it, the operation name.
        res.locals.apiKeyId = context.apiKey.id;
        const tracked = operations.track(context, res);
        await trusted.check(tracked, req.method === 'GET' ? req.query : ((req.body ?? {}) as GraphQLParams));
        return tracked;
      } catch (error) {
        if (isAppError(error)) {
          throw new GraphQLError(error.message, { extensions: { code: error.code, http: httpExtensionOf(error) } });
        }
        throw error;
      }
    },
  });
  return { handler: tracedGraphQL(handler), stop: () => server.stop() };
}
