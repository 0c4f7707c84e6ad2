import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import {
  getOperationAST,
  GraphQLError,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { RequestAudit } from '../audit/request-audit';
import { isAppError } from '../errors';
import type { Logger } from '../logger';
import type { Services } from '../service-types';
import { createContext, type GraphQLContext } from './context';
import { protectionOf } from './armor';
import { createErrorFormatter } from './format-error';
import type { Config } from '../config';
import { createLoaders } from './loaders';

/** Where subscriptions are served: the path of /graphql, upgraded to a WebSocket. */
export const SUBSCRIPTION_PATH = '/graphql';
/** Largest message a client may send (a subscription document with its variables). */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** WebSocket's own close code of a server going away. */
const GOING_AWAY = 1001;

export interface SubscriptionServer {
  /** Ends every subscription and closes every connection. */
  close(): Promise<void>;
}

type Extra = {
  socket: WebSocket;
  request: http.IncomingMessage;
};

/**
 * GraphQL subscriptions over WebSocket (`graphql-transport-ws`, the graphql-ws package) on the
 * HTTP server's upgrades of /graphql. The key (connectionParams `x-api-key`, else the upgrade's
 * X-API-Key header) is authenticated on connect (4403 otherwise) and again before every event
 * (the services' liveKey). Only subscriptions are served here: queries and mutations go to POST
 * /graphql, where the rate limits, the cost limits and the operation policies of keys apply.
 * Each event is one request of the audit trail, with loaders of its own. A client that does not
 * read is sent nothing more: graphql-ws awaits each send, and the feed is read only when the next
 * event is asked for, so what a slow client holds here is one page of the feed.
 */
export function attachSubscriptionServer(
  server: http.Server,
  { config, schema, services, logger }: { config: Config; schema: GraphQLSchema; services: Services; logger: Logger },
): SubscriptionServer {
  // The same limits as POST /graphql: the token limit, the schema, and the abuse limits (depth, cost, aliases).
  const rules = [...specifiedRules, ...protectionOf(config).validationRules];
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const onUpgrade = (request: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== SUBSCRIPTION_PATH) {
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);
  const formatError = createErrorFormatter(logger, { schema, development: false });
  // An error of the event stream reaches here wrapped without a path (graphql-ws): its AppError is the cause.
  const format = (errors: readonly GraphQLError[]) =>
    errors.map((error) => formatError(error.toJSON(), isAppError(error.originalError) ? error.originalError : error));
  const keyOf = (ctx: Context<Record<string, unknown> | undefined, Extra>): string | undefined => {
    const param = ctx.connectionParams?.['x-api-key'];
    if (typeof param === 'string') return param;
    const header = ctx.extra.request.headers['x-api-key'];
    return Array.isArray(header) ? header[0] : header;
  };
  const liveKey = async (key: string | undefined) =>
    services.apiKeys.authenticate(key, await services.readEpoch.current());
  /** The audit of an event delivered: recorded, and the context given a fresh audit and loaders for the next. */
  const nextEvent = (context: GraphQLContext) => {
    services.audit.record(context.audit, 200, (error) =>
      logger.error({ err: error, requestId: context.audit.requestId }, 'could not append an audit event yet'),
    );
    context.audit = new RequestAudit(context.apiKey.id, 'GRAPHQL', randomUUID());
    context.loaders = createLoaders(services.repositories, '');
  };

  const disposable = useServer<Record<string, unknown> | undefined, Extra>(
    {
      schema,
      onConnect: async (ctx) => {
        try {
          await liveKey(keyOf(ctx));
          return true;
        } catch (error) {
          if (isAppError(error)) return false;
          throw error;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        // A key whose policy is `published` runs only its published operations, here as on POST /graphql.
        const decision = await services.publishedOperations.decide(await liveKey(keyOf(ctx)), {
          query: payload.query,
        });
        if (!decision.allowed) {
          const refusal = services.publishedOperations.refusal();
          return [new GraphQLError(refusal.message, { extensions: { code: refusal.code } })];
        }
        let document;
        try {
          document = parse(payload.query, { maxTokens: config.graphqlMaxTokens });
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError('The document is not valid GraphQL.')];
        }
        const errors = validate(schema, document, rules);
        if (errors.length > 0)
          return format(errors).map((e) => new GraphQLError(e.message, { extensions: e.extensions }));
        if (getOperationAST(document, payload.operationName)?.operation !== OperationTypeNode.SUBSCRIPTION)
          return [
            new GraphQLError(
              'Only subscriptions are served over WebSocket; send queries and mutations to POST /graphql.',
              { extensions: { code: 'BAD_REQUEST' } },
            ),
          ];
        return undefined;
      },
      context: async (ctx) => {
        const key = keyOf(ctx);
        const context = await createContext(services, key, randomUUID(), 'GRAPHQL');
        // The caches are not used across events: each event reads the store as it is then.
        context.loaders = createLoaders(services.repositories, '');
        context.liveKey = () => liveKey(key);
        return context;
      },
      onNext: (_ctx, _id, _payload, args, result: ExecutionResult) => {
        nextEvent(args.contextValue as GraphQLContext);
        return result.errors ? { ...result, errors: format(result.errors) } : undefined;
      },
      onError: (_ctx, _id, _payload, errors) => format(errors),
    },
    sockets,
  );

  return {
    async close() {
      server.off('upgrade', onUpgrade);
      for (const client of sockets.clients) client.close(GOING_AWAY, 'The service is stopping');
      await disposable.dispose();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    },
  };
}
