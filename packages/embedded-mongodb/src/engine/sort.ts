import type { Document } from 'bson';
import { CommandError } from '../errors';
import { isPlainObject, valuesAtPath } from './path-values';
import type { StoredRecord } from './stored-record';
import { compareValues } from './value-order';

export interface SortField {
  readonly path: string;
  readonly parts: readonly string[];
  readonly direction: 1 | -1;
  /** `{$meta: 'textScore'}`: by the text score, highest first (only a $text query has one). */
  readonly meta?: 'textScore';
}

export type SortSpec = readonly SortField[];

/** Parses a `sort` document; undefined when there is nothing to sort by. */
export function parseSort(raw: unknown): SortSpec | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new CommandError('TypeMismatch', 'sort must be an object');
  const fields = Object.entries(raw as Document).map(([path, value]): SortField => {
    if (isPlainObject(value) && value.$meta === 'textScore' && Object.keys(value).length === 1)
      return { path, parts: path.split('.'), direction: -1, meta: 'textScore' };
    if (value !== 1 && value !== -1) {
      throw new CommandError(
        'BadValue',
        `$sort key ordering must be 1 (for ascending) or -1 (for descending); got ${JSON.stringify(value)} for ${path}`,
      );
    }
    return { path, parts: path.split('.'), direction: value };
  });
  return fields.length > 0 ? fields : undefined;
}

/** Where arrays are involved: the smallest element ascending, the largest descending (MongoDB). */
function sortKeyThroughArrays(doc: Document, field: SortField): unknown {
  const { values } = valuesAtPath(doc, field.parts);
  return field.direction === 1 ? values[0] : values[values.length - 1];
}

/** The value a document sorts by on one field; missing is null. */
function sortKey(doc: Document, field: SortField): unknown {
  let value: unknown = doc;
  for (const part of field.parts) {
    if (Array.isArray(value)) return sortKeyThroughArrays(doc, field);
    if (!isPlainObject(value)) return null;
    value = value[part];
  }
  if (Array.isArray(value)) return sortKeyThroughArrays(doc, field);
  return value === undefined ? null : value;
}

interface Keyed {
  readonly record: StoredRecord;
  readonly keys: unknown[];
  readonly position: number;
}

function comparator(spec: SortSpec): (a: Keyed, b: Keyed) => number {
  return (a, b) => {
    for (let i = 0; i < spec.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]);
      if (c !== 0) return c * spec[i].direction;
    }
    // Ties keep their incoming order, whichever way the records are selected.
    return a.position - b.position;
  };
}

/** The values a record sorts by, one per sort field, read from its document (decoded once). */
export function documentSortKeys(
  spec: SortSpec,
  docOf: (record: StoredRecord) => Document = (record) => record.doc,
): (record: StoredRecord) => unknown[] {
  return (record) => {
    const doc = docOf(record);
    return spec.map((field) => sortKey(doc, field));
  };
}

/**
 * Sorts records in MongoDB order, stable. When only the first `wanted` are needed (limit),
 * keeps a bounded sorted buffer instead of sorting everything. `sortKeysOf` gives the values a
 * record sorts by (from its document, or from an index entry that holds them).
 */
export function sortRecords(
  records: readonly StoredRecord[],
  spec: SortSpec,
  wanted = Infinity,
  sortKeysOf: (record: StoredRecord) => unknown[] = documentSortKeys(spec),
): StoredRecord[] {
  const keyed = records.map((record, position): Keyed => ({ record, keys: sortKeysOf(record), position }));
  return firstInOrder(keyed, wanted, comparator(spec)).map((k) => k.record);
}

/**
 * The items in the order of `compare`, at least the first `wanted` of them (all of them when
 * that is most): when few are wanted, a bounded sorted buffer instead of sorting everything.
 * `compare` must leave no ties (or the ties' order is that of `items`).
 */
export function firstInOrder<T>(items: readonly T[], wanted: number, compare: (a: T, b: T) => number): T[] {
  if (wanted * 4 >= items.length) return [...items].sort(compare);
  const best: T[] = [];
  for (const candidate of items) {
    if (best.length === wanted && compare(candidate, best[best.length - 1]) >= 0) continue;
    let low = 0;
    let high = best.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(best[mid], candidate) <= 0) low = mid + 1;
      else high = mid;
    }
    best.splice(low, 0, candidate);
    if (best.length > wanted) best.pop();
  }
  return best;
}
