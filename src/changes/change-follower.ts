import type { ChangeEvent } from './change-events';
import type { FeedTip } from './feed-tip';

/** One event of a followed feed, with the cursor to resume after it. */
export interface FollowedChange {
  cursor: string;
  node: ChangeEvent;
}

export interface FollowOptions {
  /** the next events after a seq, in seq order (at most a page) */
  read: (after: number) => Promise<ChangeEvent[]>;
  /** the seq to start after */
  start: number;
  /** the cursor of an event */
  cursorOf: (event: ChangeEvent) => string;
  /** run before each event is handed over (and at least every `checkEveryMs` while idle): throws to end the follow */
  check: () => Promise<void>;
  /** the feed's tip as last seen, and a wait for it to pass a seq (feed-tip.ts) */
  tip: Pick<FeedTip, 'current' | 'wait'>;
  checkEveryMs: number;
  /** what the waits are timed by */
  now: () => number;
}

/**
 * An endless iterator over a feed numbered by seq: reads a page after the last seq handed over,
 * hands its events over one at a time (each after `check`), and when nothing was new reads again
 * once the feed's tip has moved (one poll for the whole process: feed-tip.ts). It reads only when asked for the next event, so a consumer that stops asking
 * holds at most one page. `return` ends it at once, a wait included (an async generator would
 * finish its wait first, and keep polling for a client that is gone).
 */
export function followChanges(options: FollowOptions): AsyncIterableIterator<FollowedChange> {
  let after = options.start;
  let pending: ChangeEvent[] = [];
  let closed = false;
  let lastCheck = -Infinity;
  let cancelWait: (() => void) | undefined;
  /** the tip before the last read: every event up to it had been read */
  let seen: number | undefined;
  let lastReadFound = false;
  // Waits for the tip to pass what was seen before the read, and at most until the next key check is due.
  const pause = async (beyond: number) => {
    const { done, cancel } = options.tip.wait(beyond, options.checkEveryMs);
    cancelWait = cancel;
    await done;
  };
  const done = (): IteratorResult<FollowedChange> => ({ done: true, value: undefined });

  const iterator: AsyncIterableIterator<FollowedChange> = {
    async next() {
      // `closed` is set by `return`, while this waits.
      for (;;) {
        if (closed) return done();
        if (pending.length === 0) {
          if (options.now() - lastCheck >= options.checkEveryMs) {
            await options.check();
            lastCheck = options.now();
          }
          // Read again after a read that found events (a page may not hold them all), else only once
          // the tip has passed what the last read saw (a wait may end on its bound).
          const tip = await options.tip.current();
          if (seen === undefined || tip > seen || lastReadFound) {
            seen = tip;
            pending = await options.read(after);
            lastReadFound = pending.length > 0;
          }
          if (pending.length === 0) {
            await pause(seen);
            continue;
          }
        }
        const event = pending.shift()!;
        await options.check();
        lastCheck = options.now();
        if (closed) return done();
        after = event.seq;
        return { done: false, value: { cursor: options.cursorOf(event), node: event } };
      }
    },
    async return() {
      closed = true;
      cancelWait?.();
      return done();
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
