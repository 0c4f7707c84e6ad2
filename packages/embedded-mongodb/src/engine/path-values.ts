import { compareValues } from './value-order';

/** What a path yields for a document, the way MongoDB's index key generation sees it. */
export interface PathValues {
  /** Distinct values reached; arrays met along the way contribute each element. */
  readonly values: unknown[];
  /** True when an array was traversed or expanded (the document makes the index multikey). */
  readonly throughArray: boolean;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  // Any realm's Object.prototype (objects built by another vm context count as plain too).
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

function collect(
  value: unknown,
  parts: readonly string[],
  depth: number,
  out: unknown[],
  state: { throughArray: boolean; includeMissing: boolean },
): void {
  if (depth === parts.length) {
    if (Array.isArray(value)) {
      state.throughArray = true;
      // MongoDB keys an empty array as `undefined`, which sorts with null. Scans are never
      // bounded by null or arrays, so null is an adequate stand-in.
      if (value.length > 0) for (const element of value) out.push(element);
      else if (state.includeMissing) out.push(null);
    } else if (value !== undefined) {
      out.push(value);
    } else if (state.includeMissing) {
      out.push(null);
    }
    return;
  }
  if (Array.isArray(value)) {
    state.throughArray = true;
    const part = parts[depth];
    if (/^\d+$/.test(part) && Number(part) < value.length) {
      collect(value[Number(part)], parts, depth + 1, out, state);
    }
    for (const element of value) {
      if (isPlainObject(element)) collect(element, parts, depth, out, state);
    }
    return;
  }
  if (isPlainObject(value)) {
    collect(value[parts[depth]], parts, depth + 1, out, state);
    return;
  }
  if (state.includeMissing) out.push(null);
}

function dedupe(values: unknown[]): unknown[] {
  if (values.length < 2) return values;
  const sorted = [...values].sort(compareValues);
  const result = [sorted[0]];
  for (let i = 1; i < sorted.length; i++) {
    if (compareValues(sorted[i], result[result.length - 1]) !== 0) result.push(sorted[i]);
  }
  return result;
}

/**
 * The values a dotted path reaches in a document, sorted, without repeats. A missing field
 * yields null (index keys and sorting treat missing as null, as MongoDB does) unless
 * `includeMissing` is false (distinct).
 */
export function valuesAtPath(
  doc: Record<string, unknown>,
  path: string | readonly string[],
  includeMissing = true,
): PathValues {
  const out: unknown[] = [];
  const state = { throughArray: false, includeMissing };
  collect(doc, typeof path === 'string' ? path.split('.') : path, 0, out, state);
  if (out.length === 0 && includeMissing) out.push(null);
  return { values: dedupe(out), throughArray: state.throughArray };
}

/** True when no part of the path exists in the document (sparse indexes skip such documents). */
export function isPathMissing(doc: Record<string, unknown>, parts: readonly string[]): boolean {
  let value: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(value)) return false;
    if (!isPlainObject(value) || !(part in value)) return true;
    value = value[part];
  }
  return false;
}
