import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLErrorExtensions, type GraphQLFormattedError } from 'graphql';
import { HeaderMap, type ApolloServerPlugin, type HTTPGraphQLHead } from '@apollo/server';
import { isAppError, ServiceUnavailableError, type AppError } from '../errors';
import type { Logger } from '../logger';

/** Codes whose messages are written for the client by graphql-js, Apollo or this service. */
const CLIENT_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'SERVICE_UNAVAILABLE',
  'TOO_MANY_REQUESTS',
]);

export const INTERNAL_ERROR_MESSAGE = 'Internal server error.';

/**
 * The GraphQL edge of the one error model: an AppError keeps its code and safe message,
 * client errors of the GraphQL machinery keep theirs with the offending values removed
 * (inputs may carry identity data), and anything else is logged and answered as an
 * INTERNAL_SERVER_ERROR that reveals nothing.
 */
export function createErrorFormatter(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const where = { ...(formatted.path ? { path: formatted.path } : {}), ...(formatted.locations ? { locations: formatted.locations } : {}) };
    if (isAppError(original)) {
      const details = 'details' in original && original.details ? { details: original.details } : {};
      return { message: original.message, ...where, extensions: { code: original.code, ...details } };
    }
    const code = isRefusedRequest(error) ? 'BAD_REQUEST' : formatted.extensions?.code;
    const fromGraphQL = original instanceof GraphQLError || (error instanceof GraphQLError && error.originalError === undefined);
    if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code) && fromGraphQL) {
      // A 429 from the rate-limit plugin says when to come back, for clients that do not read headers.
      const retryAfterSeconds = formatted.extensions?.retryAfterSeconds;
      const retry = code === 'TOO_MANY_REQUESTS' && typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {};
      return { message: withoutValues(formatted.message, error), ...where, extensions: { code, ...retry } };
    }
    logger.error({ err: original, path: formatted.path }, 'unexpected error in a GraphQL operation');
    return { message: INTERNAL_ERROR_MESSAGE, ...where, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}

/**
 * A request Apollo's pipeline itself refused with a 4xx but no code (an automatic persisted
 * query whose hash does not match its query, or of an unknown version): a client error.
 */
function isRefusedRequest(error: unknown): boolean {
  if (!(error instanceof GraphQLError) || error.originalError !== undefined || error.extensions.code !== undefined) return false;
  const status = (error.extensions.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * The message of a client error of the GraphQL machinery without any value the caller sent
 * (it may be an e-mail or a date of birth): the rule and the place stay, the value goes.
 * Variable coercion errors are rebuilt from their parts (graphql-js writes
 * `Variable "$v" got invalid value <value> at "<path>"; <reason>`, and the value itself may
 * contain `;` or quotes), and excerpts of the document are cut off.
 */
export function withoutValues(message: string, error?: unknown): string {
  const variable = /^(Variable "\$\w+") got invalid value /.exec(message);
  if (variable) {
    const reason = error instanceof GraphQLError && error.originalError ? error.originalError.message : '';
    const prefix = reason !== '' && message.endsWith(`; ${reason}`) ? message.slice(0, -(reason.length + 2)) : message;
    const path = /at "([\w.[\]]+)"$/.exec(prefix)?.[1];
    const where = path === undefined ? '' : ` at "${path}"`;
    return `${variable[1]} got an invalid value${where}${reason === '' ? '.' : `; ${reasonWithoutValue(reason)}`}`;
  }
  return reasonWithoutValue(message);
}

function reasonWithoutValue(reason: string): string {
  return reason
    .replace(/\n\nGraphQL request:[\s\S]*$/, '')
    .replace(/(cannot represent[\w -]*?): [\s\S]*$/, '$1.')
    .replace(/^Value [\s\S]* does not exist in "(\w+)" enum\.[\s\S]*$/, 'Value does not exist in "$1" enum.')
    .replace(/(Expected value of type "[^"]+"), found [\s\S]*$/, '$1.')
    .replace(/(found (String|BlockString|Int|Float|Name)) [\s\S]*$/, '$1.');
}

/**
 * `extensions.http` of the GraphQLError for an AppError met before execution (in the context
 * factory): its status, and Retry-After for a 503. Apollo reads `headers` as a Map (HeaderMap);
 * graphql-yoga's augmentation of GraphQLErrorExtensions, also in this build, types it as a record,
 * hence the one cast.
 */
export function httpExtensionOf(error: AppError): GraphQLErrorExtensions['http'] {
  const head: Partial<HTTPGraphQLHead> = { status: error.status };
  if (error instanceof ServiceUnavailableError) head.headers = new HeaderMap([['retry-after', String(error.retryAfterSeconds)]]);
  return head as GraphQLErrorExtensions['http'];
}

/**
 * Apollo answers 200 when a resolver fails. When one failed because the database is
 * unavailable, the answer is a 503 with Retry-After instead, as on REST: clients, proxies and
 * load balancers then treat it as "retry later", not as a result.
 */
export function serviceUnavailablePlugin<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ errors, response }) {
          const unavailable = (errors ?? []).map(originalOf).find((e) => e instanceof ServiceUnavailableError);
          if (unavailable === undefined) return;
          response.http.status = 503;
          response.http.headers.set('retry-after', String(unavailable.retryAfterSeconds));
        },
      };
    },
  };
}

function originalOf(error: GraphQLError): unknown {
  let current: unknown = error;
  while (current instanceof GraphQLError && current.originalError !== undefined) current = current.originalError;
  return current;
}
