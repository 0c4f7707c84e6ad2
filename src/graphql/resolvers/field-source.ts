import type { GraphQLField, GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { RequestAudit } from '../../audit/request-audit';
import type { ReferenceCollection, ReferenceDocs, ReferenceKey } from '../../reference/reference-repository';
import type { ReferenceCache } from '../../reference/reference-cache';
import type { Loaders } from '../loaders';
import { loadOptional } from './load';

/**
 * What a resolver does, stated where the resolver is made, so that a compiler can read it
 * instead of guessing from the code: the REST transcoder (src/rest/transcoder) writes a field
 * from stored bytes only when its resolver is one of these. A field without a resolver reads
 * the stored field of its own name. Any other resolver does more than read, rename, look up
 * or join, and an operation that selects it is not compiled.
 *
 * - `stored`: the value at `path` of the parent (a rename when the path is another name).
 * - `reference`: the reference document whose key is the value at `path`, from the
 *   reference data read at start (null when absent or unknown).
 * - `joined`: the document whose publicId is the value at `path`, through the request's
 *   loader of `loader` (null when absent or unknown).
 * - `candidates`: the candidates of the list at `path`, each recorded in the audit trail.
 */
export type FieldSource =
  | { readonly kind: 'stored'; readonly path: readonly string[] }
  | { readonly kind: 'reference'; readonly collection: ReferenceCollection; readonly path: readonly string[] }
  | { readonly kind: 'joined'; readonly loader: 'jobOpportunities'; readonly path: readonly string[] }
  | { readonly kind: 'candidates'; readonly path: readonly string[] };

const SOURCES = new WeakMap<object, FieldSource>();

/** What each described resolver of a schema does, by `Type.field` (the schema holds its resolvers wrapped). */
const SCHEMA_SOURCES = new WeakMap<GraphQLSchema, ReadonlyMap<string, FieldSource>>();

/** Records the descriptions of the resolvers `schema` was built with (createSchema does). */
export function describeFieldSources(schema: GraphQLSchema, resolvers: Readonly<Record<string, unknown>>): void {
  const sources = new Map<string, FieldSource>();
  for (const [typeName, fields] of Object.entries(resolvers)) {
    if (fields === null || typeof fields !== 'object') continue;
    for (const [fieldName, resolve] of Object.entries(fields as Record<string, unknown>)) {
      const source = sourceOfResolver(resolve);
      if (source !== undefined) sources.set(`${typeName}.${fieldName}`, source);
    }
  }
  SCHEMA_SOURCES.set(schema, sources);
}

/**
 * How the resolver of `type.field` in `schema` gets its value: the stored field of the same
 * name when it has no resolver, the description of a described one, undefined for any other.
 */
export function fieldSourceOf(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  field: GraphQLField<unknown, unknown>,
): FieldSource | undefined {
  if (field.resolve === undefined) return { kind: 'stored', path: [field.name] };
  return SCHEMA_SOURCES.get(schema)?.get(`${type.name}.${field.name}`);
}

/** The description of a resolver made by one of the functions below, undefined for any other. */
export function sourceOfResolver(resolve: unknown): FieldSource | undefined {
  return typeof resolve === 'function' ? SOURCES.get(resolve) : undefined;
}

function described<F extends object>(resolve: F, source: FieldSource): F {
  SOURCES.set(resolve, source);
  return resolve;
}

function valueAt(parent: unknown, path: readonly string[]): unknown {
  let value = parent;
  for (const name of path) {
    if (value === null || value === undefined || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** The reference document of `collection` whose key is the parent's value at `path`. */
export function referenceField<C extends ReferenceCollection>(collection: C, ...path: string[]) {
  return described(
    (parent: object, _args: unknown, { reference }: { reference: ReferenceCache }): ReferenceDocs[C] | null =>
      reference.find(collection, valueAt(parent, path) as ReferenceKey<C> | null | undefined),
    { kind: 'reference', collection, path },
  );
}

/** The job opportunity whose publicId is the parent's value at `path`, through the request's loader. */
export function joinedJobOpportunity(...path: string[]) {
  return described(
    (parent: object, _args: unknown, { loaders }: { loaders: Loaders }) =>
      loadOptional(loaders.jobOpportunities, valueAt(parent, path) as string | null | undefined),
    { kind: 'joined', loader: 'jobOpportunities', path },
  );
}

/** The candidates of the parent's list at `path`, each recorded in the request's audit trail. */
export function auditedCandidateList<T extends { publicId: string }>(...path: string[]) {
  return described(
    (parent: object, _args: unknown, { audit }: { audit: RequestAudit }): T[] => {
      const candidates = (valueAt(parent, path) as readonly T[]) ?? [];
      audit.addCandidates(candidates.map((candidate) => candidate.publicId));
      return [...candidates];
    },
    { kind: 'candidates', path },
  );
}
