import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { Kind, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { rootFields } from '../graphql/root-fields';
import type { RateLimitKind } from './rate-limiter';

/** Static cost units per read unit: a query costs 1 + floor(cost / READ_COST_UNIT) reads. */
export const READ_COST_UNIT = 100;

export interface OperationCharge {
  kind: RateLimitKind;
  weight: number;
}

/**
 * What a GraphQL operation costs against the budgets:
 *
 * - a query (or subscription) costs `1 + floor(cost / 100)` reads, where `cost` is the static
 *   cost graphql-armor computes for its GRAPHQL_MAX_COST limit (objects 2, scalars 1, times 1.5
 *   per level of depth, times `first`/`last`; introspection `__schema` free). A small query
 *   costs 1 read, the largest one the cost limit lets through (5000) costs 51, and an
 *   introspection query 1;
 * - a mutation costs one write per root field it selects (`createJobMatch` twice under two
 *   aliases is two writes), at least 1.
 *
 * The document must have passed validation (Apollo's didResolveOperation, or a persisted operation).
 */
export function operationCharge(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): OperationCharge {
  if (operation.operation === 'mutation') {
    const writes = rootFields(operation, document).filter((field) => field.name.value !== '__typename').length;
    return { kind: 'writes', weight: Math.max(1, writes) };
  }
  return { kind: 'reads', weight: 1 + Math.floor(staticCost(schema, document, operation) / READ_COST_UNIT) };
}

/**
 * Costs already computed, by schema and document: Apollo hands the same parsed document to every
 * request with the same query text (its document store), and the cost is static.
 */
const knownCosts = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<OperationDefinitionNode, number>>>();

/**
 * graphql-armor's cost of one operation of the document, with the options the server's cost
 * limit uses (its defaults, introspection ignored), so the weight and the limit agree.
 */
export function staticCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): number {
  let byDocument = knownCosts.get(schema);
  if (byDocument === undefined) knownCosts.set(schema, (byDocument = new WeakMap()));
  let byOperation = byDocument.get(document);
  if (byOperation === undefined) byDocument.set(document, (byOperation = new Map()));
  let cost = byOperation.get(operation);
  if (cost === undefined) byOperation.set(operation, (cost = computeStaticCost(schema, document, operation)));
  return cost;
}

function computeStaticCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): number {
  const costs: number[] = [];
  validate(schema, document, [
    costLimitRule({
      maxCost: Number.MAX_SAFE_INTEGER,
      ignoreIntrospection: true,
      propagateOnRejection: false,
      onAccept: [(_context, details: { n: number }) => costs.push(details.n)],
    }),
  ]);
  // The rule reports each operation of the document in document order.
  const index = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).indexOf(operation);
  return costs[index] ?? 0;
}
