/**
 * One async task shared by concurrent callers, each of whom needs a run that started after
 * its call: the first caller starts a run; callers arriving while it is in flight wait for the
 * one run queued behind it (the run in flight may predate what they must see), and all of them
 * share that run's answer. Under load that is one task per round instead of one per caller.
 * Used for the read epoch's reads and advances and for the rate limiter's flushes.
 */
export class RunStartedAfter<T> {
  private inFlight: Promise<T> | undefined;
  private queued: Promise<T> | undefined;

  constructor(private readonly task: () => Promise<T>) {}

  /** The run in flight, if any (a caller content with any run, e.g. a stop, may await it). */
  get running(): Promise<T> | undefined {
    return this.inFlight;
  }

  /** Resolves with (or rejects as) a run that started after this call. */
  run(): Promise<T> {
    if (this.inFlight === undefined) {
      const started = this.task().finally(() => {
        if (this.inFlight === started) this.inFlight = undefined;
      });
      this.inFlight = started;
      return started;
    }
    this.queued ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.run();
      });
    return this.queued;
  }
}
