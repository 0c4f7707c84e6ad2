/**
 * A sorted multiset kept as a list of small sorted chunks (a flat, two-level B-tree). Inserts
 * and deletes cost a binary search plus a splice inside one chunk, so building an index of
 * 100,000 keys one insert at a time stays cheap, while scans walk plain arrays.
 */

const MAX_CHUNK = 512;

/** A place in the list: chunk number and offset inside it. */
interface Position {
  chunk: number;
  offset: number;
}

export class SortedEntries<T> {
  private chunks: T[][] = [];
  private count = 0;

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.count;
  }

  /** Replaces the content with already unsorted items, sorting once (bulk index builds). */
  load(items: T[]): void {
    items.sort(this.compare);
    this.chunks = [];
    const half = MAX_CHUNK / 2;
    for (let i = 0; i < items.length; i += half) this.chunks.push(items.slice(i, i + half));
    this.count = items.length;
  }

  insert(item: T): void {
    if (this.chunks.length === 0) {
      this.chunks.push([item]);
      this.count = 1;
      return;
    }
    const { chunk, offset } = this.firstPosition((entry) => this.compare(entry, item) > 0);
    // Past the end means "append to the last chunk".
    const target = chunk < this.chunks.length ? chunk : this.chunks.length - 1;
    const entries = this.chunks[target];
    entries.splice(chunk < this.chunks.length ? offset : entries.length, 0, item);
    this.count++;
    if (entries.length > MAX_CHUNK) {
      this.chunks.splice(target + 1, 0, entries.splice(entries.length / 2));
    }
  }

  /** Removes the entry comparing equal to `item`; returns false when there is none. */
  delete(item: T): boolean {
    const { chunk, offset } = this.firstPosition((entry) => this.compare(entry, item) >= 0);
    if (chunk >= this.chunks.length) return false;
    const entries = this.chunks[chunk];
    if (this.compare(entries[offset], item) !== 0) return false;
    entries.splice(offset, 1);
    if (entries.length === 0) this.chunks.splice(chunk, 1);
    this.count--;
    return true;
  }

  /**
   * Visits the entries from the first one for which `atOrAfterStart` holds up to the last one
   * for which `beforeEnd` holds, ascending or (reverse) descending, until `visit` returns false.
   * Both predicates must be monotone over the order; both ends are found by binary search, so
   * the walk itself compares nothing. A callback rather than a generator: this is the hot loop.
   */
  forEachInRange(
    atOrAfterStart: (entry: T) => boolean,
    beforeEnd: (entry: T) => boolean,
    reverse: boolean,
    visit: (entry: T) => boolean | void,
  ): void {
    const start = this.firstPosition(atOrAfterStart);
    const end = this.firstPosition((entry) => !beforeEnd(entry));
    if (end.chunk < start.chunk || (end.chunk === start.chunk && end.offset <= start.offset)) return;
    if (!reverse) {
      for (let chunk = start.chunk, offset = start.offset; chunk < this.chunks.length; chunk++, offset = 0) {
        const entries = this.chunks[chunk];
        const stop = chunk === end.chunk ? end.offset : entries.length;
        for (; offset < stop; offset++) if (visit(entries[offset]) === false) return;
        if (chunk === end.chunk) return;
      }
      return;
    }
    for (let chunk = Math.min(end.chunk, this.chunks.length - 1); chunk >= start.chunk; chunk--) {
      const entries = this.chunks[chunk];
      const from = chunk === end.chunk ? end.offset - 1 : entries.length - 1;
      const stop = chunk === start.chunk ? start.offset : 0;
      for (let offset = from; offset >= stop; offset--) if (visit(entries[offset]) === false) return;
    }
  }

  /**
   * A walk over the range of `forEachInRange`, for callers that interleave several ranges (a
   * merge) or jump over entries without visiting them. Valid until the list next changes.
   */
  cursor(atOrAfterStart: (entry: T) => boolean, beforeEnd: (entry: T) => boolean, reverse: boolean): EntryCursor<T> {
    const start = this.firstPosition(atOrAfterStart);
    const end = this.firstPosition((entry) => !beforeEnd(entry));
    return new RangeCursor(this.chunks, start, end, reverse);
  }

  /** Number of entries in a range (same predicates as `range`), without visiting them. */
  countRange(atOrAfterStart: (entry: T) => boolean, beforeEnd: (entry: T) => boolean): number {
    const start = this.firstPosition(atOrAfterStart);
    const end = this.firstPosition((entry) => !beforeEnd(entry));
    return Math.max(0, this.indexOf(end) - this.indexOf(start));
  }

  *[Symbol.iterator](): Generator<T> {
    for (const entries of this.chunks) yield* entries;
  }

  private indexOf(position: Position): number {
    let index = 0;
    for (let i = 0; i < position.chunk && i < this.chunks.length; i++) index += this.chunks[i].length;
    return index + (position.chunk < this.chunks.length ? position.offset : 0);
  }

  /** The first position where the monotone predicate holds (one past the end when it never does). */
  private firstPosition(predicate: (entry: T) => boolean): Position {
    let low = 0;
    let high = this.chunks.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const entries = this.chunks[mid];
      if (predicate(entries[entries.length - 1])) high = mid;
      else low = mid + 1;
    }
    if (low === this.chunks.length) return { chunk: low, offset: 0 };
    const entries = this.chunks[low];
    let lo = 0;
    let hi = entries.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (predicate(entries[mid])) hi = mid;
      else lo = mid + 1;
    }
    return { chunk: low, offset: lo };
  }
}

/** A position in one range of a SortedEntries: the entry under it, and moves forward. */
export interface EntryCursor<T> {
  /** The entry under the cursor; undefined once the range is walked. */
  readonly current: T | undefined;
  /** Moves to the next entry of the range. */
  advance(): void;
  /**
   * Moves over up to `n` entries without visiting them, a chunk at a time (so a deep page costs
   * one step per chunk, not per entry); returns how many it moved over.
   */
  skip(n: number): number;
  /** The entry `n` places after the current one (0: the current one), without moving. */
  peek(n: number): T | undefined;
  /** How many entries are left, the current one included. */
  remaining(): number;
}

/**
 * Walks the entries from `start` (inclusive) to `end` (exclusive), or backwards from the one
 * before `end` down to `start`. Positions are those of firstPosition: an entry, or one past the end.
 */
class RangeCursor<T> implements EntryCursor<T> {
  private chunk: number;
  private offset: number;
  private done: boolean;

  constructor(
    private readonly chunks: readonly T[][],
    private readonly start: Position,
    private readonly end: Position,
    private readonly reverse: boolean,
  ) {
    this.done = end.chunk < start.chunk || (end.chunk === start.chunk && end.offset <= start.offset);
    if (!reverse) {
      this.chunk = start.chunk;
      this.offset = start.offset;
    } else if (end.offset > 0) {
      this.chunk = end.chunk;
      this.offset = end.offset - 1;
    } else {
      this.chunk = end.chunk - 1;
      this.offset = this.done ? 0 : chunks[end.chunk - 1].length - 1;
    }
  }

  get current(): T | undefined {
    return this.done ? undefined : this.chunks[this.chunk][this.offset];
  }

  advance(): void {
    this.skip(1);
  }

  peek(n: number): T | undefined {
    const ahead = this.copy();
    ahead.skip(n);
    return ahead.current;
  }

  remaining(): number {
    return this.copy().skip(Infinity);
  }

  private copy(): RangeCursor<T> {
    const copy = new RangeCursor(this.chunks, this.start, this.end, this.reverse);
    copy.chunk = this.chunk;
    copy.offset = this.offset;
    copy.done = this.done;
    return copy;
  }

  skip(n: number): number {
    let moved = 0;
    while (moved < n && !this.done) {
      if (!this.reverse) {
        // Entries left in this chunk, the current one included.
        const stop = this.chunk === this.end.chunk ? this.end.offset : this.chunks[this.chunk].length;
        const step = Math.min(n - moved, stop - this.offset);
        moved += step;
        this.offset += step;
        if (this.offset < stop) continue;
        if (this.chunk === this.end.chunk || this.chunk + 1 >= this.chunks.length) this.done = true;
        else if (this.chunk + 1 === this.end.chunk && this.end.offset === 0) this.done = true;
        else {
          this.chunk++;
          this.offset = 0;
        }
      } else {
        const stop = this.chunk === this.start.chunk ? this.start.offset : 0;
        const step = Math.min(n - moved, this.offset - stop + 1);
        moved += step;
        this.offset -= step;
        if (this.offset >= stop) continue;
        if (this.chunk === this.start.chunk) this.done = true;
        else {
          this.chunk--;
          this.offset = this.chunks[this.chunk].length - 1;
        }
      }
    }
    return moved;
  }
}
