/**
 * The last seq of the change feed, read for every live follower of this process at once: one
 * read per `pollMs` while any follower waits, instead of one per follower. A follower waits for
 * the tip to pass the tip it saw before its own read: every event up to a tip read is committed
 * (the counter moves in the transaction of its events), so a follower that read nothing after
 * seeing tip `s` has missed nothing up to `s`, and reads again once the tip passes it.
 */
export class FeedTip {
  private seq = -1;
  private readonly waiters = new Set<{ beyond: number; wake: () => void }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly read: () => Promise<number>,
    private readonly pollMs: number,
  ) {}

  /** The tip as last read (read now the first time); an older tip than the store's is safe, never a newer one. */
  async current(): Promise<number> {
    if (this.seq < 0) this.seq = await this.read();
    return this.seq;
  }

  /** Resolves once the tip passes `beyond`, after `atMostMs` at the latest, or at once on `cancel`. */
  wait(beyond: number, atMostMs: number): { done: Promise<void>; cancel: () => void } {
    let cancel = () => undefined as void;
    const done = new Promise<void>((resolve) => {
      const waiter = { beyond, wake: () => finish() };
      const timeout = setTimeout(() => finish(), atMostMs);
      const finish = () => {
        clearTimeout(timeout);
        this.waiters.delete(waiter);
        resolve();
      };
      cancel = finish;
      if (this.seq > beyond) return finish();
      this.waiters.add(waiter);
      this.timer ??= setTimeout(() => void this.poll(), this.pollMs);
    });
    return { done, cancel };
  }

  private async poll(): Promise<void> {
    try {
      this.seq = Math.max(this.seq, await this.read());
    } catch {
      // The store away: the waiters wake at their own bound and read (and fail) themselves.
    }
    for (const waiter of this.waiters) if (this.seq > waiter.beyond) waiter.wake();
    this.timer = this.waiters.size > 0 ? setTimeout(() => void this.poll(), this.pollMs) : undefined;
  }
}
