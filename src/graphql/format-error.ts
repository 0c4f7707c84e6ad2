import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isAppError } from '../errors';
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
    const code = formatted.extensions?.code;
    const fromGraphQL = original instanceof GraphQLError || (error instanceof GraphQLError && error.originalError === undefined);
    if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code) && fromGraphQL) {
      return { message: withoutValues(formatted.message), ...where, extensions: { code } };
    }
    logger.error({ err: original, path: formatted.path }, 'unexpected error in a GraphQL operation');
    return { message: INTERNAL_ERROR_MESSAGE, ...where, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}

/**
 * Removes the values graphql-js quotes in its coercion and validation messages: the rule and
 * the place stay, the value (which may be an e-mail or a date of birth) goes.
 */
export function withoutValues(message: string): string {
  return message
    .replace(/^(Variable "\$\w+") got invalid value [\s\S]*? at "([^"]*)";/, '$1 got an invalid value at "$2";')
    .replace(/^(Variable "\$\w+") got invalid value [\s\S]*?;/, '$1 got an invalid value;')
    .replace(/(cannot represent[\w -]*?): [\s\S]*$/, '$1.')
    .replace(/Value "[\s\S]*?" does not exist in "(\w+)" enum\.[\s\S]*$/, 'Value does not exist in "$1" enum.')
    .replace(/(Expected value of type "[^"]+"), found [\s\S]*?(;|\.$)/, '$1$2');
}
