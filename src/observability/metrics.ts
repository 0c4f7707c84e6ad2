import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics of one app instance. Each instance has its own Registry, never
 * prom-client's global one: tests run several apps in one process, and a second app would
 * otherwise fail to register the same names (or count into the first app's series).
 *
 * Every label takes values from a small fixed set (route templates, methods, status codes,
 * command names, loader names, kinds), never from request data.
 */
export interface Metrics {
  readonly registry: Registry;
  /** `http_requests_total{route,method,status}` */
  readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  /** `http_request_duration_seconds{route,method,status}` */
  readonly httpRequestDuration: Histogram<'route' | 'method' | 'status'>;
  /** `mongodb_commands_total{command,outcome}`, outcome `success` or `failure` */
  readonly mongodbCommands: Counter<'command' | 'outcome'>;
  /** `mongodb_command_duration_seconds{command}` */
  readonly mongodbCommandDuration: Histogram<'command'>;
  /** `dataloader_batch_size{loader}`: keys per batch of each per-request DataLoader */
  readonly dataloaderBatchSize: Histogram<'loader'>;
  /** `rate_limit_rejections_total{kind}`: requests refused by a rate limit, by budget kind (e.g. `read`, `write`) */
  readonly rateLimitRejections: Counter<'kind'>;
  /** `graphql_operations_refused_total{reason}`: requests of `published` keys refused, `not_published` or `registration` */
  readonly operationsRefused: Counter<'reason'>;
  /** `embedded_store_restarts_total`: restarts of the embedded store child after it died */
  readonly embeddedStoreRestarts: Counter;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template (unmatched: no route), method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request arriving to the response being sent, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    mongodbCommands: new Counter({
      name: 'mongodb_commands_total',
      help: 'MongoDB commands sent by the driver, by command name and outcome (success or failure).',
      labelNames: ['command', 'outcome'] as const,
      registers,
    }),
    mongodbCommandDuration: new Histogram({
      name: 'mongodb_command_duration_seconds',
      help: 'Round-trip time of MongoDB commands as the driver measures it, by command name.',
      labelNames: ['command'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    dataloaderBatchSize: new Histogram({
      name: 'dataloader_batch_size',
      help: 'Keys per batch of the per-request DataLoaders, by loader.',
      labelNames: ['loader'] as const,
      // maxBatchSize of every loader is 1000.
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
      registers,
    }),
    rateLimitRejections: new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused because the API key ran out of its rate-limit budget, by budget kind.',
      labelNames: ['kind'] as const,
      registers,
    }),
    operationsRefused: new Counter({
      name: 'graphql_operations_refused_total',
      help: 'GraphQL requests of keys with the published operation policy refused: an unpublished operation (not_published) or an APQ registration (registration).',
      labelNames: ['reason'] as const,
      registers,
    }),
    embeddedStoreRestarts: new Counter({
      name: 'embedded_store_restarts_total',
      help: 'Restarts of the embedded store child after it died (counted when the restart is scheduled).',
      registers,
    }),
  };
}

/** GET /metrics: the registry in Prometheus text format. */
export function serveMetrics(metrics: Metrics): RequestHandler {
  return async (_req, res) => {
    const body = await metrics.registry.metrics();
    res.status(200).type(metrics.registry.contentType).send(body);
  };
}
