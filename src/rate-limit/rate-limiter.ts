import type { ApiKeyRecord } from '../auth/api-key-repository';
import { TooManyRequestsError } from '../errors';
import type { RateLimitKind, RateLimitRepository } from './rate-limit-repository';

export type { RateLimitKind } from './rate-limit-repository';

/** Length of the fixed windows the budgets are counted in. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;
const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000;

/** Units an API key may spend per window, for each kind. */
export interface RateLimitBudgets {
  reads: number;
  writes: number;
}

/** Where one request left its key's budget: what the RateLimit headers report. */
export interface RateLimitState {
  /** both budgets of the key (the RateLimit-Policy header) */
  budgets: RateLimitBudgets;
  /** the budget this request was charged to */
  kind: RateLimitKind;
  /** units the request weighs (charged unless it weighs more than the whole budget) */
  cost: number;
  /** units left in the current window, never below 0 */
  remaining: number;
  /** whole seconds until the current window ends, 1 to 60 */
  resetSeconds: number;
  /** true when this request went over the budget and must be refused */
  exceeded: boolean;
}

export type RateLimitRejectionListener = (kind: RateLimitKind) => void;

/**
 * Rate limits per API key: a budget of reads and one of writes per fixed one-minute window,
 * counted in MongoDB (`rateLimits`) so that every instance of the service shares them. A key
 * may carry its own budgets, or be unlimited (then nothing is counted or stored).
 *
 * A request runs only if its whole weight fits in what is left of the budget: an operation is
 * refused whole, never run in part. A rejected request is counted too: a client that keeps
 * hammering gains nothing, and the window's end (Retry-After) is when it may try again. An
 * operation that weighs more than the whole budget can never run; it is refused without being
 * counted (it must be split), so the budget stays for the requests that can.
 */
export class RateLimiter {
  private readonly rejectionListeners: RateLimitRejectionListener[] = [];

  constructor(
    private readonly counters: RateLimitRepository,
    /** RATE_LIMIT_READS / RATE_LIMIT_WRITES: the budgets of keys without their own */
    private readonly defaults: RateLimitBudgets,
    /** injectable so windows can be tested without waiting */
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Hook for metrics: called with the kind of every rejected request. (The composition root
   * wires the `rateLimitRejections` counter of src/observability here.)
   */
  onRejection(listener: RateLimitRejectionListener): void {
    this.rejectionListeners.push(listener);
  }

  /** The key's budgets per window; undefined for an unlimited key. */
  budgetsOf(key: Pick<ApiKeyRecord, 'rateLimit' | 'unlimited'>): RateLimitBudgets | undefined {
    if (key.unlimited) return undefined;
    return key.rateLimit ? { reads: key.rateLimit.reads, writes: key.rateLimit.writes } : { ...this.defaults };
  }

  /**
   * Charges `weight` units of `kind` to the key's current window. Resolves with the state of
   * the budget (`exceeded` when the request must be refused; see `throwIfExceeded`), or
   * undefined for an unlimited key, which costs no database write.
   */
  async charge(key: Pick<ApiKeyRecord, 'id' | 'rateLimit' | 'unlimited'>, kind: RateLimitKind, weight: number): Promise<RateLimitState | undefined> {
    const budgets = this.budgetsOf(key);
    if (budgets === undefined) return undefined;
    const limit = budgets[kind];
    const cost = Math.max(1, Math.floor(weight));
    const possible = cost <= limit;
    const now = this.now().getTime();
    const windowStart = now - (now % WINDOW_MS);
    const windowEnd = windowStart + WINDOW_MS;
    // One window of grace before deletion: an instance whose clock lags a little still finds the counter.
    // An impossible operation adds nothing: the counter is only read, for the RateLimit header.
    const count = await this.counters.add(key.id, kind, new Date(windowStart), possible ? cost : 0, new Date(windowEnd + WINDOW_MS));
    if (possible && count === cost) {
      // The first request of a window clears the key's ended ones. Best effort: a counter left
      // behind is only a small document, which the TTL index or the next window removes.
      this.counters.removeEnded(key.id, new Date(now)).catch(() => undefined);
    }
    const exceeded = !possible || count > limit;
    if (exceeded) for (const listener of this.rejectionListeners) listener(kind);
    return {
      budgets,
      kind,
      cost,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      exceeded,
    };
  }
}

/** The TooManyRequestsError of a request that went over its budget; undefined when it may run. */
export function rejectionOf(state: RateLimitState | undefined): TooManyRequestsError | undefined {
  if (state === undefined || !state.exceeded) return undefined;
  const budget = state.kind === 'reads' ? 'read' : 'write';
  const limit = state.budgets[state.kind];
  if (state.cost > limit) {
    return new TooManyRequestsError(
      state.resetSeconds,
      `This operation costs ${state.cost} ${state.kind}, more than the whole ${budget} budget of this API key (${limit} per ${RATE_LIMIT_WINDOW_SECONDS} seconds); split it into smaller operations.`,
    );
  }
  if (state.cost > 1) {
    return new TooManyRequestsError(
      state.resetSeconds,
      `This operation costs ${state.cost} ${state.kind}, more than the ${budget} budget of this API key (${limit} per ${RATE_LIMIT_WINDOW_SECONDS} seconds) has left; nothing of it was run. Retry after ${state.resetSeconds} seconds.`,
    );
  }
  return new TooManyRequestsError(
    state.resetSeconds,
    `The ${budget} budget of this API key (${state.budgets[state.kind]} per ${RATE_LIMIT_WINDOW_SECONDS} seconds) is spent; retry after ${state.resetSeconds} seconds.`,
  );
}

/** Throws when the request went over its budget (see rejectionOf). */
export function throwIfExceeded(state: RateLimitState | undefined): void {
  const rejection = rejectionOf(state);
  if (rejection) throw rejection;
}
