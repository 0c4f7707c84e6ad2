import type { Document } from 'bson';
import { Context, evalExpr } from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import { Query } from 'mingo/query';
import type { Options, PipelineOperator, QueryOperator } from 'mingo/types';
import { compileMatcher, type Matcher, type MatcherOptions } from './match-expression';
import { isPlainObject } from './path-values';
import { ARRAY_FILTER_ELEMENT, PULL_DOCUMENT_MATCHES, PULL_EQUALS_ANY } from './update-operators';
import { compareValues } from './value-order';

/** Strings compare binarily (the simple collation): the commands refuse any other collation. */
export interface EvaluationOptions {
  /** Values of the `let` option, visible as `$$name` in expressions. */
  readonly variables?: Document;
}

/** `$expr` through mingo's aggregation expressions, with the options (variables) of the caller. */
function exprIn(options: Options): MatcherOptions {
  return { expr: (argument) => queryOperators.$expr('$expr', argument, options) };
}

/** The operators a path takes, and the operators that take a whole document, as mongod's parser knows them. */
const PATH_OPERATORS = [
  '$all',
  '$bitsAllClear',
  '$bitsAllSet',
  '$bitsAnyClear',
  '$bitsAnySet',
  '$elemMatch',
  '$eq',
  '$exists',
  '$geoIntersects',
  '$geoWithin',
  '$gt',
  '$gte',
  '$in',
  '$lt',
  '$lte',
  '$mod',
  '$ne',
  '$near',
  '$nearSphere',
  '$nin',
  '$not',
  '$options',
  '$regex',
  '$size',
  '$type',
] as const;
const DOCUMENT_OPERATORS = ['$and', '$or', '$nor', '$jsonSchema', '$where'] as const;

/**
 * mingo's own uses of query operators (`$pull` conditions, array filters, `$elemMatch` and
 * positional projections, `$graphLookup`'s restrictions) run through the store's matcher too:
 * mingo hands each operator its path and operand, and gets back mongod's test of them.
 */
function storeQueryOperators(): Record<string, QueryOperator> {
  const operators: Record<string, QueryOperator> = {};
  for (const name of PATH_OPERATORS) {
    operators[name] = (path: string, operand: unknown, options: Options) => {
      const matcher = compileMatcher({ [path]: { [name]: operand } }, exprIn(options));
      return (doc: Document) => matcher(doc);
    };
  }
  for (const name of DOCUMENT_OPERATORS) {
    operators[name] = (_: string, operand: unknown, options: Options) => {
      const matcher = compileMatcher({ [name]: operand }, exprIn(options));
      return (doc: Document) => matcher(doc);
    };
  }
  // What `$pull` and `$pullAll` are rewritten to (update-operators.ts): mingo's $pull hands each
  // element as the field `path` of a document.
  operators[PULL_EQUALS_ANY] = ((path: string, values: unknown[]) => (doc: Document) =>
    Object.hasOwn(doc, path) &&
    values.some((value) => compareValues(doc[path], value) === 0)) as unknown as QueryOperator;
  operators[PULL_DOCUMENT_MATCHES] = (path: string, query: Document, options: Options) => {
    const matcher = compileMatcher(query, exprIn(options));
    return (doc: Document) => isPlainObject(doc[path]) && matcher(doc[path]);
  };
  // An array filter (update-operators.ts): mingo hands the element as `{identifier: [element]}`.
  operators[ARRAY_FILTER_ELEMENT] = (identifier: string, filter: Document, options: Options) => {
    const matcher = compileMatcher(filter, exprIn(options));
    return (doc: Document) => {
      const wrapped = doc[identifier] as unknown;
      return matcher({ [identifier]: Array.isArray(wrapped) ? wrapped[0] : wrapped });
    };
  };
  return operators;
}

/** A `$match` stage: the filter compiled once by the store's matcher. */
const $match = ((
  collection: { filter(test: (doc: Document) => boolean): unknown },
  filter: Document,
  options: Options,
) => {
  const matcher = compileMatcher(filter, exprIn(options));
  return collection.filter((doc) => matcher(doc));
}) as unknown as PipelineOperator;

/**
 * `$expr` as an aggregation expression (`{$group: {_id: {$expr: …}}}`): its argument's value.
 * mongod takes it anywhere an expression goes; mingo knows it only as a query operator.
 */
const $expr = ((doc: Document, argument: unknown, options: Options) => evalExpr(doc, argument, options)) as never;

/** mingo's operators, with the store's query semantics and `$expr` as an expression. */
const STORE_CONTEXT = Context.init({
  accumulator: { ...accumulatorOperators },
  expression: { ...expressionOperators, $expr },
  pipeline: { ...pipelineOperators, $match },
  projection: { ...projectionOperators },
  query: { ...queryOperators, ...storeQueryOperators() },
  window: { ...windowOperators },
});

/**
 * mingo options for filters, projections and pipelines. Server-side JavaScript ($where,
 * $function, $accumulator) stays off: a dev store has no business running code sent by clients.
 */
export function mingoOptions(options: EvaluationOptions = {}): Partial<Options> {
  return {
    idKey: '_id',
    scriptEnabled: false,
    useStrictMode: true,
    context: STORE_CONTEXT,
    ...(options.variables ? { variables: options.variables } : {}),
  };
}

/**
 * Refuses a filter mongod would refuse, where no document is there to run it on (a collection
 * that does not exist): mongod parses the filter before it looks for the collection.
 */
export function checkFilter(filter: Document, options: EvaluationOptions = {}): void {
  compileStoreFilter(filter, options);
}

/** Compiles a filter with mongod's semantics; `$expr` sees the `let` variables. */
export function compileStoreFilter(filter: Document, options: EvaluationOptions = {}): Matcher {
  let exprOptions: Partial<Options> | undefined;
  return compileMatcher(filter, {
    expr: (argument) => {
      exprOptions ??= mingoOptions(options);
      const query = new Query({ $expr: argument }, exprOptions);
      return (doc) => query.test(doc);
    },
  });
}
