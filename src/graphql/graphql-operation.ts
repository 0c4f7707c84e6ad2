import type { ApolloServerPlugin } from '@apollo/server';
import type { Response } from 'express';

/** Operation names are GraphQL Names; bounded so a log line stays small. */
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/**
 * The HTTP response of a GraphQL request, kept on its context under a symbol: Apollo gives its
 * plugins a shallow copy of the context (which keeps own symbol properties), never the response.
 */
const RESPONSE = Symbol('HTTP response of the GraphQL request');

type Tracked = { [RESPONSE]?: Response };

export interface GraphQLOperationRecorder<TContext extends object> {
  /** Links the context of a request to its response; call it in the context factory. */
  track(context: TContext, res: Response): TContext;
  /** Writes the resolved operation name into res.locals.graphqlOperation, for the request log. */
  readonly plugin: ApolloServerPlugin<TContext>;
}

/**
 * Lets the request log name the GraphQL operation a request ran: Apollo resolves it (from
 * `operationName` or the document's only operation) after the context factory has run.
 */
export function recordGraphQLOperations<TContext extends object>(): GraphQLOperationRecorder<TContext> {
  return {
    track(context, res) {
      (context as Tracked)[RESPONSE] = res;
      return context;
    },
    plugin: {
      async requestDidStart() {
        return {
          async didResolveOperation({ contextValue, operationName }) {
            const res = (contextValue as Tracked)[RESPONSE];
            if (res && operationName && OPERATION_NAME.test(operationName)) res.locals.graphqlOperation = operationName;
          },
        };
      },
    },
  };
}
