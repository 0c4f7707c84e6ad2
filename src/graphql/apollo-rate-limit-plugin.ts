import { HeaderMap, type ApolloServerPlugin, type HTTPGraphQLHead } from '@apollo/server';
import { GraphQLError, type GraphQLErrorExtensions } from 'graphql';
import { isAppError, TooManyRequestsError, type AppError } from '../errors';
import type { GraphQLContext } from './context';
import { httpExtensionOf } from './format-error';
import { rateLimitHeaders, rateLimitPolicyHeader } from '../rate-limit/rate-limit-headers';
import { throwIfExceeded, type RateLimiter, type RateLimitState } from '../rate-limit/rate-limiter';
import { operationCharge } from './operation-weight';

/**
 * The rate limit of /graphql. The operation is charged once Apollo knows it (didResolveOperation:
 * after parsing and validation, before execution), by its type and weight (operation-weight.ts:
 * one write per mutation field, the reads of the candidate pages a query returns). An operation
 * heavier than what is left of the budget ends there, before anything runs or is written, with
 * TOO_MANY_REQUESTS and HTTP 429. Every response to an authenticated request carries RateLimit-Policy, and RateLimit once
 * the operation was charged (a document that fails validation is not charged).
 */
export function rateLimitPlugin(limiter: RateLimiter): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ contextValue }) {
      let state: RateLimitState | undefined;
      return {
        async didResolveOperation({ schema, document, operation, request, contextValue: context }) {
          // Apollo resolves an operation before this hook or answers the request itself.
          // An unlimited key is never charged: its weight need not be known.
          if (operation === undefined || limiter.budgetsOf(context.apiKey) === undefined) return;
          const { kind, weight } = operationCharge(schema, document, operation, request.variables ?? {});
          try {
            state = await limiter.charge(context.apiKey, kind, weight);
            throwIfExceeded(state);
          } catch (error) {
            throw isAppError(error) ? toGraphQLError(error, state) : error;
          }
        },
        async willSendResponse({ response }) {
          const budgets = limiter.budgetsOf(contextValue.apiKey);
          const headers = state
            ? rateLimitHeaders(state)
            : budgets
              ? { 'RateLimit-Policy': rateLimitPolicyHeader(budgets) }
              : {};
          for (const [name, value] of Object.entries(headers)) response.http.headers.set(name.toLowerCase(), value);
        },
      };
    },
  };
}

/**
 * The GraphQL edge of an AppError met before execution: its code and HTTP status; for a 429
 * also `extensions.retryAfterSeconds` and the rate-limit headers (Retry-After among them).
 */
function toGraphQLError(error: AppError, state: RateLimitState | undefined): GraphQLError {
  if (!(error instanceof TooManyRequestsError) || state === undefined) {
    return new GraphQLError(error.message, {
      originalError: error,
      extensions: { code: error.code, http: httpExtensionOf(error) },
    });
  }
  const head: Partial<HTTPGraphQLHead> = {
    status: error.status,
    headers: new HeaderMap(Object.entries(rateLimitHeaders(state)).map(([name, value]) => [name.toLowerCase(), value])),
  };
  return new GraphQLError(error.message, {
    originalError: error,
    // Apollo reads `headers` as a HeaderMap; graphql-yoga's augmentation types it as a record (see httpExtensionOf).
    extensions: {
      code: error.code,
      retryAfterSeconds: error.retryAfterSeconds,
      http: head as GraphQLErrorExtensions['http'],
    },
  });
}
