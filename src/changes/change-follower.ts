import type { ChangeEvent } from './change-events';

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
  /** how long to wait before reading again when nothing was new */
  pollMs: number;
  checkEveryMs: number;
  /** what the waits are timed by */
  now: () => number;
}

/**
 * An endless iterator over a feed numbered by seq: reads a page after the last seq handed over,
 * hands its events over one at a time (each after `check`), and reads again after `pollMs` when
 * nothing was new. It reads only when asked for the next event, so a consumer that stops asking
 * holds at most one page. `return` ends it at once, a wait included (an async generator would
 * finish its wait first, and keep polling for a client that is gone).
 */
export function followChanges(options: FollowOptions): AsyncIterableIterator<FollowedChange> {
  let after = options.start;
  let pending: ChangeEvent[] = [];
  let closed = false;
  let lastCheck = -Infinity;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const pause = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, options.pollMs);
    });
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
          pending = await options.read(after);
          if (pending.length === 0) {
            await pause();
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
      clearTimeout(timer);
      wake?.();
      return done();
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
