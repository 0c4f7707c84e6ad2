import type http from 'node:http';
import cors, { type CorsOptions } from 'cors';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import helmet from 'helmet';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../errors';
import type { Logger } from '../logger';
import { problemBody, problemInstance, send } from './problem';
import { PROBLEM_TYPES } from './problem-types';

/** Request headers a browser on an allowed origin may send (the preflight allows exactly these). */
export const CORS_ALLOWED_HEADERS = ['X-API-Key', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'] as const;
/** Response headers a script on an allowed origin may read, beyond the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-Id',
  'Idempotent-Replayed',
] as const;
/** How long a browser may cache a preflight answer, in seconds. */
const CORS_MAX_AGE_SECONDS = 600;

/**
 * The policy of every API response, as helmet writes it: JSON may load, run and frame nothing.
 * The playground page of GET /graphql replaces it with its own (src/graphql/playground.ts),
 * which is why helmet runs before the routes: a route's own Content-Security-Policy wins.
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none';frame-ancestors 'none'";

const TIMED_OUT = 'requestTimedOut';

export interface HttpHygiene {
  /** Mounted before every route: security headers, CORS, the per-request timeout. */
  readonly before: RequestHandler[];
  /** Mounted before the last error handler: failures of requests the timeout has already answered. */
  readonly afterTimeout: ErrorRequestHandler;
}

export interface HttpHygieneSettings {
  /** origins allowed to call from a browser (CORS_ORIGINS); empty: none */
  readonly corsOrigins: readonly string[];
  /** REQUEST_TIMEOUT_MS */
  readonly requestTimeoutMs: number;
}

/** The cross-cutting protections of the HTTP edge, in the order they are mounted. */
export function httpHygiene(settings: HttpHygieneSettings, logger: Logger): HttpHygiene {
  return {
    before: [securityHeaders(), corsPolicy(settings.corsOrigins), requestTimeout(settings.requestTimeoutMs)],
    afterTimeout: afterTimeout(logger),
  };
}

/**
 * The Node server's own limits, for clients that never finish a request: the headers must
 * arrive within REQUEST_TIMEOUT_MS, the whole request within twice that (headers, then the
 * time `requestTimeout` gives the handler; the handler's own 503 always comes first). Node
 * checks both every `connectionsCheckingInterval`, a tenth of the timeout here.
 */
export function httpServerOptions(requestTimeoutMs: number): http.ServerOptions {
  return {
    headersTimeout: requestTimeoutMs,
    requestTimeout: 2 * requestTimeoutMs,
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeoutMs / 10))),
  };
}

/**
 * helmet's headers, with a strict policy for API responses: no resources, no framing, no
 * referrer. Strict-Transport-Security is sent as helmet does; browsers honour it only over
 * HTTPS, i.e. behind the TLS-terminating load balancer.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
}

/**
 * CORS for the configured origins only. Any other origin gets no CORS header at all, and its
 * preflight is not answered here (it reaches the routes and fails there, as the browser needs).
 * Credentials are never allowed: callers authenticate with X-API-Key, not cookies.
 */
export function corsPolicy(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  if (allowed.size === 0) return (_req, _res, next) => next();
  const options: CorsOptions = {
    origin: true,
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
  };
  const handler = cors(options);
  return (req, res, next) => {
    // Answers differ by Origin whatever it is, so caches must key on it.
    res.vary('Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return next();
    handler(req, res, next);
  };
}

/**
 * Answers 503 (problem+json, Retry-After) when nothing has been sent `timeoutMs` after the
 * request reached the service, and closes the connection. The work still running is not
 * cancelled; what it tries to send afterwards is dropped (`afterTimeout`). Retrying a POST
 * that timed out is safe with an Idempotency-Key.
 */
export function requestTimeout(timeoutMs: number): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      res.locals[TIMED_OUT] = true;
      const detail = `The request was not answered within ${timeoutMs} ms; retry later.`;
      res.setHeader('Connection', 'close');
      send(
        res,
        { status: 503, body: problemBody(PROBLEM_TYPES.serviceUnavailable, detail, problemInstance(req.originalUrl)) },
        {
          'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
        },
      );
    }, timeoutMs);
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}

/**
 * A request answered by the timeout may still fail later, typically when its handler tries to
 * send ("headers already sent"). That is expected and dropped; any other failure is logged.
 */
function afterTimeout(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.locals[TIMED_OUT] !== true) return next(error);
    if ((error as { code?: unknown }).code !== 'ERR_HTTP_HEADERS_SENT') {
      logger.warn({ err: error, requestId: res.locals.requestId }, 'a request failed after its timeout was answered');
    }
  };
}
