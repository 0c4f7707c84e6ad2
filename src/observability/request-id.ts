import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';

/** A caller's X-Request-Id is kept only when it is a plain token: it reaches every log line of the request. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * The id of this request: the one the first middleware assigned (res.locals.requestId), else the
 * caller's X-Request-Id when it is a plain token, else a new UUID. Anything else the caller sent
 * is dropped, never logged: it could be any text, identity data included.
 */
export function requestIdOf(req: Request, res: Response): string {
  const assigned: unknown = res.locals.requestId;
  if (typeof assigned === 'string') return assigned;
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
