/**
 * MongoDB's total order over BSON values (the order of index keys and of `sort`):
 * MinKey < null < numbers < strings < objects < arrays < binary < ObjectId < booleans < dates
 * < timestamps < regular expressions < JavaScript < MaxKey.
 *
 * Indexes and in-memory sorts both use this one comparator, so a query returns the same order
 * whichever plan answers it.
 */

const enum Rank {
  MinKey = 0,
  Null = 1,
  Number = 2,
  String = 3,
  Object = 4,
  Array = 5,
  Binary = 6,
  ObjectId = 7,
  Boolean = 8,
  Date = 9,
  Timestamp = 10,
  RegExp = 11,
  Code = 12,
  MaxKey = 13,
}

/**
 * The lowest (edge -1) or highest (edge 1) possible value of one type. Range predicates are
 * "type bracketed" in MongoDB (`{$gt: 5}` matches numbers only), so an index scan for `$gt: 5`
 * runs from 5 to the top of the number bracket.
 */
export class TypeEdge {
  constructor(
    readonly rank: number,
    readonly edge: -1 | 1,
  ) {}
}

interface BsonTagged {
  _bsontype?: string;
}

function bsonType(value: object): string | undefined {
  return (value as BsonTagged)._bsontype;
}

function rankOf(value: unknown): Rank {
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return Rank.Number;
    case 'string':
      return Rank.String;
    case 'boolean':
      return Rank.Boolean;
    case 'undefined':
      return Rank.Null;
    case 'function':
      return Rank.Code;
    case 'object':
      break;
    default:
      return Rank.Null;
  }
  if (value === null) return Rank.Null;
  if (value instanceof TypeEdge) return value.rank;
  if (Array.isArray(value)) return Rank.Array;
  if (value instanceof Date) return Rank.Date;
  if (value instanceof RegExp) return Rank.RegExp;
  switch (bsonType(value)) {
    case 'ObjectId':
      return Rank.ObjectId;
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      return Rank.Number;
    case 'Binary':
      return Rank.Binary;
    case 'Timestamp':
      return Rank.Timestamp;
    case 'BSONRegExp':
      return Rank.RegExp;
    case 'BSONSymbol':
      return Rank.String;
    case 'Code':
      return Rank.Code;
    case 'MinKey':
      return Rank.MinKey;
    case 'MaxKey':
      return Rank.MaxKey;
    default:
      break;
  }
  if (ArrayBuffer.isView(value)) return Rank.Binary;
  // Dates and regexes made in another realm (a vm context) fail instanceof but keep their tag.
  const tag = Object.prototype.toString.call(value);
  return tag === '[object Date]' ? Rank.Date : tag === '[object RegExp]' ? Rank.RegExp : Rank.Object;
}

/** The rank of a value's type bracket, for building TypeEdge bounds. */
export function typeBracketOf(value: unknown): number {
  return rankOf(value);
}

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/** The double a number of any BSON type compares as (key-string.ts encodes numbers by it too). */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  const tagged = value as { _bsontype: string; toNumber?: () => number; value?: number; toString(): string };
  if (tagged._bsontype === 'Long') return tagged.toNumber!();
  if (tagged._bsontype === 'Decimal128') return Number.parseFloat(tagged.toString());
  return Number(tagged.value);
}

function compareNumbers(a: number, b: number): number {
  // MongoDB orders NaN below every other number and equal to itself.
  const aNaN = Number.isNaN(a);
  const bNaN = Number.isNaN(b);
  if (aNaN || bNaN) return aNaN && bNaN ? 0 : aNaN ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  // Field by field: the type of the value, then the field name, then the value.
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  const n = Math.min(aKeys.length, bKeys.length);
  for (let i = 0; i < n; i++) {
    const av = a[aKeys[i]];
    const bv = b[bKeys[i]];
    const byRank = rankOf(av) - rankOf(bv);
    if (byRank !== 0) return sign(byRank);
    const byName = compareStrings(aKeys[i], bKeys[i]);
    if (byName !== 0) return byName;
    const byValue = compareValues(av, bv);
    if (byValue !== 0) return byValue;
  }
  return sign(aKeys.length - bKeys.length);
}

function compareArrays(a: unknown[], b: unknown[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return sign(a.length - b.length);
}

/** Compares two BSON values in MongoDB's order; 0 means equal as index keys. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  const rankA = rankOf(a);
  const rankB = rankOf(b);
  if (rankA !== rankB) return rankA < rankB ? -1 : 1;
  if (a instanceof TypeEdge || b instanceof TypeEdge) {
    const edgeA = a instanceof TypeEdge ? a.edge : 0;
    const edgeB = b instanceof TypeEdge ? b.edge : 0;
    return sign(edgeA - edgeB);
  }
  switch (rankA) {
    case Rank.MinKey:
    case Rank.MaxKey:
    case Rank.Null:
      return 0;
    case Rank.Number:
      return compareNumbers(toNumber(a), toNumber(b));
    case Rank.String:
      return compareStrings(String(a), String(b));
    case Rank.Object:
      return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>);
    case Rank.Array:
      return compareArrays(a as unknown[], b as unknown[]);
    case Rank.Binary:
      return compareBinary(a, b);
    case Rank.ObjectId:
      return compareStrings(String(a), String(b));
    case Rank.Boolean:
      return a === b ? 0 : a ? 1 : -1;
    case Rank.Date:
      return compareNumbers((a as Date).getTime(), (b as Date).getTime());
    case Rank.Timestamp:
      return compareTimestamps(a, b);
    case Rank.RegExp:
      return compareRegExps(a, b);
    default:
      return compareStrings(String(a), String(b));
  }
}

function binaryBytes(value: unknown): Uint8Array {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return (value as { buffer: Uint8Array }).buffer;
}

function compareBinary(a: unknown, b: unknown): number {
  const bytesA = binaryBytes(a);
  const bytesB = binaryBytes(b);
  if (bytesA.length !== bytesB.length) return bytesA.length < bytesB.length ? -1 : 1;
  const subtypeA = (a as { sub_type?: number }).sub_type ?? 0;
  const subtypeB = (b as { sub_type?: number }).sub_type ?? 0;
  if (subtypeA !== subtypeB) return subtypeA < subtypeB ? -1 : 1;
  return compareBytes(bytesA, bytesB);
}

function compareTimestamps(a: unknown, b: unknown): number {
  const ta = a as { high: number; low: number };
  const tb = b as { high: number; low: number };
  const high = compareNumbers(ta.high >>> 0, tb.high >>> 0);
  return high !== 0 ? high : compareNumbers(ta.low >>> 0, tb.low >>> 0);
}

function regExpParts(value: unknown): [string, string] {
  if (value instanceof RegExp) return [value.source, value.flags];
  const r = value as { pattern: string; options: string };
  return [r.pattern, r.options];
}

function compareRegExps(a: unknown, b: unknown): number {
  const [patternA, flagsA] = regExpParts(a);
  const [patternB, flagsB] = regExpParts(b);
  return compareStrings(patternA, patternB) || compareStrings(flagsA, flagsB);
}

/** True when a value can bound an index scan: a scalar whose equality matches MongoDB's. */
export function isIndexableScalar(value: unknown): boolean {
  switch (rankOf(value)) {
    case Rank.Number:
      return !(typeof value === 'number' && Number.isNaN(value));
    case Rank.String:
    case Rank.ObjectId:
    case Rank.Boolean:
    case Rank.Date:
      return !(value instanceof TypeEdge);
    default:
      return false;
  }
}
