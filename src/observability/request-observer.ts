import type { Request, RequestHandler, Response } from 'express';
import { unredactedSibling, type Logger } from '../logger';
import type { Metrics } from './metrics';
import { requestIdOf } from './request-id';

/** The route label of a request no route or mount of the service answered (bounded cardinality). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods reported by name; any other (Node accepts a few dozen) is reported as OTHER. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** nginx's "client closed request": the caller went away before a response was sent. */
const CLIENT_CLOSED = 499;

/**
 * The first middleware: gives the request its id (X-Request-Id, echoed on the response and
 * kept in res.locals.requestId for later code), and when the response is done writes ONE
 * info log line and the HTTP metrics.
 *
 * The line holds the request id, method, route template, status, duration, the API key's id
 * when a key was authenticated, and the GraphQL operation name. Never the concrete path, the
 * query string, headers or bodies: they carry what callers typed, identity data included,
 * and public ids that would tie a partner's key to the candidates it looked at.
 */
export function observeRequests(logger: Logger, metrics: Metrics, routeLabels: readonly string[]): RequestHandler {
  // Express matches paths case-insensitively; a label is looked up the same way and is always the template itself.
  const routes = new Map(routeLabels.map((label) => [label.toLowerCase(), label]));
  // Every field of the line is named here and none holds a value the caller sent as such:
  // redaction (which matches field names) would find nothing to remove.
  const requestLog = unredactedSibling(logger);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req, res);
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);

    let reported = false;
    const report = () => {
      if (reported) return;
      reported = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const aborted = !res.writableFinished;
      const status = aborted && !res.headersSent ? CLIENT_CLOSED : res.statusCode;
      const labels = {
        route: routes.get(routeOf(req, res).toLowerCase()) ?? UNMATCHED_ROUTE,
        method: METHODS.has(req.method) ? req.method : 'OTHER',
        status: String(status),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpRequestDuration.observe(labels, seconds);
      requestLog.info(
        {
          requestId,
          method: labels.method,
          route: labels.route,
          status,
          durationMs: Math.round(seconds * 10_000) / 10,
          apiKeyId: apiKeyIdOf(res),
          graphqlOperation: stringLocal(res, 'graphqlOperation'),
          ...(aborted ? { aborted: true } : {}),
        },
        'request',
      );
    };
    res.once('finish', report);
    res.once('close', report);
    next();
  };
}

/**
 * Names the route of a mount whose handler is not an express route (Apollo on /graphql), so
 * that requests its own middleware refuses (malformed JSON, too large) are not `unmatched`.
 */
export function routeTemplate(template: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.routeTemplate = template;
    next();
  };
}

/**
 * The route that answered, as the request reached it (the mount part in the client's casing,
 * which the caller maps onto the fixed labels): the mount named by routeTemplate (`/graphql`,
 * whose handler is not an express route; a route passed on the way, the playground's GET
 * /graphql, is not the one that answered), else the express route (`/v1/candidates/:publicId`),
 * else the mount reached (`/v1` for a request the REST router refused before routing it, e.g.
 * without a valid key), else `unmatched` (also every 404 no route answered, whatever its path).
 */
function routeOf(req: Request, res: Response): string {
  const named = stringLocal(res, 'routeTemplate');
  if (named !== undefined) return named;
  const routePath: unknown = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof routePath === 'string') return `${req.baseUrl}${routePath}`;
  if (res.statusCode === 404) return UNMATCHED_ROUTE;
  return req.baseUrl !== '' ? req.baseUrl : UNMATCHED_ROUTE;
}

/** The id (never the key) of the authenticated API key: set by the GraphQL context factory, or the REST router's context. */
function apiKeyIdOf(res: Response): string | undefined {
  const fromGraphQL = stringLocal(res, 'apiKeyId');
  if (fromGraphQL !== undefined) return fromGraphQL;
  const id: unknown = (res.locals.context as { apiKey?: { id?: unknown } } | undefined)?.apiKey?.id;
  return typeof id === 'string' ? id : undefined;
}

function stringLocal(res: Response, name: string): string | undefined {
  const value: unknown = res.locals[name];
  return typeof value === 'string' ? value : undefined;
}
