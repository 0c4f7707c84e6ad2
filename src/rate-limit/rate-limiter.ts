import type { ApiKeyRecord } from '../auth/api-key-repository';
import { TooManyRequestsError } from '../errors';
import { RunStartedAfter } from '../cache/run-started-after';
import { windowKey, type RateLimitKind, type RateLimitRepository, type RateLimitWindow } from './rate-limit-repository';
import { systemClock, type Clock } from '../common/clock';

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

/** Hears a buffered flush that failed (its units stay buffered for the next one). */
export type RateLimitFlushFailureListener = (error: unknown) => void;

/** What one instance knows of one window's counter while counting is buffered. */
interface BufferedWindow extends RateLimitWindow {
  windowEnd: number;
  expiresAt: Date;
  /** the counter as last read from the store: every instance's flushed units, ours included */
  shared: number;
  /** when `shared` was read (this limiter's clock, ms) */
  readAt: number;
  /** units handed to the flush in flight */
  flushing: number;
  /** units counted here since, not yet handed to a flush */
  pending: number;
  /** while the first charge of the window on this instance creates or reads the counter */
  opening?: Promise<void>;
}

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
 *
 * With a flush interval (RATE_LIMIT_FLUSH_MS > 0) counting is buffered: the first charge of a
 * window on this instance adds to the shared counter and reads it back (one round trip); after
 * that a request is decided here, from the shared count last read plus the units this instance
 * counted since, and the instance's units go to the store in one bulk write per interval, which
 * also reads every counter back. A decision is never taken on a shared count older than two
 * intervals (an active window is read back every interval, plus the flush's own round trip): a
 * window idle for longer is flushed and read before the next charge is decided. So one
 * instance alone never admits more than the budget, an operation is still refused whole, and
 * across instances a window can be overspent by at most what the other instances admitted in
 * the last three intervals (one for their units to reach the store, two for this instance to
 * read them). Units counted since the last flush are lost if the process dies without stopping
 * (kill -9, a crash): at most one interval of this instance's counting; a stop flushes them.
 * With 0 every request adds to the shared counter itself, as the only instance's units would.
 */
export class RateLimiter {
  private readonly rejectionListeners: RateLimitRejectionListener[] = [];
  private readonly flushFailureListeners: RateLimitFlushFailureListener[] = [];
  /** the windows this instance counts in while buffered, by windowKey */
  private readonly windows = new Map<string, BufferedWindow>();
  private timer: NodeJS.Timeout | undefined;
  /** the flush running, and the one queued to start after it */
  private readonly flushes = new RunStartedAfter(() => this.writeAndRead());

  constructor(
    private readonly counters: RateLimitRepository,
    /** RATE_LIMIT_READS / RATE_LIMIT_WRITES: the budgets of keys without their own */
    private readonly defaults: RateLimitBudgets,
    /** injectable so windows can be tested without waiting */
    private readonly clock: Clock = systemClock,
    /** RATE_LIMIT_FLUSH_MS: 0 counts every request in the store as it comes (see the class comment) */
    private readonly flushMs = 0,
  ) {
    if (!Number.isFinite(flushMs) || flushMs < 0) throw new RangeError('flushMs must be a non-negative number');
  }

  /** Hook for logs: called with the error of every buffered flush that failed. */
  onFlushFailure(listener: RateLimitFlushFailureListener): void {
    this.flushFailureListeners.push(listener);
  }

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
  async charge(
    key: Pick<ApiKeyRecord, 'id' | 'rateLimit' | 'unlimited'>,
    kind: RateLimitKind,
    weight: number,
  ): Promise<RateLimitState | undefined> {
    const budgets = this.budgetsOf(key);
    if (budgets === undefined) return undefined;
    const limit = budgets[kind];
    const cost = Math.max(1, Math.floor(weight));
    const possible = cost <= limit;
    const now = this.clock.now().getTime();
    const windowStart = now - (now % WINDOW_MS);
    const windowEnd = windowStart + WINDOW_MS;
    const units = possible ? cost : 0;
    const count =
      this.flushMs > 0
        ? await this.countBuffered(key.id, kind, windowStart, units, now)
        : await this.countShared(key.id, kind, windowStart, units, now);
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

  /**
   * Writes the units counted here to the store and reads every counter this instance counts in
   * back; resolves once a flush that started after this call is over (a stop awaits it; tests
   * call it instead of waiting for the interval). Rejects when the store failed; the units stay
   * buffered for the next flush.
   */
  flush(): Promise<void> {
    return this.flushes.run();
  }

  /** Adds `units` to the shared counter at once and returns it: every request a round trip. */
  private async countShared(
    apiKeyId: string,
    kind: RateLimitKind,
    windowStart: number,
    units: number,
    now: number,
  ): Promise<number> {
    // One window of grace before deletion: an instance whose clock lags a little still finds the counter.
    // An impossible operation adds nothing: the counter is only read, for the RateLimit header.
    const count = await this.counters.add(
      apiKeyId,
      kind,
      new Date(windowStart),
      units,
      new Date(windowStart + 2 * WINDOW_MS),
    );
    if (units > 0 && count === units) {
      // The first request of a window clears the key's ended ones. Best effort: a counter left
      // behind is only a small document, which the TTL index or the next window removes.
      this.counters.removeEnded(apiKeyId, new Date(now)).catch(() => undefined);
    }
    return count;
  }

  /** Counts `units` here and returns the window's count as this instance knows it (see the class comment). */
  private async countBuffered(
    apiKeyId: string,
    kind: RateLimitKind,
    windowStart: number,
    units: number,
    now: number,
  ): Promise<number> {
    const id = windowKey({ apiKeyId, kind, windowStart: new Date(windowStart) });
    let window = this.windows.get(id);
    if (window === undefined) {
      // The first charge here: through the store, so that what other instances spent counts from the start.
      const opened: BufferedWindow = {
        apiKeyId,
        kind,
        windowStart: new Date(windowStart),
        windowEnd: windowStart + WINDOW_MS,
        expiresAt: new Date(windowStart + 2 * WINDOW_MS),
        shared: 0,
        readAt: now,
        flushing: 0,
        pending: 0,
      };
      let count = 0;
      opened.opening = this.countShared(apiKeyId, kind, windowStart, units, now).then((shared) => {
        count = opened.shared = shared;
        opened.opening = undefined;
      });
      this.windows.set(id, opened);
      try {
        await opened.opening;
      } catch (error) {
        if (this.windows.get(id) === opened) this.windows.delete(id);
        throw error;
      }
      return count;
    }
    if (window.opening !== undefined) {
      await window.opening;
      window = this.windows.get(id) ?? window;
    }
    if (now - window.readAt > 2 * this.flushMs) {
      // Idle for a while: what other instances spent meanwhile is read before deciding.
      await (this.flushes.running ?? this.flush());
      window = this.windows.get(id) ?? window;
    }
    // No await from here to the return: the decision and the count are one step.
    window.pending += units;
    if (units > 0) this.scheduleFlush();
    return window.shared + window.flushing + window.pending;
  }

  private async writeAndRead(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const windows = [...this.windows.values()].filter((window) => window.opening === undefined);
    if (windows.length === 0) return;
    const readAt = this.clock.now().getTime();
    for (const window of windows) {
      window.flushing = window.pending;
      window.pending = 0;
    }
    try {
      const increments = windows
        .filter((window) => window.flushing > 0)
        .map((window) => ({ ...toWindow(window), cost: window.flushing, expiresAt: window.expiresAt }));
      if (increments.length > 0) await this.counters.addMany(increments);
    } catch (error) {
      // Nothing is lost: the units wait for the next flush (if some of them landed, they count twice: refused earlier, never later).
      for (const window of windows) {
        window.pending += window.flushing;
        window.flushing = 0;
      }
      this.reportFlushFailure(error);
      if (windows.some((window) => window.pending > 0)) this.scheduleFlush();
      throw error;
    }
    for (const window of windows) {
      window.shared += window.flushing;
      window.flushing = 0;
    }
    const counts = await this.counters.counts(windows.map(toWindow)).catch((error: unknown) => {
      this.reportFlushFailure(error);
      throw error;
    });
    for (const window of windows) {
      // A counter gone (its window ended long ago) keeps what this instance knows.
      window.shared = Math.max(window.shared, counts.get(windowKey(window)) ?? 0);
      window.readAt = readAt;
      if (window.windowEnd <= readAt && window.pending === 0) this.windows.delete(windowKey(window));
    }
  }

  /** A flush one interval from now, unless one is scheduled (a failed one is reported by writeAndRead). */
  private scheduleFlush(): void {
    this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.flushMs).unref();
  }

  private reportFlushFailure(error: unknown): void {
    for (const listener of this.flushFailureListeners) {
      try {
        listener(error);
      } catch {
        // a failing listener must not hide the flush's own failure
      }
    }
  }
}

function toWindow({ apiKeyId, kind, windowStart }: RateLimitWindow): RateLimitWindow {
  return { apiKeyId, kind, windowStart };
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
