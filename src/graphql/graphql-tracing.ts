import type { ApolloServerPlugin } from '@apollo/server';
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { RequestHandler } from 'express';

const tracer = trace.getTracer('candidate-directory/graphql');
/** The spans `tracedGraphQL` started: the plugin names only these (never an HTTP or Express span). */
const graphqlSpans = new WeakSet<Span>();
/** A GraphQL name (operation, error code): letters, digits and underscores. */
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,127}$/;

/**
 * Runs Apollo's handler for /graphql under a span of its own, so that the store commands the
 * operation sends are its children; the span ends with the response. Traces off, the handler
 * runs as it is.
 */
export function tracedGraphQL(handler: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const span = tracer.startSpan('graphql', {}, context.active());
    if (!span.isRecording()) return handler(req, res, next);
    graphqlSpans.add(span);
    res.once('close', () => span.end());
    return context.with(trace.setSpan(context.active(), span), () => handler(req, res, next));
  };
}

/**
 * Names the GraphQL span after the operation once Apollo resolved it (`query SearchCandidates`)
 * with `graphql.operation.type` and `graphql.operation.name`. Never the document (its literals
 * may be filter values or identity), the variables or an error's message: a failure shows only
 * its code (`BAD_USER_INPUT`).
 */
export function graphqlTracingPlugin<Context extends object>(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      const span = trace.getActiveSpan();
      if (span === undefined || !graphqlSpans.has(span)) return;
      return {
        async didResolveOperation({ operation, operationName }) {
          if (operation === undefined) return;
          const name = operationName !== null && NAME.test(operationName) ? operationName : undefined;
          span.updateName(name === undefined ? operation.operation : `${operation.operation} ${name}`);
          span.setAttribute('graphql.operation.type', operation.operation);
          if (name !== undefined) span.setAttribute('graphql.operation.name', name);
        },
        async didEncounterErrors({ errors }) {
          const code = errors[0]?.extensions?.code;
          span.setAttribute('error.type', typeof code === 'string' && NAME.test(code) ? code : 'GRAPHQL_ERROR');
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
      };
    },
  };
}
