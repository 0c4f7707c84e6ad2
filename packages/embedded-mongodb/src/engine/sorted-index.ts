import type { Document } from 'bson';
import { Query } from 'mingo';
import { CommandError } from '../errors';
import type { IndexSpec } from './index-spec';
import { mingoOptions } from './mingo-options';
import { isPathMissing, valuesAtPath } from './path-values';
import type { StoredRecord } from './stored-record';
import { SortedEntries, type EntryCursor } from './sorted-entries';
import { compareValues } from './value-order';

export interface IndexEntry {
  readonly key: readonly unknown[];
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

/** Keys per document above which a compound multikey index is refused rather than exploded. */
const MAX_KEYS_PER_DOCUMENT = 10_000;

/**
 * `prefix` followed by `value`, in an array of exactly that length. Index entries keep their keys
 * for as long as the index lives, and V8 gives a spread (`[...prefix, value]`) or a pushed-to
 * array room to grow: some 130 bytes more per key.
 */
function extendKey(prefix: readonly unknown[], value: unknown): unknown[] {
  const key = new Array<unknown>(prefix.length + 1);
  for (let i = 0; i < prefix.length; i++) key[i] = prefix[i];
  key[prefix.length] = value;
  return key;
}

/** A secondary (or the `_id`) index: sorted keys pointing at records. */
export class SortedIndex {
  /** Set once any document put an array on an indexed path; never cleared, as in MongoDB. */
  multikey = false;
  /** Positions of the fields on which some document had an array (MongoDB's multikey paths). */
  readonly multikeyFields = new Set<number>();
  private readonly entries: SortedEntries<IndexEntry>;
  private readonly directions: readonly number[];
  private readonly partialFilter?: Query;

  constructor(readonly spec: IndexSpec) {
    this.directions = spec.fields.map((field) => field.direction);
    this.entries = new SortedEntries((a, b) => this.compareKeys(a.key, b.key) || a.record.seq - b.record.seq);
    if (spec.partialFilterExpression) this.partialFilter = new Query(spec.partialFilterExpression, mingoOptions());
  }

  get name(): string {
    return this.spec.name;
  }

  get size(): number {
    return this.entries.size;
  }

  /** True when the index can answer for every document (neither sparse nor partial). */
  get complete(): boolean {
    return !this.spec.sparse && !this.partialFilter;
  }

  /** The keys a document contributes; none when a sparse or partial index leaves it out. */
  keysOf(doc: Document): unknown[][] {
    if (this.partialFilter && !this.partialFilter.test(doc)) return [];
    if (this.spec.sparse && this.spec.fields.every((field) => isPathMissing(doc, field.parts))) return [];
    let keys: unknown[][] = [[]];
    let arrayFields = 0;
    for (const [position, field] of this.spec.fields.entries()) {
      const { values, throughArray } = valuesAtPath(doc, field.parts);
      if (throughArray) {
        arrayFields++;
        this.multikeyFields.add(position);
      }
      if (keys.length * values.length > MAX_KEYS_PER_DOCUMENT) {
        throw new CommandError('CannotIndexParallelArrays', `cannot index parallel arrays (index ${this.spec.name})`);
      }
      keys = keys.flatMap((prefix) => values.map((value) => extendKey(prefix, value)));
    }
    if (arrayFields > 0) this.multikey = true;
    return keys;
  }

  insert(record: StoredRecord, keys: readonly unknown[][]): void {
    for (const key of keys) this.entries.insert({ key, record });
  }

  remove(record: StoredRecord, keys: readonly unknown[][]): void {
    for (const key of keys) this.entries.delete({ key, record });
  }

  /** Replaces the entries with these, in one sort (index builds fill all their indexes at once). */
  loadEntries(items: IndexEntry[]): void {
    this.entries.load(items);
  }

  /** The first key among `keys` held by a record other than `self`, for unique checks. */
  conflictingKey(keys: readonly unknown[][], self?: StoredRecord): readonly unknown[] | undefined {
    for (const key of keys) {
      let conflict = false;
      this.scan({ start: key, startInclusive: true, end: key, endInclusive: true }, false, (entry) => {
        conflict = entry.record !== self;
        return !conflict;
      });
      if (conflict) return key;
    }
    return undefined;
  }

  /** Visits the entries of a range in index order (or reversed) until `visit` returns false. */
  scan(range: KeyRange, reverse: boolean, visit: (entry: IndexEntry) => boolean | void): void {
    this.entries.forEachInRange(...this.predicates(range), reverse, visit);
  }

  /** A cursor over the entries of a range, in index order (or reversed); see SortedEntries.cursor. */
  cursor(range: KeyRange, reverse: boolean): EntryCursor<IndexEntry> {
    return this.entries.cursor(...this.predicates(range), reverse);
  }

  count(range: KeyRange): number {
    return this.entries.countRange(...this.predicates(range));
  }

  all(): Iterable<IndexEntry> {
    return this.entries;
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

  private predicates(range: KeyRange): [(entry: IndexEntry) => boolean, (entry: IndexEntry) => boolean] {
    const { start, startInclusive, end, endInclusive } = range;
    return [
      (entry) => {
        const c = this.compareKeys(entry.key, start);
        return c > 0 || (c === 0 && (startInclusive || start.length === 0));
      },
      (entry) => {
        const c = this.compareKeys(entry.key, end);
        return c < 0 || (c === 0 && (endInclusive || end.length === 0));
      },
    ];
  }
}
