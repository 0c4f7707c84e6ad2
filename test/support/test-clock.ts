import type { Clock } from '../../src/common/clock';

const MINUTE_MS = 60_000;

/** A clock that stands still until the test moves it: what an app under test reads instead of the wall clock. */
export class TestClock implements Clock {
  private time: number;

  constructor(start: string | Date) {
    this.time = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.time);
  }

  /** Jumps to `at` (forwards or backwards). */
  set(at: string | Date): void {
    this.time = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.time += ms;
  }

  /** Moves to `secondsIn` seconds into the next minute: a rate-limit window no request has touched yet. */
  nextMinute(secondsIn = 0): void {
    this.time = this.time - (this.time % MINUTE_MS) + MINUTE_MS + secondsIn * 1000;
  }
}
