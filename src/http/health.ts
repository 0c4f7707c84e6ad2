import type http from 'node:http';
import express, { type Response, type Router } from 'express';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../errors';
import { problemBody, problemInstance, send } from './problem';
import { PROBLEM_TYPES } from './problem-types';

export interface Health {
  /**
   * GET /healthz (liveness), GET /readyz (readiness), and, while draining, `Connection: close`
   * on every answer. Mount it before the other routes.
   */
  readonly router: Router;
  /**
   * Graceful stop of `server`: readiness turns 503, no new connection is accepted, requests in
   * flight finish (their connections close once answered), and after `graceMs` the connections
   * still open are closed. Resolves when the server has closed; calling it again waits for the same.
   */
  drain(server: http.Server, graceMs: number): Promise<void>;
}

/**
 * Health of one instance, for an orchestrator and a load balancer.
 *
 * `/healthz` answers 200 while the process can answer at all: it never touches the database,
 * so a database outage does not get healthy instances restarted. `/readyz` answers 200 only
 * when the database answers a ping in time and the instance is not shutting down, so that a
 * load balancer sends traffic elsewhere meanwhile; it answers 503 problem+json otherwise.
 */
/** The probes' paths (also route labels of the logs and metrics). */
export const HEALTH_ROUTES = { liveness: '/healthz', readiness: '/readyz' } as const;

export function createHealth(isDatabaseReachable: () => Promise<boolean>): Health {
  let draining: { server: http.Server; closed: Promise<void> } | undefined;

  const router = express.Router();
  router.use((_req, res, next) => {
    if (draining) res.setHeader('Connection', 'close');
    // A keep-alive connection whose request was in flight when draining began is idle once
    // answered: close it then, instead of waiting for the keep-alive timeout.
    res.once('finish', () => {
      if (draining) setImmediate(() => draining?.server.closeIdleConnections());
    });
    next();
  });
  router.get(HEALTH_ROUTES.liveness, (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({ status: 'ok' });
  });
  router.get(HEALTH_ROUTES.readiness, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (draining) return notReady(res, req.originalUrl, 'The service is shutting down.');
    if (!(await isDatabaseReachable())) return notReady(res, req.originalUrl, 'The database cannot be reached.');
    res.status(200).json({ status: 'ready' });
  });

  return {
    router,
    drain(server, graceMs) {
      if (draining) return draining.closed;
      const closed = new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        // Also closes the connections that are idle now (Node >= 19).
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
      });
      draining = { server, closed };
      return closed;
    },
  };
}

function notReady(res: Response, originalUrl: string, detail: string): void {
  send(
    res,
    { status: 503, body: problemBody(PROBLEM_TYPES.serviceUnavailable, detail, problemInstance(originalUrl)) },
    {
      'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
    },
  );
}
