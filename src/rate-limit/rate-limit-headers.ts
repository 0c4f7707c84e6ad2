import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitBudgets, type RateLimitState } from './rate-limiter';

/**
 * The rate-limit header fields of draft-ietf-httpapi-ratelimit-headers (draft 09/10: two
 * Structured Fields, each a List of Items named by a quoted policy identifier):
 *
 *   RateLimit-Policy: "reads";q=600;w=60, "writes";q=60;w=60
 *   RateLimit: "reads";r=583;t=17
 *
 * `q` is the quota of the policy, `w` its window in seconds, `r` the units remaining and `t`
 * the seconds until the window ends. The policy lists both budgets of the key; RateLimit names
 * the one the request was charged to. A refused request also gets `Retry-After: <t>`.
 */
export function rateLimitPolicyHeader(budgets: RateLimitBudgets): string {
  return `"reads";q=${budgets.reads};w=${RATE_LIMIT_WINDOW_SECONDS}, "writes";q=${budgets.writes};w=${RATE_LIMIT_WINDOW_SECONDS}`;
}

/** The headers of a response to a request that was charged to a budget. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': rateLimitPolicyHeader(state.budgets),
    RateLimit: `"${state.kind}";r=${state.remaining};t=${state.resetSeconds}`,
    ...(state.exceeded ? { 'Retry-After': String(state.resetSeconds) } : {}),
  };
}
