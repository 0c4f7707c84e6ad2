import {
  execute,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  print,
  visit,
  BREAK,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { LruCache } from '../../cache/lru-cache';

/** One operation to run: what Apollo's pipeline or a persisted REST operation hands over. */
export interface ExecutionRequest {
  readonly document: DocumentNode;
  /** The document's text, the cache key; printed from `document` when absent. */
  readonly source?: string;
  readonly operationName?: string | null;
  readonly variableValues?: Readonly<Record<string, unknown>> | null;
  readonly contextValue: unknown;
}

/** An operation made ready once (compiled when compiled execution is on), run many times. */
export type PreparedOperation = (
  variableValues: Readonly<Record<string, unknown>> | null | undefined,
  contextValue: unknown,
) => Promise<ExecutionResult>;

/**
 * Runs GraphQL operations on one schema, either with graphql-js `execute` or with operations
 * compiled by graphql-jit into plain functions. Both give the same result, errors included:
 * variables are coerced by graphql-js in both cases (the same values, and the same errors with
 * the same nodes, which Apollo's BAD_USER_INPUT detection relies on), and compiled errors are
 * rebuilt as graphql-js errors (the same `originalError`, which `unwrapResolverError` and the
 * REST edge look at, the same extensions, path and locations).
 */
export interface OperationExecutor {
  /** False when GRAPHQL_JIT is off: every operation then runs through graphql-js `execute`. */
  readonly compiled: boolean;
  /** Runs an operation of a client; it is compiled once it has been seen `compileAfter` times. */
  execute(request: ExecutionRequest): Promise<ExecutionResult>;
  /** Compiles one operation now (persisted operations, at start). */
  prepare(document: DocumentNode, operationName?: string): PreparedOperation;
}

export interface OperationExecutorOptions {
  /** Compiled execution (GRAPHQL_JIT); false runs everything through graphql-js. */
  compiled: boolean;
  /** Most operations whose compiled form is kept (least recently used go first). */
  cacheSize?: number;
  /**
   * Executions of the same document after which it is compiled. Compiling costs far more than
   * one interpreted run, so an operation seen once (an analyst's ad-hoc query) is not compiled.
   */
  compileAfter?: number;
}

/** Compiling a large operation takes milliseconds and its code stays in memory: a few hundred suffice for real clients. */
const DEFAULT_CACHE_SIZE = 200;
const DEFAULT_COMPILE_AFTER = 2;

interface CacheEntry {
  runs: number;
  /** undefined: not compiled yet; null: runs interpreted for good (introspection, or graphql-jit refused it). */
  prepared?: PreparedOperation | null;
}

/**
 * The executor of one app instance over one schema. Its cache holds compiled code of
 * operations (documents the clients sent, never variables, contexts or results), so it is no
 * cache of caller data; it belongs to the instance, which drops it with the schema.
 */
export function createOperationExecutor(schema: GraphQLSchema, options: OperationExecutorOptions): OperationExecutor {
  const cache = new LruCache<string, CacheEntry>(options.cacheSize ?? DEFAULT_CACHE_SIZE);
  const compileAfter = options.compileAfter ?? DEFAULT_COMPILE_AFTER;

  const interpreted =
    (document: DocumentNode, operationName: string | null | undefined): PreparedOperation =>
    async (variableValues, contextValue) =>
      execute({ schema, document, operationName, variableValues: variableValues ?? undefined, contextValue });

  const prepare = (document: DocumentNode, operationName?: string | null): PreparedOperation => {
    if (!options.compiled) return interpreted(document, operationName);
    return compile(schema, document, operationName) ?? interpreted(document, operationName);
  };

  return {
    compiled: options.compiled,
    prepare,
    async execute(request) {
      const { document, operationName, variableValues, contextValue } = request;
      if (!options.compiled)
        return execute({ schema, document, operationName, variableValues: variableValues ?? undefined, contextValue });
      const key = `${operationName ?? ''}\u0000${request.source ?? print(document)}`;
      let entry = cache.get(key);
      if (entry === undefined) {
        entry = { runs: 0 };
        cache.set(key, entry);
      }
      entry.runs++;
      if (entry.prepared === undefined && entry.runs >= compileAfter) {
        entry.prepared = selectsIntrospection(document) ? null : (compile(schema, document, operationName) ?? null);
      }
      return (entry.prepared ?? interpreted(document, operationName))(variableValues, contextValue);
    },
  };
}

/**
 * Attaches the executor of an app instance to that instance's schema, so that every transport
 * built over the schema finds the same one (and one cache). A WeakMap: the executor goes when
 * the schema does, and a schema of another instance (tests start several) has its own.
 */
const executors = new WeakMap<GraphQLSchema, OperationExecutor>();

export function attachOperationExecutor(schema: GraphQLSchema, options: OperationExecutorOptions): OperationExecutor {
  const executor = createOperationExecutor(schema, options);
  executors.set(schema, executor);
  return executor;
}

/**
 * The executor attached to `schema`; a schema built outside `createApp` (tests of one
 * transport) gets one with `options` (default: compiled, as GRAPHQL_JIT's default).
 */
export function operationExecutorOf(
  schema: GraphQLSchema,
  options: OperationExecutorOptions = { compiled: true },
): OperationExecutor {
  return executors.get(schema) ?? attachOperationExecutor(schema, options);
}

/** The compiled form of an operation, or undefined when graphql-jit cannot compile it (graphql-js then runs it). */
function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): PreparedOperation | undefined {
  const operation = getOperationAST(document, operationName);
  if (operation == null) return undefined; // graphql-js reports the missing or ambiguous operation
  let compiled: CompiledQuery | ExecutionResult;
  try {
    compiled = compileQuery(schema, document, operationName ?? undefined);
  } catch {
    return undefined;
  }
  if (!isCompiledQuery(compiled)) return undefined;
  const interpretedRun = (
    variableValues: Readonly<Record<string, unknown>> | null | undefined,
    contextValue: unknown,
  ) => execute({ schema, document, operationName, variableValues: variableValues ?? undefined, contextValue });
  return async (variableValues, contextValue) => {
    const coerced = coerceVariables(schema, operation, variableValues);
    if ('errors' in coerced) return { errors: coerced.errors };
    const result = await compiled.query(undefined, contextValue, coerced.values);
    // graphql-jit coerces the (already coerced) variables again; it answers without data only
    // when it refused them, which graphql-js did not: graphql-js then has the last word.
    if (!('data' in result)) return interpretedRun(variableValues, contextValue);
    return result.errors === undefined ? result : { ...result, errors: result.errors.map(asGraphQLJsError) };
  };
}

/** Variable coercion exactly as graphql-js `execute` does it (same values, same errors, same limit of 50). */
function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variableValues: Readonly<Record<string, unknown>> | null | undefined,
): { values: Record<string, unknown> } | { errors: readonly GraphQLError[] } {
  const result = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {}, {
    maxErrors: 50,
  });
  return result.errors ? { errors: result.errors } : { values: result.coerced };
}

/**
 * graphql-jit reports a field's failure with its own GraphQLError (an instance of graphql-js's
 * by prototype only: no `nodes`, `extensions` possibly undefined, which Apollo's formatting does
 * not expect). graphql-js would have made it with `locatedError`; this does the same.
 */
function asGraphQLJsError(error: GraphQLError): GraphQLError {
  if (Object.getPrototypeOf(error) === GraphQLError.prototype) return error;
  const original: unknown = error.originalError;
  // locatedError returns an error that already has a path as it is.
  if (original instanceof GraphQLError && original.path !== undefined) return original;
  const rebuilt = new GraphQLError(error.message, {
    path: error.path,
    // graphql-js reports a null in a non-null field (and other completion failures) with a
    // plain Error as the original, where graphql-jit gives none.
    originalError: original instanceof Error ? original : new Error(error.message),
  });
  return Object.assign(rebuilt, { locations: error.locations });
}

/** Introspection runs rarely (tools, the playground) and is left to graphql-js. */
function selectsIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}
