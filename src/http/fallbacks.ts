import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger';
import { requestIdOf } from '../observability/request-id';
import { internalProblem, problemBody, problemInstance, send } from './problem';
import { PROBLEM_TYPES } from './problem-types';

/** Any path no route serves: a problem+json 404, like the unknown routes of /v1. */
export const notFound: RequestHandler = (req, res) => {
  send(res, {
    status: 404,
    body: problemBody(PROBLEM_TYPES.notFound, 'No resource at this path.', problemInstance(req.originalUrl)),
  });
};

/** A path served only with other methods: a problem+json 405 whose `Allow` lists them. */
export function methodNotAllowed(allow: string): RequestHandler {
  return (req, res) => {
    send(
      res,
      {
        status: 405,
        body: problemBody(
          PROBLEM_TYPES.methodNotAllowed,
          `${req.method} is not supported on this path; it supports ${allow}.`,
          problemInstance(req.originalUrl),
        ),
      },
      { Allow: allow },
    );
  };
}

/**
 * The last error handler: body-parser failures outside /v1 (e.g. malformed JSON or an
 * oversized body on /graphql) keep their 4xx meaning; anything else is logged and answered
 * as a 500 that reveals nothing (never express's default page, which shows stack traces).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const instance = problemInstance(req.originalUrl);
    const status = (error as { status?: unknown }).status;
    if (status === 413)
      return send(res, {
        status,
        body: problemBody(PROBLEM_TYPES.payloadTooLarge, 'The request body is too large.', instance),
      });
    if (status === 415) {
      return send(res, {
        status,
        body: problemBody(
          PROBLEM_TYPES.unsupportedMediaType,
          'The request body has an unsupported encoding.',
          instance,
        ),
      });
    }
    if ((error as { type?: unknown }).type === 'entity.parse.failed') {
      return send(res, {
        status: 400,
        body: problemBody(PROBLEM_TYPES.malformedJson, 'The request body is not valid JSON.', instance),
      });
    }
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return send(res, {
        status: 400,
        body: problemBody(PROBLEM_TYPES.invalidBody, 'The request body could not be read.', instance),
      });
    }
    const requestId = requestIdOf(req, res);
    logger.error({ err: error, requestId, path: req.path }, 'unexpected error in an HTTP request');
    send(res, { status: 500, body: internalProblem(instance, requestId) });
  };
}
