/**
 * Where the service reads the time. One clock is made in the composition root (createApp) and
 * passed to every rule that depends on "now": rate-limit windows, audit event times, API key
 * expiry and revocation, the createdDate of registrations, offers and job matches, idempotency
 * and registration leases, persisted-query expiry, statistics' age bands. Tests pass a clock
 * they move by hand instead of waiting for the wall clock.
 *
 * Timers that only schedule work (flush intervals, shutdown grace, request timeouts) stay on
 * the event loop's real timers, and durations measured for metrics and logs stay on
 * process.hrtime: neither decides anything by the date.
 */
export interface Clock {
  /** The current time. */
  now(): Date;
}

/** The wall clock: what the service runs on outside tests. */
export const systemClock: Clock = { now: () => new Date() };
