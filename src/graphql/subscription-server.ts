import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ExecutionResult } from 'graphql';
import type { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { isAppError } from '../errors';
import type { GraphQLContext } from './context';
import type { LiveOperations } from './live-operations';

/** Where subscriptions are served over WebSocket: the path of /graphql, upgraded. */
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
 * HTTP server's upgrades of /graphql, by the rules of live-operations.ts. The key is the
 * connectionParams' `x-api-key`, else the upgrade's X-API-Key header: refused on connect with
 * 4403. A client that does not read is sent nothing more: graphql-ws awaits each send, and the
 * feed is read only when the next event is asked for, so what a slow client holds here is one
 * page of the feed.
 */
export function attachSubscriptionServer(server: http.Server, live: LiveOperations): SubscriptionServer {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const onUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== SUBSCRIPTION_PATH) {
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);
  const keyOf = (ctx: Context<Record<string, unknown> | undefined, Extra>): string | undefined => {
    const param = ctx.connectionParams?.['x-api-key'];
    if (typeof param === 'string') return param;
    const header = ctx.extra.request.headers['x-api-key'];
    return Array.isArray(header) ? header[0] : header;
  };

  const disposable = useServer<Record<string, unknown> | undefined, Extra>(
    {
      onConnect: async (ctx) => {
        try {
          await live.liveKey(keyOf(ctx));
          return true;
        } catch (error) {
          if (isAppError(error)) return false;
          throw error;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        const prepared = await live.prepare(keyOf(ctx), payload);
        if ('errors' in prepared) return prepared.errors;
        return {
          schema: live.schema,
          document: prepared.document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await live.context(keyOf(ctx)),
        };
      },
      onNext: (_ctx, _id, _payload, args, result: ExecutionResult) => {
        live.delivered(args.contextValue as GraphQLContext);
        return result.errors ? { ...result, errors: live.format(result.errors) } : undefined;
      },
      onError: (_ctx, _id, _payload, errors) => live.format(errors),
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
