import { throwIfAny, type InputIssue } from '../errors';
import type { CandidateSearchFilter } from './candidate-repository';

/** Bounds of the contract (section 8). */
export const MIN_PAGE = 0;
export const MIN_LIMIT = 1;
export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 10;
/** More codes than this in one filter field is not a search a partner makes; it bounds the work. */
export const MAX_CODES_PER_FILTER = 50;

export interface FilterInput {
  location?: readonly string[] | null;
  nationality?: readonly string[] | null;
  occupation?: readonly string[] | null;
}

const CODE_RULES = {
  location: { pattern: /^[A-Z]{2}$/, rule: 'ISO 3166-1 alpha-2 country codes' },
  nationality: { pattern: /^[A-Z]{2}$/, rule: 'ISO 3166-1 alpha-2 country codes' },
  occupation: { pattern: /^\d{4}$/, rule: 'ISCO-08 unit group codes (4 digits)' },
} as const;

/**
 * Turns the filter of either transport into the repository's filter: codes trimmed, upper
 * case (matching is case-insensitive), empty entries dropped, duplicates removed, and the
 * form of each code checked so that a mistyped parameter is a clear 400, not an empty page.
 */
export function toSearchFilter(
  filter: FilterInput | null | undefined,
  includeEmployed: boolean | null | undefined,
): CandidateSearchFilter {
  const issues: InputIssue[] = [];
  const codes = (field: keyof typeof CODE_RULES): string[] | undefined => {
    const raw = filter?.[field];
    if (raw == null) return undefined;
    const normalised = [...new Set(raw.map((code) => code.trim().toUpperCase()).filter((code) => code !== ''))];
    if (normalised.length > MAX_CODES_PER_FILTER)
      issues.push({ parameter: field, rule: `at most ${MAX_CODES_PER_FILTER} codes` });
    else if (normalised.some((code) => !CODE_RULES[field].pattern.test(code)))
      issues.push({ parameter: field, rule: CODE_RULES[field].rule });
    return normalised.length > 0 ? normalised : undefined;
  };
  const result: CandidateSearchFilter = {
    locations: codes('location'),
    nationalities: codes('nationality'),
    occupations: codes('occupation'),
    includeEmployed: includeEmployed ?? false,
  };
  throwIfAny(issues);
  return result;
}

/** Page and limit of the contract: page >= 0, limit 1..100; null means the default. */
export function toPage(
  page: number | null | undefined,
  limit: number | null | undefined,
): { page: number; limit: number } {
  const issues: InputIssue[] = [];
  const p = page ?? 0;
  const l = limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(p) || p < MIN_PAGE) issues.push({ parameter: 'page', rule: `an integer >= ${MIN_PAGE}` });
  if (!Number.isSafeInteger(l) || l < MIN_LIMIT || l > MAX_LIMIT) {
    issues.push({ parameter: 'limit', rule: `an integer from ${MIN_LIMIT} to ${MAX_LIMIT}` });
  }
  throwIfAny(issues);
  return { page: p, limit: l };
}

export { throwIfAny };
