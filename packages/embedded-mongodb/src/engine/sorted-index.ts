import type { Document } from 'bson';
import { CommandError } from '../errors';
import type { EngineSpace } from '../persistence/engine-space';
import { idPrefix, RECORD_NUMBER_BYTES, recordNumberOf } from '../persistence/storage-engine';
import type { IndexSpec } from './index-spec';
import { decodeKey, encodedLength, encodeKey, keyRangeBounds } from './key-string';
import type { Matcher } from './match-expression';
import { compileStoreFilter } from './mingo-options';
import { isPathMissing, valuesAtPath } from './path-values';
import { textIndexKeys } from './text/text-spec';
import type { StoredRecord } from './stored-record';
import { compareValues } from './value-order';

export interface IndexEntry {
  readonly key: readonly unknown[];
  /** The record's number (what a reader that needs no document uses). */
  readonly seq: number;
  /** The record, made on first use. */
  readonly record: StoredRecord;
}

/**
 * A contiguous stretch of an index in index order: from `start` to `end`, both key prefixes
 * (an empty prefix leaves that side open).
 */
export interface KeyRange {
  readonly start: readonly unknown[];
  readonly startInclusive: boolean;
  readonly end: readonly unknown[];
  readonly endInclusive: boolean;
}

export const FULL_RANGE: KeyRange = { start: [], startInclusive: true, end: [], endInclusive: true };

/** A position in one range of an index: the entry under it, and moves forward. */
export interface EntryCursor<T> {
  /** The entry under the cursor; undefined once the range is walked. */
  readonly current: T | undefined;
  /** Moves to the next entry of the range. */
  advance(): void;
  /** Moves over up to `n` entries without reading them (the B-tree walks them); returns how many. */
  skip(n: number): number;
  /** The entry `n` places after the current one (0: the current one), without moving. */
  peek(n: number): T | undefined;
  /** How many entries are left, the current one included, counting no further than `max`. */
  remaining(max: number): number;
}

/** What an index needs of its collection: the engine, records by number, and its write generation. */
export interface IndexHost {
  readonly engine: EngineSpace;
  record(seq: number): StoredRecord;
  /** Changes with every write to the collection (see SortedIndex's counts). */
  generation(): number;
}

/** Entries of a range beyond which the planner's estimate stops counting (see `estimate`). */
export const ESTIMATE_CAP = 2000;

/** Entries between two keys a range remembers for skips (see `keyAtPosition`). */
const SKIP_CHECKPOINT_STEP = 4096;

/** Ranges whose skip checkpoints an index remembers at most. */
const MAX_CHECKPOINTED_RANGES = 64;

/** Range counts an index remembers at most (see `remembered`). */
const MAX_REMEMBERED_COUNTS = 256;

/** Keys per document above which a compound multikey index is refused rather than exploded. */
const MAX_KEYS_PER_DOCUMENT = 10_000;

/** LMDB's largest key (page size 8192) less the index id and the record number. */
const MAX_ENCODED_KEY_BYTES = 4026 - 4 - RECORD_NUMBER_BYTES;

/** Entries hold nothing but their key: the key's values are decoded from it. */
const NO_VALUE = Buffer.alloc(0);

/**
 * A secondary (or the `_id`) index: entries `index id + encoded key + record number` in the
 * storage engine's `entries` space, ordered by the encoded key as compareKeys orders keys (see
 * key-string.ts), so range walks, skips and counts run in the B-tree. An entry stores nothing
 * else: its key's values are decoded from its bytes (numbers as the doubles they compare as).
 */
export class SortedIndex {
  /** Set once any document put an array on an indexed path; never cleared, as in MongoDB. */
  multikey = false;
  /** Positions of the fields on which some document had an array (MongoDB's multikey paths). */
  readonly multikeyFields = new Set<number>();
  /** True when keysOf found a new multikey field since the catalog last saved this index. */
  multikeyChanged = false;
  private readonly directions: readonly number[];
  private readonly partialFilter?: Matcher;
  private readonly prefix: Buffer;
  private readonly afterLast: Buffer;
  /** Counts of ranges (`remembered`). */
  private readonly counts = new UntilWritten<number>(MAX_REMEMBERED_COUNTS);
  /** Per range walked by a skip: the keys at positions STEP-1, 2·STEP-1, … (`keyAtPosition`). */
  private readonly checkpoints = new UntilWritten<Buffer[]>(MAX_CHECKPOINTED_RANGES);
  /** What readers derived from the entries (`rememberDerived`). */
  private readonly derived = new UntilWritten<unknown>(MAX_REMEMBERED_COUNTS);

  constructor(
    readonly spec: IndexSpec,
    /** The index's id in the engine: the first four bytes of its entries. */
    readonly id: number,
    private readonly host: IndexHost,
  ) {
    this.directions = spec.fields.map((field) => field.direction);
    if (spec.partialFilterExpression) this.partialFilter = compileStoreFilter(spec.partialFilterExpression);
    this.prefix = idPrefix(id);
    this.afterLast = idPrefix(id + 1);
  }

  get name(): string {
    return this.spec.name;
  }

  get size(): number {
    return this.count(FULL_RANGE);
  }

  /** True when the index can answer for every document (neither sparse nor partial, nor a text index). */
  get complete(): boolean {
    return !this.spec.sparse && !this.partialFilter && !this.spec.text;
  }

  /** Restores what the catalog saved of the index's multikey paths. */
  restoreMultikey(fields: readonly number[]): void {
    for (const field of fields) this.multikeyFields.add(field);
    this.multikey = fields.length > 0;
  }

  /** The keys a document contributes; none when a sparse or partial index leaves it out. */
  keysOf(doc: Document): unknown[][] {
    const { fields } = this.spec;
    if (this.partialFilter && !this.partialFilter(doc)) return [];
    if (this.spec.text) return this.textKeys(doc);
    if (this.spec.sparse && fields.every((field) => isPathMissing(doc, field.parts))) return [];
    // Every combination of the fields' values (one value each when no array is met): built with
    // plain loops, as this runs for every index of every document written or indexed.
    let keys: unknown[][] = [[]];
    for (let position = 0; position < fields.length; position++) {
      const { values, throughArray } = valuesAtPath(doc, fields[position].parts);
      if (throughArray && !this.multikeyFields.has(position)) {
        this.multikeyFields.add(position);
        this.multikey = true;
        this.multikeyChanged = true;
      }
      if (keys.length * values.length > MAX_KEYS_PER_DOCUMENT) {
        throw new CommandError('CannotIndexParallelArrays', `cannot index parallel arrays (index ${this.spec.name})`);
      }
      if (values.length === 1) {
        for (const key of keys) key.push(values[0]);
        continue;
      }
      const extended: unknown[][] = [];
      for (const prefix of keys) {
        for (const value of values) {
          const key = prefix.slice();
          key.push(value);
          extended.push(key);
        }
      }
      keys = extended;
    }
    return keys;
  }

  /** A text index's keys: one per distinct term of the document, which makes the index multikey. */
  private textKeys(doc: Document): unknown[][] {
    const keys = textIndexKeys(doc, this.spec.text!);
    const termPosition = this.spec.text!.before.length;
    if (keys.length > 1 && !this.multikeyFields.has(termPosition)) {
      this.multikeyFields.add(termPosition);
      this.multikey = true;
      this.multikeyChanged = true;
    }
    return keys;
  }

  /** Throws what storing `keys` would throw (a key the engine cannot hold), storing nothing. */
  checkKeys(keys: readonly unknown[][]): void {
    for (const key of keys) this.encoded(key);
  }

  insert(seq: number, keys: readonly unknown[][]): void {
    const { engine } = this.host;
    // Counted as stored: a key repeated in `keys` is one entry.
    let added = 0;
    for (const key of keys) if (wasAdded(engine.entries, this.entryKey(key, seq), NO_VALUE)) added++;
    if (added > 0) engine.addCount(this.id, added);
  }

  remove(seq: number, keys: readonly unknown[][]): void {
    const { engine } = this.host;
    let removed = 0;
    for (const key of keys) if (wasRemoved(engine.entries, this.entryKey(key, seq))) removed++;
    if (removed > 0) engine.addCount(this.id, -removed);
  }

  /**
   * An entry's key as a string of its bytes (latin1: one character a byte), for a bulk build:
   * such strings sort as their bytes do, and take far less memory than as many Buffers.
   */
  sortableEntry(key: readonly unknown[], seq: number): string {
    return this.entryKey(key, seq).toString('latin1');
  }

  /**
   * Bulk build of an index that holds nothing yet and whose id is the newest: sorts the entries
   * (from `sortableEntry`) and appends them to the B-tree in order. Returns the first key held by
   * two documents when the index is unique (nothing is then stored: the caller rolls back).
   */
  appendSorted(entries: string[]): readonly unknown[] | undefined {
    entries.sort();
    const { engine } = this.host;
    let stored = 0;
    let previous: string | undefined;
    for (const entry of entries) {
      if (entry === previous) continue; // a document's repeated key is one entry
      if (this.spec.unique && previous !== undefined && sameKeyPart(previous, entry)) {
        return decodeKey(
          Buffer.from(entry, 'latin1'),
          this.directions,
          this.prefix.length,
          entry.length - RECORD_NUMBER_BYTES,
        );
      }
      engine.entries.putSync(Buffer.from(entry, 'latin1'), NO_VALUE, { append: true });
      previous = entry;
      stored++;
    }
    if (stored > 0) engine.addCount(this.id, stored);
    return undefined;
  }

  /** Removes every entry (dropIndex, dropCollection). */
  clear(): void {
    const { engine } = this.host;
    for (const key of engine.entries.getKeys({ start: this.prefix, end: this.afterLast }) as Iterable<Buffer>)
      engine.entries.removeSync(key);
    engine.forgetCount(this.id);
  }

  /** The first key among `keys` held by a record other than `self`, for unique checks. */
  conflictingKey(keys: readonly unknown[][], self?: number): readonly unknown[] | undefined {
    const { entries } = this.host.engine;
    for (const key of keys) {
      const start = Buffer.concat([this.prefix, Buffer.from(this.encoded(key))]);
      const end = Buffer.concat([start, Buffer.alloc(RECORD_NUMBER_BYTES, 0xff), Buffer.from([0xff])]);
      for (const found of entries.getKeys({ start, end }) as Iterable<Buffer>) {
        // Only entries of exactly this key: a key's encoding is followed by the record number.
        if (found.length !== start.length + RECORD_NUMBER_BYTES) continue;
        if (recordNumberOf(found) !== self) return key;
      }
    }
    return undefined;
  }

  /**
   * Visits the entries of a range in index order (or reversed) until `visit` returns false. With
   * `fields`, each entry's key holds only its first `fields` values (a reader that needs no more
   * decodes no more).
   */
  scan(
    range: KeyRange,
    reverse: boolean,
    visit: (entry: IndexEntry) => boolean | void,
    fields = this.directions.length,
  ): void {
    const decoder = new EntryDecoder(
      this.host,
      this.prefix.length,
      this.directions.slice(0, fields),
      fields >= this.directions.length,
    );
    for (const raw of this.rawRange(range, reverse, 0)) {
      if (visit(decoder.entry(raw)) === false) return;
    }
  }

  /**
   * Visits, in index order, the entries of a range whose bounds hold the same first `from`
   * values (one exact key prefix), with the record number and the `count` values after that
   * prefix: a reader that knows the prefix decodes none of it, and no entry object is made. The
   * entry's bytes come along (its own copy), with where the values after the prefix start in
   * them, for a reader that compares the rest of the key as bytes (see `fieldStart`).
   */
  scanAfterPrefix(
    range: KeyRange,
    from: number,
    count: number,
    visit: (seq: number, values: unknown[], key: Buffer, start: number) => void,
  ): void {
    const start = this.prefix.length + encodeKey(range.start.slice(0, from), this.directions.slice(0, from)).length;
    const directions = this.directions.slice(from, from + count);
    for (const raw of this.rawRange(range, false, 0)) {
      visit(recordNumberOf(raw), decodeKey(raw, directions, start, raw.length - RECORD_NUMBER_BYTES), raw, start);
    }
  }

  /**
   * Where field `field` starts in an entry's bytes, given where field `from` starts (`start`).
   * From there to `keyEnd` the bytes compare as the key's remaining fields do in index order.
   */
  fieldStart(key: Uint8Array, from: number, start: number, field: number): number {
    return start + encodedLength(key, this.directions.slice(from, field), start);
  }

  /**
   * What a reader derived from this index's entries (a text search's number of matches), by
   * name, remembered as range counts are: until the collection is next written.
   */
  rememberDerived<V>(name: string, make: () => V): V {
    if (this.host.engine.inWriteTransaction) return make();
    return this.derived.get(this.host.generation(), name, make) as V;
  }

  /** A cursor over the entries of a range, in index order (or reversed). */
  cursor(range: KeyRange, reverse: boolean): EntryCursor<IndexEntry> {
    return new IndexCursor(this, range, reverse, new EntryDecoder(this.host, this.prefix.length, this.directions));
  }

  /**
   * The entries of a range, counted up to ESTIMATE_CAP: what the planner compares plans by. The
   * B-tree counts a range by walking it, so a plan's cost is estimated without walking a large
   * range to its end (whole indexes are counted exactly, from their stored count).
   */
  estimate(range: KeyRange): number {
    if (range.start.length === 0 && range.end.length === 0) return this.host.engine.count(this.id);
    const { start, end } = this.bounds(range);
    return this.remembered('estimate', start, end, () => {
      const beyond = this.rawRange(range, false, ESTIMATE_CAP - 1)
        [Symbol.iterator]()
        .next();
      return beyond.done ? this.count(range) : ESTIMATE_CAP;
    });
  }

  count(range: KeyRange): number {
    if (range.start.length === 0 && range.end.length === 0) return this.host.engine.count(this.id);
    const { start, end } = this.bounds(range);
    return this.remembered('count', start, end, () => this.host.engine.entries.getKeysCount({ start, end }));
  }

  /**
   * A count of the range [start, end), remembered until the collection is next written: the
   * B-tree counts by walking, and every page of a search asks for the same total. Outside write
   * transactions only, whose reads may see what a rollback takes back.
   */
  private remembered(kind: string, start: Buffer, end: Buffer, count: () => number): number {
    if (this.host.engine.inWriteTransaction) return count();
    const key = `${kind}:${start.toString('latin1')}:${end.toString('latin1')}`;
    return this.counts.get(this.host.generation(), key, count);
  }

  all(): Iterable<IndexEntry> {
    const decoder = new EntryDecoder(this.host, this.prefix.length, this.directions);
    const raws = this.rawRange(FULL_RANGE, false, 0);
    return (function* () {
      for (const raw of raws) yield decoder.entry(raw);
    })();
  }

  /** Compares two keys in index order (directions applied), from field `from` on. */
  compareKeys(a: readonly unknown[], b: readonly unknown[], from = 0): number {
    const n = Math.min(a.length, b.length);
    for (let i = from; i < n; i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c * this.directions[i];
    }
    return 0;
  }

  /** The keys of the entries of a range from `offset` on (after `after`, when given). */
  rawRange(range: KeyRange, reverse: boolean, offset: number, after?: Buffer): Iterable<Buffer> {
    const { start, end } = this.bounds(range);
    const { entries } = this.host.engine;
    if (!reverse) {
      return entries.getRange({
        start: after ?? start,
        end,
        offset,
        values: false,
        exclusiveStart: after !== undefined,
        snapshot: false,
      } as never) as Iterable<Buffer>;
    }
    return entries.getRange({
      start: after ?? end,
      end: start,
      reverse: true,
      offset,
      values: false,
      exclusiveStart: true,
      inclusiveEnd: true,
      snapshot: false,
    } as never) as Iterable<Buffer>;
  }

  /**
   * The key of the entry at `position` (0 the first) of a range in walking order, or undefined
   * when the range is shorter. The B-tree finds an offset only by walking to it, so the keys met
   * every SKIP_CHECKPOINT_STEP entries are remembered until the collection is next written: a
   * later skip into the same range walks from the nearest of them, not from the start (every
   * page of a search skips into the same range).
   */
  keyAtPosition(range: KeyRange, reverse: boolean, position: number): Buffer | undefined {
    if (this.host.engine.inWriteTransaction) return this.walkTo(range, reverse, -1, undefined, position);
    const { start, end } = this.bounds(range);
    const name = `${reverse ? 'r' : 'f'}:${start.toString('latin1')}:${end.toString('latin1')}`;
    const keys = this.checkpoints.get(this.host.generation(), name, () => []);
    // Start from the last checkpoint at or before `position`.
    let at = Math.min(keys.length, Math.floor((position + 1) / SKIP_CHECKPOINT_STEP)) - 1;
    let from = at >= 0 ? keys[at] : undefined;
    let fromPosition = at >= 0 ? (at + 1) * SKIP_CHECKPOINT_STEP - 1 : -1;
    if (fromPosition === position) return from;
    // Walk checkpoint to checkpoint, remembering the new ones, then to `position`.
    for (;;) {
      const nextCheckpoint = fromPosition + SKIP_CHECKPOINT_STEP;
      const target = Math.min(position, nextCheckpoint);
      const key = this.walkTo(range, reverse, fromPosition, from, target);
      if (key === undefined || target === position) return key;
      at++;
      if (at === keys.length) keys.push(key);
      from = key;
      fromPosition = target;
    }
  }

  /** The key at `target`, walking from the entry at `fromPosition` (key `from`; -1: the start). */
  private walkTo(
    range: KeyRange,
    reverse: boolean,
    fromPosition: number,
    from: Buffer | undefined,
    target: number,
  ): Buffer | undefined {
    const walked =
      from === undefined
        ? this.rawRange(range, reverse, target)
        : this.rawRange(range, reverse, target - fromPosition - 1, from);
    const found = walked[Symbol.iterator]().next();
    return found.done ? undefined : Buffer.from(found.value);
  }

  /** How many entries of a range lie strictly after `after` in walking order. */
  countAfter(range: KeyRange, reverse: boolean, after: Buffer): number {
    const { start, end } = this.bounds(range);
    const { entries } = this.host.engine;
    if (!reverse) return entries.getKeysCount({ start: after, end, exclusiveStart: true });
    return entries.getKeysCount({
      start: after,
      end: start,
      reverse: true,
      exclusiveStart: true,
      inclusiveEnd: true,
    });
  }

  private bounds(range: KeyRange): { start: Buffer; end: Buffer } {
    const { gte, lt } = keyRangeBounds(range, this.directions);
    return {
      start: gte === undefined ? this.prefix : Buffer.concat([this.prefix, Buffer.from(gte)]),
      end: lt === undefined ? this.afterLast : Buffer.concat([this.prefix, Buffer.from(lt)]),
    };
  }

  private encoded(key: readonly unknown[]): Uint8Array {
    const bytes = encodeKey(key, this.directions);
    if (bytes.length > MAX_ENCODED_KEY_BYTES) {
      throw new CommandError(
        'KeyTooLong',
        `index key too large to store (${bytes.length} bytes encoded, at most ${MAX_ENCODED_KEY_BYTES}) in index ${this.spec.name}`,
      );
    }
    return bytes;
  }

  private entryKey(key: readonly unknown[], seq: number): Buffer {
    const encoded = this.encoded(key);
    const entry = Buffer.allocUnsafe(this.prefix.length + encoded.length + RECORD_NUMBER_BYTES);
    this.prefix.copy(entry, 0);
    entry.set(encoded, this.prefix.length);
    entry.writeUIntBE(seq, entry.length - RECORD_NUMBER_BYTES, RECORD_NUMBER_BYTES);
    return entry;
  }
}

/** Whether two entries (from `sortableEntry`) are of the same key, the record numbers aside. */
function sameKeyPart(a: string, b: string): boolean {
  return a.length === b.length && a.slice(0, -RECORD_NUMBER_BYTES) === b.slice(0, -RECORD_NUMBER_BYTES);
}

/** Stores `key` unless present; true when it was added (lmdb's putSync answers so, though typed void here). */
function wasAdded(entries: EngineSpace['entries'], key: Buffer, value: Buffer): boolean {
  return (entries.putSync(key, value, { noOverwrite: true }) as unknown) === true;
}

/**
 * What an index remembers of its ranges, by name, for one write generation of its collection:
 * forgotten whole when the collection is written (or when it holds `capacity` names).
 */
class UntilWritten<V> {
  private readonly values = new Map<string, V>();
  private generation = -1;

  constructor(private readonly capacity: number) {}

  /** The value of `name` in `generation`, made by `make` when there is none. */
  get(generation: number, name: string, make: () => V): V {
    if (generation !== this.generation || this.values.size >= this.capacity) {
      this.values.clear();
      this.generation = generation;
    }
    let value = this.values.get(name);
    if (value === undefined) {
      value = make();
      this.values.set(name, value);
    }
    return value;
  }
}

/** Removes `key`; true when it was there (lmdb's removeSync answers so, though typed void). */
function wasRemoved(entries: EngineSpace['entries'], key: Buffer): boolean {
  return (entries.removeSync(key) as unknown) === true;
}

/**
 * Turns raw entries into IndexEntry objects, the key's values decoded from its bytes. Entries of
 * equal keys are neighbours in a walk, so the values of the previous entry are reused when its
 * encoded key is the same (a grouping over an index decodes each distinct key once).
 */
class EntryDecoder {
  private previousKey: Buffer | undefined;
  private previousValues: unknown[] = [];

  constructor(
    private readonly host: IndexHost,
    private readonly prefixBytes: number,
    /** The directions of the fields decoded: all of the index's, or its first few. */
    private readonly directions: readonly number[],
    /** True when `directions` are all the index's fields (the key ends where the record number starts). */
    private readonly whole = true,
  ) {}

  entry(key: Buffer): IndexEntry {
    const seq = recordNumberOf(key);
    const keyEnd = this.whole
      ? key.length - RECORD_NUMBER_BYTES
      : this.prefixBytes + encodedLength(key, this.directions, this.prefixBytes);
    const previous = this.previousKey;
    if (
      previous === undefined ||
      previous.length !== keyEnd - this.prefixBytes ||
      key.compare(previous, 0, previous.length, this.prefixBytes, keyEnd) !== 0
    ) {
      this.previousValues = decodeKey(key, this.directions, this.prefixBytes, keyEnd);
      this.previousKey = Buffer.from(key.subarray(this.prefixBytes, keyEnd));
    }
    return new Entry(this.previousValues, seq, this.host);
  }
}

/** An entry as a reader gets it: its record made only when asked for. */
class Entry implements IndexEntry {
  private made: StoredRecord | undefined;

  constructor(
    readonly key: readonly unknown[],
    readonly seq: number,
    private readonly host: IndexHost,
  ) {}

  get record(): StoredRecord {
    this.made ??= this.host.record(this.seq);
    return this.made;
  }
}

/** Walks one range of an index; skips, peeks and counts run in the B-tree from the current key. */
class IndexCursor implements EntryCursor<IndexEntry> {
  private iterator: Iterator<Buffer>;
  /** The key of the current entry. */
  private head: Buffer | undefined;
  /** True while the cursor is on the range's first entry (skips then go through keyAtPosition). */
  private atStart = false;
  private decoded: IndexEntry | undefined;

  constructor(
    private readonly index: SortedIndex,
    private readonly range: KeyRange,
    private readonly reverse: boolean,
    private readonly decoder: EntryDecoder,
  ) {
    this.iterator = index.rawRange(range, reverse, 0)[Symbol.iterator]();
    this.pull();
    this.atStart = true;
  }

  get current(): IndexEntry | undefined {
    if (this.head === undefined) return undefined;
    this.decoded ??= this.decoder.entry(this.head);
    return this.decoded;
  }

  advance(): void {
    this.pull();
  }

  skip(n: number): number {
    if (n <= 0 || this.head === undefined) return 0;
    if (n === 1) {
      this.pull();
      return 1;
    }
    const from = this.head;
    if (!Number.isFinite(n)) return this.end(1 + this.index.countAfter(this.range, this.reverse, from));
    if (this.atStart) {
      // The entry before the one n places on, by remembered positions; the walk goes on after it.
      const before = this.index.keyAtPosition(this.range, this.reverse, n - 1);
      const iterator =
        before === undefined ? undefined : this.index.rawRange(this.range, this.reverse, 0, before)[Symbol.iterator]();
      const landed = iterator?.next();
      if (iterator && landed && !landed.done) {
        this.iterator = iterator;
        this.head = Buffer.from(landed.value);
        this.decoded = undefined;
        this.atStart = false;
        return n;
      }
    } else {
      // The entry n places on, found by the B-tree's walk from the current key.
      const iterator = this.index.rawRange(this.range, this.reverse, n - 1, from)[Symbol.iterator]();
      const landed = iterator.next();
      if (!landed.done) {
        this.iterator = iterator;
        this.head = Buffer.from(landed.value);
        this.decoded = undefined;
        return n;
      }
    }
    // Fewer than n left: count them (fewer than n entries walked) and end.
    return this.end(1 + this.index.countAfter(this.range, this.reverse, from));
  }

  /** Moves past the last entry, `moved` entries on; returns `moved`. */
  private end(moved: number): number {
    this.head = undefined;
    this.decoded = undefined;
    return moved;
  }

  peek(n: number): IndexEntry | undefined {
    if (this.head === undefined) return undefined;
    if (n === 0) return this.current;
    const ahead = this.index
      .rawRange(this.range, this.reverse, n - 1, this.head)
      [Symbol.iterator]()
      .next();
    return ahead.done ? undefined : this.decoder.entry(ahead.value);
  }

  remaining(max: number): number {
    if (this.head === undefined) return 0;
    if (max <= 1) return 1;
    // Whether the entry max-1 places on exists decides it without walking the rest of the range.
    const ahead = this.index
      .rawRange(this.range, this.reverse, max - 2, this.head)
      [Symbol.iterator]()
      .next();
    if (!ahead.done) return max;
    return 1 + this.index.countAfter(this.range, this.reverse, this.head);
  }

  private pull(): void {
    this.atStart = false;
    const next = this.iterator.next();
    this.head = next.done ? undefined : Buffer.from(next.value);
    this.decoded = undefined;
  }
}
