import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from '../logger';
import { serveMetrics, type Metrics } from '../observability/metrics';
import { observeRequests, routeTemplate } from '../observability/request-observer';
import { serveOpenApi } from '../rest/openapi-route';
import { REST_MOUNT, REST_ROUTES } from '../rest/rest-routes';
import { JSON_BODY_LIMIT } from '../http/body-limit';
import { errorHandler, methodNotAllowed, notFound } from '../http/fallbacks';
import { HEALTH_ROUTES } from '../http/health';
import type { HttpHygiene } from '../http/security';

export interface HttpRoutes {
  /** Apollo's handler for /graphql */
  graphql: RequestHandler;
  /** subscriptions as Server-Sent Events, POST /graphql/stream (src/graphql/subscription-stream.ts) */
  graphqlStream: RequestHandler;
  /** the analysts' playground for GET /graphql from a browser, and its assets (GET /graphql/assets/:file) */
  playground: RequestHandler;
  /** the REST /v1 router (src/rest/rest-router.ts) */
  rest: RequestHandler;
  /** GET /healthz, GET /readyz and connection draining (src/http/health.ts) */
  health: RequestHandler;
}

const GRAPHQL_PATH = '/graphql';
const GRAPHQL_STREAM_PATH = `${GRAPHQL_PATH}/stream`;
/** The playground's static files (content-hashed names): src/graphql/playground.ts. */
const PLAYGROUND_ASSETS_PATH = `${GRAPHQL_PATH}/assets/:file`;
const OPENAPI_PATH = '/openapi.json';
const METRICS_PATH = '/metrics';

/**
 * Every route the service serves, as its template: the only values the `route` label of logs and
 * metrics may take besides `unmatched` (the client's spelling of a path never becomes a label).
 */
export const ROUTE_LABELS: readonly string[] = [
  ...Object.values(HEALTH_ROUTES),
  GRAPHQL_PATH,
  GRAPHQL_STREAM_PATH,
  PLAYGROUND_ASSETS_PATH,
  REST_MOUNT,
  ...Object.values(REST_ROUTES).map((route) => `${REST_MOUNT}${route}`),
  OPENAPI_PATH,
  METRICS_PATH,
];

/** The express application: every route of the service is mounted here. */
export function createHttpApp(routes: HttpRoutes, logger: Logger, metrics: Metrics, hygiene: HttpHygiene): Express {
  const app = express();
  app.disable('x-powered-by');
  // First: every request gets its id, one log line and its metrics, whatever answers it.
  app.use(observeRequests(logger, metrics, ROUTE_LABELS));
  // Security headers, CORS and the request timeout apply to every answer, health and errors included.
  app.use(hygiene.before);
  app.use(routes.health);
  // /graphql itself only: any path below it is a 404 and any other method a 405, both
  // problem+json, never a GraphQL answer. HEAD reaches the playground (a browser) and then the 405.
  const graphql = [routeTemplate(GRAPHQL_PATH), express.json({ limit: JSON_BODY_LIMIT }), routes.graphql];
  const graphqlMethods = methodNotAllowed('GET, POST');
  app
    .route(GRAPHQL_PATH)
    .get(routes.playground, (req, res, next) => (req.method === 'HEAD' ? graphqlMethods(req, res, next) : next()))
    .get(...graphql)
    .post(...graphql)
    .all(graphqlMethods);
  app
    .route(GRAPHQL_STREAM_PATH)
    .post(routeTemplate(GRAPHQL_STREAM_PATH), express.json({ limit: JSON_BODY_LIMIT }), routes.graphqlStream)
    .all(methodNotAllowed('POST'));
  // An asset name the playground does not know is a 404, not a GraphQL request.
  app.get(PLAYGROUND_ASSETS_PATH, routes.playground, notFound);
  app.use(REST_MOUNT, routes.rest);
  // The OpenAPI document of /v1 is public: partners read it before they have a key.
  app.get(OPENAPI_PATH, serveOpenApi());
  // Prometheus text format, without a key so a scraper needs no secret: keep it off the internet (docs/operators.md).
  app.get(METRICS_PATH, serveMetrics(metrics));
  app.use(notFound);
  app.use(hygiene.afterTimeout);
  app.use(errorHandler(logger));
  return app;
}
