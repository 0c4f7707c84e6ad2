import type { CandidateFilter } from './generated/operations';
import {
  candidateFilterOf,
  FILTER_PARAMETERS,
  FLAG,
  parseQuery,
  type ParameterSpec,
  type ParameterValues,
} from './query-parameters';

/**
 * The search filter as /v1 query parameters (FILTER_PARAMETERS) and `includeEmployed`: one parser
 * for every route that selects candidates the way a search does (GET /v1/candidates, GET
 * /v1/statistics), so that a filter parameter added there filters both.
 */
const SELECTION_PARAMETERS = { ...FILTER_PARAMETERS, includeEmployed: FLAG } as const satisfies ParameterSpec;

/** A route's query: its filter (the operation's `filter` and `includeEmployed` variables) and its own parameters. */
export interface FilteredQuery<S extends ParameterSpec> {
  /** absent when no filter parameter was given */
  filter?: CandidateFilter;
  includeEmployed?: boolean;
  values: ParameterValues<S>;
}

/**
 * The query parameters of `url`: the route's own (`spec`) and the filter's, checked together (an
 * unknown or repeated parameter is a 400 naming it, whichever part it would belong to; problems
 * are named in that order).
 */
export function parseFilteredQuery<S extends ParameterSpec>(url: string, spec: S): FilteredQuery<S> {
  const parsed: Record<string, unknown> = parseQuery(url, { ...spec, ...SELECTION_PARAMETERS });
  const filter: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (value !== undefined && name !== 'includeEmployed')
      (Object.hasOwn(FILTER_PARAMETERS, name) ? filter : values)[name] = value;
  }
  const includeEmployed = parsed.includeEmployed as boolean | undefined;
  // Each filter value was made by its parameter's kind (parseQuery): the CandidateFilter input's
  // fields, which the operation's variables check again.
  const candidateFilter = candidateFilterOf(filter);
  return {
    ...(candidateFilter !== undefined ? { filter: candidateFilter } : {}),
    ...(includeEmployed !== undefined ? { includeEmployed } : {}),
    values: values as ParameterValues<S>,
  };
}
