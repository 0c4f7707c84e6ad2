import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, OperationTypeNode } from 'graphql';
import { isAppError } from '../errors';
import { httpExtensionOf } from './format-error';
import type { GraphQLContext } from './context';
import { rootFieldNames } from './root-fields';
import type { AuditService } from '../audit/audit-service';

/**
 * The GraphQL side of the audit trail: names the operation (its name and root fields) once Apollo
 * has resolved it, refuses a query while the audit buffer is full (SERVICE_UNAVAILABLE, HTTP 503
 * with Retry-After: reads are not served unaudited), and lets the audit writes of a stopping
 * server finish before the database closes. The event itself is appended when the HTTP response
 * closes (auditWhenClosed), or stored with the write of a mutation.
 */
export function auditPlugin(audit: AuditService): ApolloServerPlugin<GraphQLContext> {
  return {
    async serverWillStart() {
      return {
        async serverWillStop() {
          await audit.drain();
        },
      };
    },
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, schema, contextValue }) {
          if (operation === undefined) return;
          const rootType = schema.getRootType(operation.operation)?.name ?? operation.operation;
          const fields = rootFieldNames(operation, document).map((name) => `${rootType}.${name}`);
          contextValue.audit.describeOperation(operation.name?.value, fields);
          if (operation.operation === OperationTypeNode.MUTATION) return;
          try {
            audit.admitRead();
          } catch (error) {
            if (!isAppError(error)) throw error;
            throw new GraphQLError(error.message, {
              originalError: error,
              extensions: { code: error.code, http: httpExtensionOf(error) },
            });
          }
        },
      };
    },
  };
}
