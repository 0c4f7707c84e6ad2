import { EJSON, type Document } from 'bson';

/**
 * The unified test format's rules for comparing expected and actual values ("Evaluating
 * Matches"): key order is free, numbers compare across int/long/double, root-level documents may
 * carry extra fields, nested ones may not, and `$$` operators make assertions of their own.
 */

export class MatchError extends Error {
  constructor(path: string, message: string) {
    super(`${path || '(root)'}: ${message}`);
    this.name = 'MatchError';
  }
}

export type Entities = ReadonlyMap<string, unknown>;

const NUMERIC_TYPES = new Set(['Long', 'Int32', 'Double']);

function bsonType(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? (value as { _bsontype?: string })._bsontype : undefined;
}

function isNumeric(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'bigint' || NUMERIC_TYPES.has(bsonType(value) ?? '');
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  const tagged = value as { toNumber?: () => number; value?: number };
  return tagged.toNumber ? tagged.toNumber() : Number(tagged.value);
}

/** A document in the test format's sense: an object that is not an array or a BSON value. */
export function isDocument(value: unknown): value is Document {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    bsonType(value) === undefined &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    !ArrayBuffer.isView(value)
  );
}

function show(value: unknown): string {
  try {
    return EJSON.stringify(value, { relaxed: true });
  } catch {
    return String(value);
  }
}

function specialOperator(value: unknown): [string, unknown] | undefined {
  if (!isDocument(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0].startsWith('$$') ? [keys[0], value[keys[0]]] : undefined;
}

/** Type names of the $type query operator, for $$type. */
function typeNames(value: unknown): string[] {
  if (value === null) return ['null'];
  if (value === undefined) return ['undefined'];
  if (typeof value === 'string') return ['string'];
  if (typeof value === 'boolean') return ['bool'];
  if (typeof value === 'number')
    return Number.isInteger(value) ? ['int', 'long', 'double', 'number'] : ['double', 'number'];
  if (Array.isArray(value)) return ['array'];
  if (value instanceof Date) return ['date'];
  if (value instanceof RegExp) return ['regex'];
  const type = bsonType(value);
  const byBsonType: Record<string, string[]> = {
    ObjectId: ['objectId'],
    Long: ['long', 'number'],
    Int32: ['int', 'number'],
    Double: ['double', 'number'],
    Decimal128: ['decimal', 'number'],
    Binary: ['binData'],
    Timestamp: ['timestamp'],
    BSONRegExp: ['regex'],
    Code: ['javascript'],
    MinKey: ['minKey'],
    MaxKey: ['maxKey'],
  };
  if (type) return byBsonType[type] ?? [type];
  return ['object'];
}

function matchScalar(expected: unknown, actual: unknown, path: string): void {
  if (isNumeric(expected) && bsonType(expected) !== 'Decimal128') {
    if (!isNumeric(actual) || toNumber(expected) !== toNumber(actual))
      throw new MatchError(path, `expected ${show(expected)}, got ${show(actual)}`);
    return;
  }
  if (typeof expected !== typeof actual || bsonType(expected) !== bsonType(actual) || show(expected) !== show(actual)) {
    throw new MatchError(path, `expected ${show(expected)}, got ${show(actual)}`);
  }
}

export interface MatchOptions {
  /** The value is a root-level document (extra fields allowed). */
  readonly root?: boolean;
  /** The value is an array of root-level documents (find, aggregate, list* results). */
  readonly rootElements?: boolean;
  readonly entities?: Entities;
}

function runSpecial(operator: string, operand: unknown, actual: unknown, path: string, options: MatchOptions): void {
  switch (operator) {
    case '$$type': {
      const wanted = Array.isArray(operand) ? (operand as string[]) : [operand as string];
      if (actual === undefined || !typeNames(actual).some((name) => wanted.includes(name))) {
        throw new MatchError(path, `expected type ${wanted.join('|')}, got ${show(actual)}`);
      }
      return;
    }
    case '$$unsetOrMatches':
      if (actual !== undefined) matchValue(operand, actual, path, options);
      return;
    case '$$matchesEntity': {
      const entity = options.entities?.get(operand as string);
      if (entity === undefined) throw new MatchError(path, `no entity named ${String(operand)}`);
      matchValue(entity, actual, path, options);
      return;
    }
    case '$$lte':
      if (!isNumeric(actual) || toNumber(actual) > toNumber(operand))
        throw new MatchError(path, `expected <= ${show(operand)}, got ${show(actual)}`);
      return;
    case '$$matchAsDocument':
      if (typeof actual !== 'string') throw new MatchError(path, 'expected an Extended JSON string');
      matchValue(operand, EJSON.parse(actual), path, { ...options, root: false });
      return;
    case '$$matchAsRoot':
      matchValue(operand, actual, path, { ...options, root: true });
      return;
    default:
      throw new MatchError(path, `unsupported special operator ${operator}`);
  }
}

/** Asserts that `actual` matches `expected`; throws a MatchError naming the first difference. */
export function matchValue(expected: unknown, actual: unknown, path = '', options: MatchOptions = {}): void {
  const special = specialOperator(expected);
  if (special) {
    runSpecial(special[0], special[1], actual, path, options);
    return;
  }
  if (isDocument(expected)) {
    if (!isDocument(actual)) throw new MatchError(path, `expected a document, got ${show(actual)}`);
    const nested: MatchOptions = { entities: options.entities };
    for (const [key, value] of Object.entries(expected)) {
      const fieldPath = path ? `${path}.${key}` : key;
      const fieldSpecial = specialOperator(value);
      if (fieldSpecial?.[0] === '$$exists') {
        if ((actual[key] !== undefined) !== fieldSpecial[1])
          throw new MatchError(fieldPath, fieldSpecial[1] ? 'expected to exist' : 'expected to be absent');
        continue;
      }
      if (fieldSpecial?.[0] === '$$unsetOrMatches') {
        if (actual[key] !== undefined) matchValue(fieldSpecial[1], actual[key], fieldPath, nested);
        continue;
      }
      if (actual[key] === undefined) throw new MatchError(fieldPath, 'missing');
      matchValue(value, actual[key], fieldPath, nested);
    }
    if (!options.root) {
      const extra = Object.keys(actual).filter((key) => actual[key] !== undefined && !(key in expected));
      if (extra.length > 0) throw new MatchError(path, `unexpected field(s) ${extra.join(', ')}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) throw new MatchError(path, `expected an array, got ${show(actual)}`);
    if (actual.length !== expected.length)
      throw new MatchError(path, `expected ${expected.length} elements, got ${actual.length}: ${show(actual)}`);
    expected.forEach((value, i) =>
      matchValue(value, actual[i], `${path}[${i}]`, { root: options.rootElements, entities: options.entities }),
    );
    return;
  }
  matchScalar(expected, actual, path);
}

/** Canonical text of a document: keys sorted, numbers without int/double distinction. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isDocument(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical(value[key])]),
    );
  }
  if (isNumeric(value) && bsonType(value) !== 'Decimal128') return toNumber(value);
  return value;
}

/** Outcome comparison: documents must match exactly, key order aside (no `$$` operators, no extra fields). */
export function matchExactly(expected: readonly Document[], actual: readonly Document[], path: string): void {
  const want = EJSON.stringify(canonical(expected), { relaxed: true });
  const got = EJSON.stringify(canonical(actual), { relaxed: true });
  if (want !== got) throw new MatchError(path, `expected ${want}, got ${got}`);
}
