import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from '../logger';
import { serveOpenApi } from '../rest/openapi-route';
import { errorHandler, notFound } from './fallbacks';

export interface HttpRoutes {
  /** Apollo's handler for /graphql */
  graphql: RequestHandler;
  /** the analysts' playground page for GET /graphql from a browser */
  playground: RequestHandler;
  /** the REST /v1 router (src/rest/rest-router.ts) */
  rest: RequestHandler;
}

/** Largest JSON body accepted; a registration is a few KB. */
export const JSON_BODY_LIMIT = '100kb';

/** The express application: every route of the service is mounted here. */
export function createHttpApp(routes: HttpRoutes, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  // Liveness only: answers without touching the database, so an orchestrator does not
  // restart a healthy process during a database outage.
  app.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/graphql', routes.playground);
  app.use('/graphql', express.json({ limit: JSON_BODY_LIMIT }), routes.graphql);
  app.use('/v1', routes.rest);
  // The OpenAPI document of /v1 is public: partners read it before they have a key.
  app.get('/openapi.json', serveOpenApi());
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
