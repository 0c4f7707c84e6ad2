import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { printSchema, type GraphQLSchema } from 'graphql';
import type { OperationExecutor } from './operation-executor';

type Gateway = ApolloServerOptionsWithGateway<BaseContext>['gateway'];
type SchemaListener = Parameters<Gateway['onSchemaLoadOrUpdate']>[0];

/**
 * Apollo Server 5 has no option for its executor; its `gateway` option is the supported way to
 * bring one. This gateway serves one fixed schema, and its executor hands Apollo's parsed and
 * validated document (with the request's operation name, variables and context) to the
 * instance's OperationExecutor. Everything before execution (parsing, validation with the
 * abuse limits, plugins, the context factory) and after it (formatError, HTTP status) stays
 * Apollo's own.
 */
export function executorGateway(schema: GraphQLSchema, executor: OperationExecutor): Gateway {
  const listeners = new Set<SchemaListener>();
  let coreSupergraphSdl: string | undefined;
  return {
    onSchemaLoadOrUpdate(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async load() {
      // Apollo derives its schema data from this notification, which must come before load resolves.
      coreSupergraphSdl ??= printSchema(schema);
      for (const listener of listeners) listener({ apiSchema: schema, coreSupergraphSdl });
      return {
        executor: (requestContext) =>
          executor.execute({
            document: requestContext.document,
            source: requestContext.source,
            operationName: requestContext.request.operationName,
            variableValues: requestContext.request.variables,
            contextValue: requestContext.context,
          }),
      };
    },
    async stop() {
      listeners.clear();
    },
  };
}
