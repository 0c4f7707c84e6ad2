import { once } from 'node:events';
import type { Request, RequestHandler, Response } from 'express';
import { GraphQLError, subscribe, type ExecutionResult } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/express';
import { isAppError } from '../errors';
import type { GraphQLContext } from './context';
import type { LiveOperations } from './live-operations';

/** Where subscriptions are served as Server-Sent Events. */
export const SUBSCRIPTION_STREAM_PATH = '/graphql/stream';

export interface SubscriptionStream {
  /** POST /graphql/stream (graphql-sse's distinct connections mode), its JSON body parsed */
  handler: RequestHandler;
  /** Ends every open stream. */
  close(): void;
}

/**
 * GraphQL subscriptions as Server-Sent Events (the graphql-sse package, one stream per POST), by
 * the rules of live-operations.ts; the key is the X-API-Key header (401 before the stream opens
 * otherwise). An error of the stream (the key revoked) is sent as the last event, with its code.
 * The feed is read no faster than the client takes events: each event waits until the answer
 * has room (Node's `drain`), so a slow client holds one page of the feed here.
 */
export function createSubscriptionStream(live: LiveOperations): SubscriptionStream {
  const contexts = new WeakMap<Request, GraphQLContext>();
  const open = new Set<Response>();
  // Formatted as POST /graphql formats them, as errors graphql-sse sends as they are.
  const reformatted = (errors: readonly GraphQLError[]) =>
    live.format(errors).map((error) => new GraphQLError(error.message, { extensions: error.extensions }));
  const keyOf = (req: Request): string | undefined => {
    const header = req.headers['x-api-key'];
    return Array.isArray(header) ? header[0] : header;
  };

  // graphql-sse types its context as a record: ours is the one GraphQLContext, put and read back here.
  const sse = createHandler<Record<PropertyKey, unknown>>({
    // Distinct connections only: a stream per subscription, authenticated by its own key.
    authenticate: () => null,
    onConnect: async (req) => {
      try {
        await live.liveKey(keyOf(req.raw));
      } catch (error) {
        if (!isAppError(error)) throw error;
        const errors = live.format([new GraphQLError(error.message, { originalError: error })]);
        return [
          JSON.stringify({ errors }),
          {
            status: error.status,
            statusText: error.code,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          },
        ];
      }
      const res = req.context.res;
      open.add(res);
      res.once('close', () => open.delete(res));
      return undefined;
    },
    onSubscribe: async (req, params) => {
      const key = keyOf(req.raw);
      const prepared = await live.prepare(key, { query: params.query ?? '', operationName: params.operationName });
      if ('errors' in prepared) return { errors: prepared.errors };
      const contextValue = await live.context(key);
      contexts.set(req.raw, contextValue);
      const result = await subscribe({
        schema: live.schema,
        document: prepared.document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue,
      });
      if (!(Symbol.asyncIterator in result)) return { ...result, errors: result.errors && reformatted(result.errors) };
      return endingWithItsError(result, (error): ExecutionResult => ({ errors: reformatted([asGraphQLError(error)]) }));
    },
    context: (req) => contexts.get(req.raw) as unknown as Record<PropertyKey, unknown>,
    onNext: async (ctx, req, result) => {
      live.delivered(ctx as unknown as GraphQLContext);
      const res = req.context.res;
      if (res.writableNeedDrain) await once(res, 'drain');
      const { errors } = result as ExecutionResult;
      return errors ? { ...result, errors: reformatted(errors) } : undefined;
    },
  });

  return {
    handler: (req, res, next) => {
      sse(req, res).catch(next);
    },
    close() {
      for (const res of open) res.end();
    },
  };
}

function asGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  return new GraphQLError(error instanceof Error ? error.message : 'Error', {
    originalError: error instanceof Error ? error : undefined,
  });
}

/**
 * The events of `source`, then, when it fails, one last result made of its error, and the end:
 * an SSE client reads why its stream ended instead of a broken connection. A generator-shaped
 * object (next, return, throw), so that graphql-sse ends it when the client goes.
 */
function endingWithItsError<T>(
  source: AsyncGenerator<T> | AsyncIterableIterator<T>,
  last: (error: unknown) => T,
): AsyncGenerator<T> {
  let ended = false;
  const iterator = {
    async next() {
      if (ended) return { done: true, value: undefined };
      try {
        return await source.next();
      } catch (error) {
        ended = true;
        return { done: false, value: last(error) };
      }
    },
    async return() {
      ended = true;
      await source.return?.(undefined);
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      ended = true;
      await source.return?.(undefined);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  } as AsyncGenerator<T>;
  return iterator;
}
