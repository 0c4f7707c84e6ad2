import { ServiceUnavailableError } from '../errors';

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

  /**
   * `deadlineMs`: a run not settled by then is given up for its callers, who get a
   * ServiceUnavailableError, and the next caller starts a new run. Without it one driver
   * operation that never settles (one caught by a store crash, seen under kill -9 at load)
   * would hold every later caller, and so every request, behind it for good.
   */
  constructor(
    private readonly task: () => Promise<T>,
    private readonly deadlineMs?: number,
  ) {}

  /** The run in flight, if any (a caller content with any run, e.g. a stop, may await it). */
  get running(): Promise<T> | undefined {
    return this.inFlight;
  }

  /** Resolves with (or rejects as) a run that started after this call. */
  run(): Promise<T> {
    if (this.inFlight === undefined) {
      const started = this.withDeadline(this.task()).finally(() => {
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

  private withDeadline(run: Promise<T>): Promise<T> {
    const { deadlineMs } = this;
    if (deadlineMs === undefined) return run;
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ServiceUnavailableError(undefined, { cause: new Error(`a shared run took over ${deadlineMs} ms`) }),
          ),
        deadlineMs,
      );
    });
    // The run given up may still settle later: nobody waits for it any more.
    run.catch(() => undefined);
    return Promise.race([run, givenUp]).finally(() => clearTimeout(timer));
  }
}
