/**
 * The problem types of /v1 (RFC 9457 `application/problem+json`). Each `type` URI and `title`
 * is published: clients branch on `type`, so neither ever changes once released. The URIs are
 * absolute (valid as both `uri` and `uri-reference`) and name a page of the API documentation;
 * they are identifiers first, and need not resolve.
 */

const BASE = 'https://candidate-directory.example/problems/';

export interface ProblemType {
  /** URI identifying the problem type */
  readonly type: string;
  /** short summary, the same for every occurrence */
  readonly title: string;
  /** HTTP status of every response of this type */
  readonly status: number;
}

function problemType(slug: string, title: string, status: number): ProblemType {
  return { type: `${BASE}${slug}`, title, status };
}

export const PROBLEM_TYPES = {
  /** A query, path or header parameter is malformed, out of bounds, repeated or unknown (GET), or the Idempotency-Key header is malformed. */
  invalidParameter: problemType('invalid-parameter', 'Invalid request parameter', 400),
  /** The JSON body breaks a rule: a missing, unknown or mistyped field, a value out of bounds, an unknown reference code. */
  invalidBody: problemType('invalid-body', 'Invalid request body', 400),
  /** The body is not parseable JSON (its content is never echoed). */
  malformedJson: problemType('malformed-json', 'Malformed JSON body', 400),
  /** The X-API-Key header is missing, or names no valid key (revoked and expired keys included). */
  unauthenticated: problemType('unauthenticated', 'Authentication required', 401),
  /** The API key lacks the permission the operation needs. */
  forbidden: problemType('forbidden', 'Permission denied', 403),
  /** The candidate, saved list or path names nothing (for POSTs, the detail names every missing candidate). */
  notFound: problemType('not-found', 'Resource not found', 404),
  /** The path exists but not for this method; the `Allow` header lists the methods it has. */
  methodNotAllowed: problemType('method-not-allowed', 'Method not allowed', 405),
  /** The request conflicts with stored data, e.g. a candidate with the same e-mail address is already registered. */
  conflict: problemType('conflict', 'Conflict with existing data', 409),
  /** A request with the same Idempotency-Key is still being processed; retry after a moment. */
  idempotencyInProgress: problemType(
    'idempotency-key-in-progress',
    'Request with this idempotency key in progress',
    409,
  ),
  /** A registration replayed with its Idempotency-Key after the candidate it registered was erased. */
  candidateErased: problemType('candidate-erased', 'Candidate erased', 410),
  /** The body is larger than the service accepts. */
  payloadTooLarge: problemType('payload-too-large', 'Request body too large', 413),
  /** A POST body is not `application/json` (or has an unsupported charset or encoding). */
  unsupportedMediaType: problemType('unsupported-media-type', 'Unsupported media type', 415),
  /** The Idempotency-Key was used before, by this API key, with another request. */
  idempotencyKeyReused: problemType('idempotency-key-reused', 'Idempotency key reused with another request', 422),
  /** The API key spent its read or write budget of the current minute; retry after the `Retry-After` seconds. */
  tooManyRequests: problemType('too-many-requests', 'Rate limit exceeded', 429),
  /** A statistics query would spend more privacy budget (ε) than the key has left in its period; `Retry-After` says when the budget renews. */
  privacyBudgetExhausted: problemType('privacy-budget-exhausted', 'Privacy budget exhausted', 429),
  /** Anything unexpected: logged with the request id; the body reveals nothing internal. */
  internal: problemType('internal-error', 'Internal server error', 500),
  /** The request line or headers could not be parsed (answered by the HTTP server itself). */
  malformedRequest: problemType('malformed-request', 'Malformed HTTP request', 400),
  /** The request head did not arrive within the request timeout (answered by the HTTP server itself). */
  requestTimeout: problemType('request-timeout', 'Request timeout', 408),
  /** The request line or headers are larger than the server reads (answered by the HTTP server itself). */
  requestHeaderTooLarge: problemType('request-header-too-large', 'Request header fields too large', 431),
  /** The database cannot be reached, or the request took too long; retry after the `Retry-After` seconds. */
  serviceUnavailable: problemType('service-unavailable', 'Service unavailable', 503),
} as const satisfies Record<string, ProblemType>;

export type ProblemTypeName = keyof typeof PROBLEM_TYPES;
