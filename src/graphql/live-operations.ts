import { randomUUID } from 'node:crypto';
import {
  getOperationAST,
  GraphQLError,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { RequestAudit } from '../audit/request-audit';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import type { Config } from '../config';
import { isAppError } from '../errors';
import type { Logger } from '../logger';
import type { Services } from '../service-types';
import { protectionOf } from './armor';
import { createContext, type GraphQLContext } from './context';
import { createErrorFormatter } from './format-error';
import { createLoaders } from './loaders';

/**
 * The rules of a subscription, the same on both of its transports (WebSocket:
 * subscription-server.ts; Server-Sent Events: subscription-stream.ts) and the same as POST
 * /graphql's: the key authenticated (and again before every event: `liveKey`), the operations
 * policy of the key, the token limit, the schema and the abuse limits (depth, cost, aliases).
 * Only subscriptions are served by them: queries and mutations go to POST /graphql (its rate
 * limits apply there). Each event is one request of the audit trail, with loaders of its own.
 */
export interface LiveOperations {
  /** the one executable schema */
  readonly schema: GraphQLSchema;
  /** The key as it is now: UnauthenticatedError when missing, unknown, revoked or expired. */
  liveKey(key: string | undefined): Promise<ApiKeyRecord>;
  /** The document of a subscription request, or the errors that refuse it. */
  prepare(
    key: string | undefined,
    request: { query: string; operationName?: string | null },
  ): Promise<{ document: DocumentNode } | { errors: GraphQLError[] }>;
  /** The context of one subscription: its key checked again before every event. */
  context(key: string | undefined): Promise<GraphQLContext>;
  /** After an event was executed: its audit recorded; the context gets a fresh audit and loaders for the next. */
  delivered(context: GraphQLContext): void;
  /** Errors as POST /graphql answers them (an AppError keeps its code and message; nothing internal shows). */
  format(errors: readonly GraphQLError[]): GraphQLFormattedError[];
}

export function createLiveOperations({
  config,
  schema,
  services,
  logger,
}: {
  config: Config;
  schema: GraphQLSchema;
  services: Services;
  logger: Logger;
}): LiveOperations {
  const rules = [...specifiedRules, ...protectionOf(config).validationRules];
  const formatError = createErrorFormatter(logger, { schema, development: false });
  const liveKey = async (key: string | undefined) =>
    services.apiKeys.authenticate(key, await services.readEpoch.current());
  // An error of an event stream arrives wrapped without a path: its AppError is its cause.
  const format = (errors: readonly GraphQLError[]) =>
    errors.map((error) => formatError(error.toJSON(), isAppError(error.originalError) ? error.originalError : error));
  const refused = (errors: readonly GraphQLFormattedError[]) =>
    errors.map((error) => new GraphQLError(error.message, { extensions: error.extensions }));

  return {
    schema,
    liveKey,
    format,
    async prepare(key, { query, operationName }) {
      try {
        // A key whose policy is `published` runs only its published operations, as on POST /graphql.
        const decision = await services.publishedOperations.decide(await liveKey(key), { query });
        if (!decision.allowed) throw services.publishedOperations.refusal();
      } catch (error) {
        if (isAppError(error))
          return { errors: refused(format([new GraphQLError(error.message, { originalError: error })])) };
        throw error;
      }
      let document: DocumentNode;
      try {
        document = parse(query, { maxTokens: config.graphqlMaxTokens });
      } catch (error) {
        return { errors: refused(format([error instanceof GraphQLError ? error : new GraphQLError('Syntax error.')])) };
      }
      const errors = validate(schema, document, rules);
      if (errors.length > 0) return { errors: refused(format(errors)) };
      if (getOperationAST(document, operationName)?.operation !== OperationTypeNode.SUBSCRIPTION)
        return {
          errors: [
            new GraphQLError('Only subscriptions are served here; send queries and mutations to POST /graphql.', {
              extensions: { code: 'BAD_REQUEST' },
            }),
          ],
        };
      return { document };
    },
    async context(key) {
      const context = await createContext(services, key, randomUUID(), 'GRAPHQL');
      // The read caches are not used across events: each event reads the store as it is then.
      context.loaders = createLoaders(services.repositories, '');
      context.liveKey = () => liveKey(key);
      return context;
    },
    delivered(context) {
      services.audit.record(context.audit, 200, (error) =>
        logger.error({ err: error, requestId: context.audit.requestId }, 'could not append an audit event yet'),
      );
      context.audit = new RequestAudit(context.apiKey.id, 'GRAPHQL', randomUUID());
      context.loaders = createLoaders(services.repositories, '');
    },
  };
}
