import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from '../logger';
import { serveMetrics, type Metrics } from '../observability/metrics';
import { observeRequests, routeTemplate } from '../observability/request-observer';
import { serveOpenApi } from '../rest/openapi-route';
import { errorHandler, notFound } from './fallbacks';
import type { HttpHygiene } from './security';

export interface HttpRoutes {
  /** Apollo's handler for /graphql */
  graphql: RequestHandler;
  /** the analysts' playground page for GET /graphql from a browser */
  playground: RequestHandler;
  /** the REST /v1 router (src/rest/rest-router.ts) */
  rest: RequestHandler;
  /** GET /healthz, GET /readyz and connection draining (src/http/health.ts) */
  health: RequestHandler;
}

/** Largest JSON body accepted; a registration is a few KB. */
export const JSON_BODY_LIMIT = '100kb';

/** The express application: every route of the service is mounted here. */
export function createHttpApp(routes: HttpRoutes, logger: Logger, metrics: Metrics, hygiene: HttpHygiene): Express {
  const app = express();
  app.disable('x-powered-by');
  // First: every request gets its id, one log line and its metrics, whatever answers it.
  app.use(observeRequests(logger, metrics));
  // Security headers, CORS and the request timeout apply to every answer, health and errors included.
  app.use(hygiene.before);
  app.use(routes.health);
  app.get('/graphql', routes.playground);
  app.use('/graphql', routeTemplate('/graphql'), express.json({ limit: JSON_BODY_LIMIT }), routes.graphql);
  app.use('/v1', routes.rest);
  // The OpenAPI document of /v1 is public: partners read it before they have a key.
  app.get('/openapi.json', serveOpenApi());
  // Prometheus text format, without a key so a scraper needs no secret: keep it off the internet (README).
  app.get('/metrics', serveMetrics(metrics));
  app.use(notFound);
  app.use(hygiene.afterTimeout);
  app.use(errorHandler(logger));
  return app;
}
