/**
 * The one error model of the code base. Services and repositories throw these; only the two
 * edges translate them (REST into application/problem+json, GraphQL into extensions.code).
 * `message` is shown to callers, so it must never carry internal details (queries, driver
 * messages, stack traces, stored values); put those in `cause`, which the edges only log.
 * Anything thrown that is not an AppError is an unexpected failure: a logged 500.
 */

/** The stable codes; clients branch on these, so they never change once published. */
export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'OPERATION_NOT_PUBLISHED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS'
  | 'PRIVACY_BUDGET_EXHAUSTED'
  | 'SERVICE_UNAVAILABLE';

/** One rule an input broke: which parameter (or body field path) and which rule. */
export interface InputIssue {
  /** the query parameter, path parameter, argument or body field path, e.g. `limit`, `registrationData.email` */
  parameter: string;
  /** short stable name of the rule, e.g. `required`, `max`, `format`, `enum` */
  rule: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'AppError';
  }
}

export class BadUserInputError extends AppError {
  /** The broken rules, when known; safe to show (names only, never the rejected values). */
  readonly details: readonly InputIssue[] | undefined;

  constructor(message: string, details?: InputIssue | readonly InputIssue[], options?: { cause?: unknown }) {
    super('BAD_USER_INPUT', 400, message, options);
    this.name = 'BadUserInputError';
    this.details = details === undefined ? undefined : Array.isArray(details) ? details : [details as InputIssue];
  }
}

/** Throws one BadUserInputError naming every broken rule, when there is any. */
export function throwIfAny(issues: readonly InputIssue[]): void {
  if (issues.length === 0) return;
  const detail = issues.map((issue) => `${issue.parameter} must be ${issue.rule}`).join('; ');
  throw new BadUserInputError(`Invalid input: ${detail}.`, issues);
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Authentication is required.', options?: { cause?: unknown }) {
    super('UNAUTHENTICATED', 401, message, options);
    this.name = 'UnauthenticatedError';
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'The caller is not allowed to do this.', options?: { cause?: unknown }) {
    super('FORBIDDEN', 403, message, options);
    this.name = 'ForbiddenError';
  }
}

/**
 * A key whose operation policy is `published` sent a GraphQL document (or an id) not published
 * for it, or tried to register one as an automatic persisted query.
 */
export class OperationNotPublishedError extends AppError {
  constructor(message = 'This API key may run only the operations published for it.', options?: { cause?: unknown }) {
    super('OPERATION_NOT_PUBLISHED', 403, message, options);
    this.name = 'OperationNotPublishedError';
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.', options?: { cause?: unknown }) {
    super('NOT_FOUND', 404, message, options);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends AppError {
  constructor(message = 'The request conflicts with existing data.', options?: { cause?: unknown }) {
    super('CONFLICT', 409, message, options);
    this.name = 'ConflictError';
  }
}

/** The caller spent its budget of the current window; it may try again after `retryAfterSeconds`. */
export class TooManyRequestsError extends AppError {
  constructor(
    /** whole seconds until the window ends (the Retry-After of the answer), at least 1 */
    readonly retryAfterSeconds: number,
    message = `Rate limit exceeded; retry after ${retryAfterSeconds} seconds.`,
    options?: { cause?: unknown },
  ) {
    super('TOO_MANY_REQUESTS', 429, message, options);
    this.name = 'TooManyRequestsError';
  }
}

/**
 * A statistics query would spend more privacy budget than the key has left in its period. Not a
 * rate limit: the refusal names when the budget renews, and nothing was charged.
 */
export class PrivacyBudgetExhaustedError extends AppError {
  constructor(
    readonly renewsAt: Date,
    message: string,
    /** whole seconds until the budget renews (the Retry-After of a REST answer), at least 1 */
    readonly retryAfterSeconds: number,
  ) {
    super('PRIVACY_BUDGET_EXHAUSTED', 429, message);
    this.name = 'PrivacyBudgetExhaustedError';
  }
}

/** Seconds a client is asked to wait before retrying after a 503: long enough for a restart or an election. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The service cannot answer now (the database is unreachable, or the request ran out of time);
 * the same request may succeed later. Never a 500: nothing is wrong with the request or the code.
 */
export class ServiceUnavailableError extends AppError {
  /** the Retry-After of the answer, in whole seconds */
  readonly retryAfterSeconds = SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS;

  constructor(message = 'The service is temporarily unavailable; retry later.', options?: { cause?: unknown }) {
    super('SERVICE_UNAVAILABLE', 503, message, options);
    this.name = 'ServiceUnavailableError';
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
