import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { rootFields } from './root-fields';
import { forEachSelectedField, fragmentsOf } from './selections';
import type { RateLimitKind } from '../rate-limit/rate-limiter';
import { pageReads } from '../rate-limit/read-pricing';

/**
 * The fields that return a page of candidates, by schema coordinate, and the argument that sizes
 * the page: an integer, or a list whose length is the size (`nodes(ids:)` returns one object per id).
 */
const PAGE_FIELDS: Readonly<Record<string, string>> = {
  'Query.candidates': 'limit',
  'Query.candidatesConnection': 'first',
  'Query.candidateChanges': 'first',
  'SavedList.candidates': 'limit',
  'Query.nodes': 'ids',
};

export interface OperationCharge {
  kind: RateLimitKind;
  weight: number;
}

/**
 * What a GraphQL operation costs against the budgets:
 *
 * - a mutation costs one write per root field it selects (`createJobMatch` under 15 aliases is
 *   15 writes), at least 1;
 * - a query costs, for each root field it selects (aliases count apart; `__typename` is free),
 *   the reads of the pages of candidates it returns, at least 1: `candidates(limit: 100)` 10,
 *   `candidatesConnection(first: 25)` 3, `savedList { candidates(limit: 50) }` 5, `candidate`,
 *   `savedList { name }`, `node` or `countries` 1, `nodes(ids:)` with 100 ids 10. A page's size
 *   is its `limit` or `first` argument or the number of `ids`, given inline or as a variable,
 *   else the schema's default (10).
 *
 * The document must have passed validation (Apollo's didResolveOperation, or a persisted operation).
 */
export function operationCharge(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
): OperationCharge {
  const fields = rootFields(operation, document).filter((field) => field.name.value !== '__typename');
  if (operation.operation === OperationTypeNode.MUTATION) return { kind: 'writes', weight: Math.max(1, fields.length) };
  const fragments = fragmentsOf(document);
  const root = schema.getRootType(operation.operation) ?? undefined;
  const pages = new PageCounter(schema, fragments, variables);
  const weight = fields.reduce((sum, field) => sum + Math.max(1, pages.readsOfField(field, root)), 0);
  return { kind: 'reads', weight: Math.max(1, weight) };
}

/** Sums the reads of the candidate pages a selection returns, through nested fields and fragments. */
class PageCounter {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    private readonly variables: Readonly<Record<string, unknown>>,
  ) {}

  readsOfField(field: FieldNode, parent: GraphQLNamedType | undefined): number {
    if (!(isObjectType(parent) || isInterfaceType(parent))) return 0;
    const definition = parent.getFields()[field.name.value];
    if (definition === undefined) return 0;
    const sizeArgument = PAGE_FIELDS[`${parent.name}.${field.name.value}`];
    const own = sizeArgument === undefined ? 0 : pageReads(this.sizeArgument(field, sizeArgument));
    return own + (field.selectionSet ? this.readsOf(field.selectionSet, getNamedType(definition.type)) : 0);
  }

  private readsOf(selectionSet: SelectionSetNode, type: GraphQLNamedType): number {
    let reads = 0;
    // Every spread counts: a fragment spread twice selects its pages twice. The depth and token limits bound the spreads.
    forEachSelectedField(
      [selectionSet],
      this.fragments,
      (field, typeCondition) => {
        reads += this.readsOfField(
          field,
          typeCondition === undefined ? type : (this.schema.getType(typeCondition) ?? type),
        );
      },
      { spreads: 'each' },
    );
    return reads;
  }

  /**
   * The size an argument gives, inline or through a variable: an integer's value, a list's length
   * (a single value where a list is expected counts as one, as GraphQL coerces it); undefined when
   * absent or of another kind.
   */
  private sizeArgument(field: FieldNode, name: string): number | undefined {
    const value: ValueNode | undefined = field.arguments?.find((argument) => argument.name.value === name)?.value;
    if (value === undefined) return undefined;
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind === Kind.LIST) return value.values.length;
    if (value.kind === Kind.STRING) return 1;
    if (value.kind === Kind.VARIABLE) {
      const given = this.variables[value.name.value];
      if (Array.isArray(given)) return given.length;
      if (typeof given === 'string') return 1;
      return typeof given === 'number' && Number.isInteger(given) ? given : undefined;
    }
    return undefined;
  }
}
