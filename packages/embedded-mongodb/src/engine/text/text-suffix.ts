import type { Document } from 'bson';
import { isPlainObject } from '../path-values';
import type { SortSpec } from '../sort';
import type { TextIndexDefinition } from './text-spec';

/**
 * A text index's fields after the score (mongod's suffix fields: `{…: 'text', a: 1}`) hold each
 * document's value of those fields, one value (mongod refuses arrays there). A filter or a sort
 * that reads nothing else can then be answered from the index entries a search reads anyway,
 * without reading the documents: the reader here decides when it can.
 */

/** Comparisons that answer the same on a value read back from an index key as on the document's. */
const COMPARISONS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);

/** What such a comparison may compare with: literals of the types that compare alike on both. */
function isLiteral(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    typeof value === 'number' ||
    value instanceof Date
  );
}

/**
 * Whether a value read back from an index key is the document's value exactly, as far as a
 * comparison can tell: a key holds null for both null and a missing field, and every number as
 * a double, so those need the document.
 */
function isExact(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    value instanceof Date ||
    (value as { _bsontype?: unknown } | null)?._bsontype === 'ObjectId'
  );
}

/** The top-level fields after the score, by name, with their place among a posting's values (the score is 0). */
function suffixPlaces(definition: TextIndexDefinition): Map<string, number> {
  const places = new Map<string, number>();
  definition.after.forEach((path, i) => {
    if (!path.includes('.')) places.set(path, 1 + i);
  });
  return places;
}

/** Adds to `read` the fields of `filter`, or answers false when it reads anything but comparisons of `fields`. */
function readsOnly(filter: Document, fields: ReadonlyMap<string, number>, read: Set<string>): boolean {
  for (const [key, value] of Object.entries(filter) as [string, unknown][]) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (!Array.isArray(value) || value.length === 0) return false;
      for (const clause of value as unknown[])
        if (!isPlainObject(clause) || !readsOnly(clause, fields, read)) return false;
      continue;
    }
    if (key.startsWith('$') || !fields.has(key)) return false;
    read.add(key);
    if (!isPlainObject(value)) {
      if (!isLiteral(value)) return false;
      continue;
    }
    const operators = Object.entries(value);
    if (operators.length === 0) return false;
    for (const [operator, operand] of operators) {
      if (!COMPARISONS.has(operator)) return false;
      const literals = operator === '$in' || operator === '$nin' ? operand : [operand];
      if (!Array.isArray(literals) || !literals.every(isLiteral)) return false;
    }
  }
  return true;
}

/** Distinct values of one field whose answers a filter remembers (see suffixFilter). */
const MAX_KNOWN_VALUES = 64;

/** A filter answered from a posting's values. */
export interface SuffixFilter {
  /**
   * The filter's answer for a document whose posting holds `values` (the score, then the fields
   * after it); undefined when a value it reads is not exact in the key (read the document then).
   */
  test(values: readonly unknown[]): boolean | undefined;
  /** The top-level fields the filter reads: all a document needs to be checked. */
  readonly fields: readonly string[];
  /** The last place among a posting's values that the filter reads. */
  readonly lastPlace: number;
}

/**
 * The filter as a test of the values of the text index's fields after the score, when it reads
 * only those (top-level, by comparisons with literals); undefined otherwise. `compile` turns the
 * filter into the store's matcher, which then sees a document of those fields alone.
 */
export function suffixFilter(
  filter: Document,
  definition: TextIndexDefinition,
  compile: (filter: Document) => (doc: Document) => boolean,
): SuffixFilter | undefined {
  const places = suffixPlaces(definition);
  const read = new Set<string>();
  if (places.size === 0 || !readsOnly(filter, places, read)) return undefined;
  const fields = [...read];
  const at = fields.map((field) => places.get(field)!);
  const matches = compile(filter);
  // A field of one search reads few distinct values (a flag, a status) among many documents:
  // each is checked once.
  const known = new Map<unknown, boolean>();
  return {
    fields,
    lastPlace: Math.max(...at),
    test(values) {
      if (at.length === 1) {
        const value = values[at[0]];
        if (typeof value === 'boolean' || typeof value === 'string') {
          let answer = known.get(value);
          if (answer === undefined) {
            answer = matches({ [fields[0]]: value });
            if (known.size < MAX_KNOWN_VALUES) known.set(value, answer);
          }
          return answer;
        }
      }
      const doc: Document = {};
      for (let i = 0; i < fields.length; i++) {
        const value = values[at[i]];
        if (!isExact(value)) return undefined;
        doc[fields[i]] = value;
      }
      return matches(doc);
    },
  };
}

/**
 * Where each sort field's value is among a posting's values (0: the text score), when every one
 * is the text score or a top-level field after it; undefined otherwise. A key's value sorts as
 * the document's (null as missing, numbers as their doubles), so no document is needed.
 */
export function suffixSortPlaces(sort: SortSpec, definition: TextIndexDefinition): number[] | undefined {
  const places = suffixPlaces(definition);
  const found = sort.map((field) => (field.meta ? 0 : (places.get(field.path) ?? -1)));
  return found.every((place) => place >= 0) ? found : undefined;
}

/**
 * The top-level fields a filter reads, when it reads nothing else: its paths' first names
 * (through `$and`, `$or` and `$nor`). Undefined when it has an operator of the whole document
 * (`$expr`, `$where`, `$jsonSchema`, …), which may read any field. Checked on a document of
 * those fields alone, such a filter answers as on the whole document.
 */
export function topLevelFieldsRead(filter: Document): string[] | undefined {
  const read = new Set<string>();
  const walk = (clause: Document): boolean => {
    for (const [key, value] of Object.entries(clause) as [string, unknown][]) {
      if (key === '$and' || key === '$or' || key === '$nor') {
        if (!Array.isArray(value) || !value.every((inner) => isPlainObject(inner) && walk(inner))) return false;
      } else if (key === '$comment') {
        continue;
      } else if (key.startsWith('$')) {
        return false;
      } else {
        read.add(key.split('.')[0]);
      }
    }
    return true;
  };
  return walk(filter) ? [...read] : undefined;
}
