import type { Response } from 'express';
import { isAppError, type ErrorCode } from '../errors';
import { PROBLEM_TYPES, type ProblemType } from './problem-types';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The body of every error of /v1 (RFC 9457); exactly these five members. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
}

/** A response as the router sends it, and as an idempotency record replays it. */
export interface RestResponse {
  status: number;
  /** the JSON body; a ProblemBody when status >= 400 */
  body: unknown;
}

/**
 * A failure of the REST transport itself (route, method, media type, parameter syntax,
 * idempotency), thrown by the router and turned into a problem by `toProblem`. Failures of the
 * core arrive as AppErrors instead.
 */
export class RestProblem extends Error {
  constructor(
    readonly problemType: ProblemType,
    /** shown to the caller: names parameters and rules, never a rejected value */
    readonly detail: string,
    /** extra response headers, e.g. `Allow` of a 405 */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
    this.name = 'RestProblem';
  }
}

/** How the core's error codes read on the REST edge. */
const BY_CODE: Record<Exclude<ErrorCode, 'BAD_USER_INPUT'>, ProblemType> = {
  UNAUTHENTICATED: PROBLEM_TYPES.unauthenticated,
  FORBIDDEN: PROBLEM_TYPES.forbidden,
  OPERATION_NOT_PUBLISHED: PROBLEM_TYPES.forbidden,
  NOT_FOUND: PROBLEM_TYPES.notFound,
  CONFLICT: PROBLEM_TYPES.conflict,
  TOO_MANY_REQUESTS: PROBLEM_TYPES.tooManyRequests,
  PRIVACY_BUDGET_EXHAUSTED: PROBLEM_TYPES.privacyBudgetExhausted,
  SERVICE_UNAVAILABLE: PROBLEM_TYPES.serviceUnavailable,
};

export interface ProblemContext {
  /** the request path (problemInstance), the `instance` of the problem */
  instance: string;
  /** whether bad user input of this operation is about its parameters (GET) or its body (POST) */
  input: 'parameter' | 'body';
}

/**
 * The problem for a known failure (a RestProblem or an AppError), or undefined for anything
 * else, which the caller logs and answers as a 500.
 */
export function toProblem(
  error: unknown,
  context: ProblemContext,
): { problem: ProblemBody; headers: Readonly<Record<string, string>> } | undefined {
  if (error instanceof RestProblem) {
    return { problem: problemBody(error.problemType, error.detail, context.instance), headers: error.headers };
  }
  if (isAppError(error)) {
    const type =
      error.code === 'BAD_USER_INPUT'
        ? context.input === 'body'
          ? PROBLEM_TYPES.invalidBody
          : PROBLEM_TYPES.invalidParameter
        : BY_CODE[error.code];
    // An error that says when to come back (503, 429) says it in Retry-After too.
    const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    const headers: Record<string, string> = typeof retryAfter === 'number' ? { 'Retry-After': String(retryAfter) } : {};
    return { problem: problemBody(type, error.message, context.instance), headers };
  }
  return undefined;
}

/**
 * The `instance` of a problem: the request path alone, as a valid URI reference even when the
 * request line was not one (a stray `%`, `|`, `{` or a raw non-ASCII byte is percent-encoded).
 * Never the query: it may hold what a caller should not have sent (an e-mail as a parameter),
 * which `detail` already declines to repeat.
 */
export function problemInstance(originalUrl: string): string {
  const path = originalUrl.split(/[?#]/, 1)[0] ?? '';
  return path.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?@!$&'()*+,;=%]/g, (c) => encodeURIComponent(c));
}

export function problemBody(type: ProblemType, detail: string, instance: string): ProblemBody {
  return { type: type.type, title: type.title, status: type.status, detail, instance };
}

/** The body of a 500: the request id lets support find the logged cause; nothing else is said. */
export function internalProblem(instance: string, requestId: string): ProblemBody {
  return problemBody(
    PROBLEM_TYPES.internal,
    `An unexpected error occurred. Quote request id ${requestId} when reporting it.`,
    instance,
  );
}

/** Sends a JSON or problem response (problem+json for every status from 400). */
export function send(res: Response, response: RestResponse, headers: Readonly<Record<string, string>> = {}): void {
  sendSerialized(res, response.status, JSON.stringify(response.body), headers);
}

/** `send` of a body serialised already. */
export function sendSerialized(
  res: Response,
  status: number,
  json: string | Buffer,
  headers: Readonly<Record<string, string>> = {},
): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status);
  res.type(status >= 400 ? PROBLEM_CONTENT_TYPE : 'application/json');
  res.send(json);
}
