import { unwrapResolverError } from '@apollo/server/errors';
import {
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLErrorExtensions,
  type GraphQLField,
  type GraphQLFormattedError,
  type GraphQLInputField,
  type GraphQLSchema,
} from 'graphql';
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
  'OPERATION_NOT_PUBLISHED',
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
export function createErrorFormatter(
  logger: Logger,
  { schema, development }: { schema: GraphQLSchema; development: boolean },
) {
  const known = schemaNamesOf(schema);
  // In development the names a document uses are shown as written (a typo is easier to find); values never are.
  const safeMessage = (message: string, error: unknown) => {
    const withoutValue = withoutValues(message, error);
    return development ? withoutValue : withoutUnknownNames(withoutValue, known);
  };
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const where = {
      ...(formatted.path ? { path: formatted.path } : {}),
      ...(formatted.locations ? { locations: formatted.locations } : {}),
    };
    if (isAppError(original)) {
      const details = 'details' in original && original.details ? { details: original.details } : {};
      return { message: original.message, ...where, extensions: { code: original.code, ...details } };
    }
    const code = isRefusedRequest(error) ? 'BAD_REQUEST' : formatted.extensions?.code;
    const fromGraphQL =
      original instanceof GraphQLError || (error instanceof GraphQLError && error.originalError === undefined);
    if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code) && fromGraphQL) {
      // A 429 from the rate-limit plugin says when to come back, for clients that do not read headers.
      const retryAfterSeconds = formatted.extensions?.retryAfterSeconds;
      const retry = code === 'TOO_MANY_REQUESTS' && typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {};
      return { message: safeMessage(formatted.message, error), ...where, extensions: { code, ...retry } };
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
  if (!(error instanceof GraphQLError) || error.originalError !== undefined || error.extensions.code !== undefined)
    return false;
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
  if (reason.startsWith(SYNTAX_ERROR))
    return syntaxErrorWithoutText(reason.replace(/\n\nGraphQL request:[\s\S]*$/, ''));
  return (
    reason
      .replace(/\n\nGraphQL request:[\s\S]*$/, '')
      // The name of an unknown input field is a key the caller sent (an e-mail, say), written
      // between quotes without escaping: everything up to the last `" is not defined by type` goes.
      .replace(/^Field "[\s\S]*" is not defined by type "(\w+)"\.[\s\S]*$/, 'Field "…" is not defined by type "$1".')
      .replace(/(cannot represent[\w -]*?): [\s\S]*$/, '$1.')
      .replace(/^Value [\s\S]* does not exist in "(\w+)" enum\.[\s\S]*$/, 'Value does not exist in "$1" enum.')
      .replace(/(Expected value of type "[^"]+"), found [\s\S]*$/, '$1.')
      .replace(/(found (String|BlockString|Int|Float|Name)) [\s\S]*$/, '$1.')
  );
}

const SYNTAX_ERROR = 'Syntax Error: ';
/** A token as graphql-js describes it (getTokenKindDesc): its kind, or a punctuator in quotes. */
const TOKEN_KIND = String.raw`(?:<SOF>|<EOF>|Name|Int|Float|String|BlockString|Comment|"(?:!|\$|&|\(|\)|\.\.\.|:|=|@|\[|\]|\{|\||\})")`;
/** Lexer and parser messages, and graphql-armor's limits (which say "Syntax Error" too), that quote nothing of the document. */
const FIXED_SYNTAX_REASON =
  /^(Unterminated string\.|Unexpected single quote character \('\), did you mean to use a double quote \("\)\?|Unexpected description, [\w ,]+\.|(Document|Source) contains more th[ae]n \d+ [\w -]+\. Parsing aborted\.|(Query depth|Query Cost|Aliases|Directives) limit of \d+ exceeded, found [\d.e+]+\.)$/;

/**
 * A syntax error rebuilt from graphql-js's fixed words only: the kind of token expected and
 * found (`Name`, `String`, `"{"`, …), never its text, which is the caller's (an inline e-mail,
 * an unknown name). Where it is, `locations` says.
 */
function syntaxErrorWithoutText(message: string): string {
  const reason = message.slice(SYNTAX_ERROR.length);
  if (FIXED_SYNTAX_REASON.test(reason)) return message;
  const expected = new RegExp(`^Expected (${TOKEN_KIND}|"[a-z]+"), found (${TOKEN_KIND})`).exec(reason);
  if (expected) return `${SYNTAX_ERROR}Expected ${expected[1]}, found ${expected[2]}.`;
  const unexpected = new RegExp(`^Unexpected (${TOKEN_KIND})`).exec(reason);
  if (unexpected) return `${SYNTAX_ERROR}Unexpected ${unexpected[1]}.`;
  if (reason.startsWith('Unexpected variable')) return `${SYNTAX_ERROR}Unexpected variable in a constant value.`;
  // The lexer's messages end with the offending characters, after a colon or in quotes.
  const words = /^[A-Za-z][\w ,]*/.exec(reason)?.[0].trim();
  return `${SYNTAX_ERROR}${words ? `${words}.` : 'The document is not valid GraphQL.'}`;
}

/** Every name the schema defines: types, fields, arguments, input fields, enum values, directives. */
export function schemaNamesOf(schema: GraphQLSchema): ReadonlySet<string> {
  const names = new Set<string>();
  for (const directive of schema.getDirectives()) {
    names.add(directive.name);
    for (const arg of directive.args) names.add(arg.name);
  }
  for (const type of Object.values(schema.getTypeMap())) {
    names.add(type.name);
    if (isEnumType(type)) for (const value of type.getValues()) names.add(value.name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values<GraphQLField<unknown, unknown> | GraphQLInputField>(type.getFields())) {
        names.add(field.name);
        if ('args' in field) for (const arg of field.args) names.add(arg.name);
      }
    }
  }
  return names;
}

/** What a quoted name the schema does not define is replaced with. */
export const UNKNOWN_NAME = '"…"';
const PUNCTUATOR = /^(!|\$|&|\(|\)|\.\.\.|:|=|@|\[|\]|\{|\||\})$/;

/**
 * The message with every quoted name that the schema does not define replaced by `"…"`: the
 * names of a document (fields, arguments, variables, fragments, operations) are the caller's
 * text, and only the schema's own names are known not to carry anything else. A quoted part is
 * kept when each name in it (`Query.candidates`, `[String!]!`, `$input`, a path such as
 * `input.candidates[0].publicId`) is the schema's.
 */
export function withoutUnknownNames(message: string, known: ReadonlySet<string>): string {
  return message.replace(/"([^"]*)"/g, (quoted, inner: string) => {
    if (PUNCTUATOR.test(inner)) return quoted;
    const names = inner
      .replace(/^[$@]/, '')
      .split(/[.()[\]!:\s]+/)
      .filter((part) => part !== '');
    const allKnown = names.length > 0 && names.every((name) => /^\d+$/.test(name) || known.has(name));
    return allKnown ? quoted : UNKNOWN_NAME;
  });
}

/**
 * `extensions.http` of the GraphQLError for an AppError met before execution (in the context
 * factory): its status, and Retry-After for a 503. Apollo reads `headers` as a Map (HeaderMap);
 * graphql-yoga's augmentation of GraphQLErrorExtensions, also in this build, types it as a record,
 * hence the one cast.
 */
export function httpExtensionOf(error: AppError): GraphQLErrorExtensions['http'] {
  const head: Partial<HTTPGraphQLHead> = { status: error.status };
  if (error instanceof ServiceUnavailableError)
    head.headers = new HeaderMap([['retry-after', String(error.retryAfterSeconds)]]);
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
