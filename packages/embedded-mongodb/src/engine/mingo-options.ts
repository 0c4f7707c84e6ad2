import type { Document } from 'bson';
import type { Options } from 'mingo/types';

/** Strings compare binarily (the simple collation): the commands refuse any other collation. */
export interface EvaluationOptions {
  /** Values of the `let` option, visible as `$$name` in expressions. */
  readonly variables?: Document;
}

/**
 * mingo options for filters, projections and pipelines. Server-side JavaScript ($where,
 * $function, $accumulator) stays off: a dev store has no business running code sent by clients.
 */
export function mingoOptions(options: EvaluationOptions = {}): Partial<Options> {
  return {
    idKey: '_id',
    scriptEnabled: false,
    useStrictMode: true,
    ...(options.variables ? { variables: options.variables } : {}),
  };
}
