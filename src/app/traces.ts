import { startTracing } from '../observability/tracing';

/**
 * The service's traces, started when this module loads: main.ts imports it first, before the
 * modules that load `node:http` and Express, which the SDK's instrumentations patch as they load.
 * Undefined when the environment asks for no traces (docs/operators.md#traces).
 */
export const tracing = startTracing();
