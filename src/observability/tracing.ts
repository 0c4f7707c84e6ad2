import type { IncomingMessage } from 'node:http';
import type { Attributes } from '@opentelemetry/api';
import { tracingRequested } from '../config';

/** The service's traces: started once, before the HTTP server and Express are loaded. */
export interface Tracing {
  /** Exports the spans still buffered and stops the SDK (at shutdown). */
  shutdown(): Promise<void>;
}

/** A query parameter's name as a span shows it: a plain name (the contract's); anything else could be a value. */
const PARAMETER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

/** What a span shows of a query string: the parameters' names, never their values (filter values). */
export function queryWithoutValues(search: string): string {
  return [...new URLSearchParams(search).keys()]
    .map((name) => `${PARAMETER_NAME.test(name) ? name : 'REDACTED'}=REDACTED`)
    .join('&');
}

/**
 * The attributes the HTTP instrumentation is given for an incoming request, after its own: its
 * `url.query` holds every value of the query string (a search's filter values), so it is
 * replaced with the parameters' names.
 */
function incomingRequestAttributes(request: IncomingMessage): Attributes {
  const at = request.url?.indexOf('?') ?? -1;
  return at < 0 || request.url === undefined ? {} : { 'url.query': queryWithoutValues(request.url.slice(at + 1)) };
}

/**
 * Starts OpenTelemetry's Node SDK when the environment asks for traces (tracingRequested), and
 * returns undefined otherwise: then the SDK is not even loaded, and the tracer the service's
 * own spans use is the API's no-op one.
 *
 * The SDK reads every setting from the standard OTEL_* variables (exporter, endpoint, protocol,
 * headers, sampler, propagators: W3C `traceparent` by default). Spans come from the HTTP and
 * Express instrumentations, the GraphQL plugin (src/graphql/graphql-tracing.ts) and the
 * driver's command events (mongo-command-spans.ts). Only traces: the metrics are Prometheus'
 * (GET /metrics) and the logs pino's, so the SDK's metric and log exporters are not started.
 * Request and response headers and bodies are never recorded (no header capture is configured),
 * and outgoing HTTP requests (webhook deliveries, whose URLs may hold a partner's token) get no span.
 */
export function startTracing(): Tracing | undefined {
  if (!tracingRequested()) return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when traces are asked for: the SDK takes seconds to load */
  const { NodeSDK, resources } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    // The service's name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names it otherwise.
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ 'service.name': 'candidate-directory' })),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        disableOutgoingRequestInstrumentation: true,
        startIncomingSpanHook: incomingRequestAttributes,
      }),
      // Routers and route handlers (`request handler - /v1/candidates/:publicId`), not every middleware.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
