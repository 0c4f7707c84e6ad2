import { randomUUID } from 'node:crypto';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { RequestHandler } from 'express';
import type { Config } from '../config';
import { isAppError } from '../errors';
import type { Logger } from '../logger';
import type { Services } from '../services';
import { createContext, type GraphQLContext } from './context';
import { createErrorFormatter } from './format-error';
import { createSchema } from './schema';

export interface GraphQLEndpoint {
  /** Handles POST (and GET queries) on /graphql. */
  readonly handler: RequestHandler;
  stop(): Promise<void>;
}

/**
 * Apollo Server over the one schema. Abuse limits come from graphql-armor (depth, cost,
 * aliases, tokens); batched HTTP requests are off; CSRF prevention is on and accepts the
 * X-API-Key header as proof that the request is not a simple cross-site one.
 */
export async function createGraphQLEndpoint(
  config: Config,
  services: Services,
  logger: Logger,
  /** the one executable schema, shared with the persisted operations of /v1 */
  schema: GraphQLSchema = createSchema(),
): Promise<GraphQLEndpoint> {
  const development = config.environment === 'development';
  const armor = new ApolloArmor({
    maxDepth: { n: config.graphqlMaxDepth, ignoreIntrospection: true },
    costLimit: { maxCost: config.graphqlMaxCost, ignoreIntrospection: true },
    maxAliases: { n: config.graphqlMaxAliases },
    maxTokens: { n: config.graphqlMaxTokens },
    blockFieldSuggestion: { enabled: !development },
  }).protect();
  const server = new ApolloServer<GraphQLContext>({
    schema,
    plugins: [...armor.plugins, ApolloServerPluginLandingPageDisabled()],
    validationRules: armor.validationRules,
    allowBatchedHttpRequests: false,
    csrfPrevention: { requestHeaders: ['x-api-key', 'x-apollo-operation-name', 'apollo-require-preflight'] },
    introspection: true,
    // The composition root drains and exits on SIGTERM; Apollo's own handler would re-raise the signal.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: development,
    hideSchemaDetailsFromClientErrors: !development,
    formatError: createErrorFormatter(logger),
    logger: { debug: () => {}, info: () => {}, warn: (m) => logger.warn(String(m)), error: (m) => logger.error(String(m)) },
  });
  await server.start();

  const handler = expressMiddleware(server, {
    context: async ({ req }): Promise<GraphQLContext> => {
      try {
        return await createContext(services, req.headers['x-api-key'], String(req.headers['x-request-id'] ?? randomUUID()));
      } catch (error) {
        if (isAppError(error)) {
          throw new GraphQLError(error.message, { extensions: { code: error.code, http: { status: error.status } } });
        }
        throw error;
      }
    },
  });
  return { handler, stop: () => server.stop() };
}
