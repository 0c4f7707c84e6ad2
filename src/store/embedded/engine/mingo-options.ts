import type { Document } from 'bson';
import type { Options } from 'mingo/types';

export interface EvaluationOptions {
  /** MongoDB collation document; passed to mingo for string comparison. */
  readonly collation?: Document;
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
    ...(options.collation ? { collation: options.collation as unknown as Options['collation'] } : {}),
    ...(options.variables ? { variables: options.variables } : {}),
  };
}
