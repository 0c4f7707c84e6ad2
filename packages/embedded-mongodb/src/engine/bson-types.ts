import { CommandError } from '../errors';

/**
 * The BSON type of a decoded value (the numbers `$type` takes), as the store keeps it. Numbers
 * arrive as JavaScript numbers, so they keep the type they are stored as: a whole number within
 * 32 bits is an int, any other number a double, a `Long` (one beyond 2^53, which the decoder
 * keeps) a long.
 */
export const BsonType = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
} as const;

const VALID_CODES: ReadonlySet<number> = new Set(Object.values(BsonType));

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

interface Tagged {
  readonly _bsontype?: string;
  readonly scope?: unknown;
}

/** The BSON type code of a present value. */
export function bsonTypeOf(value: unknown): number {
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX && !Object.is(value, -0)
        ? BsonType.int
        : BsonType.double;
    case 'string':
      return BsonType.string;
    case 'boolean':
      return BsonType.bool;
    case 'bigint':
      return BsonType.long;
    case 'undefined':
      return BsonType.undefined;
    case 'function':
      return BsonType.javascript;
    default:
      break;
  }
  if (value === null) return BsonType.null;
  if (Array.isArray(value)) return BsonType.array;
  if (value instanceof Date) return BsonType.date;
  if (value instanceof RegExp) return BsonType.regex;
  switch ((value as Tagged)._bsontype) {
    case 'ObjectId':
      return BsonType.objectId;
    case 'Long':
      return BsonType.long;
    case 'Int32':
      return BsonType.int;
    case 'Double':
      return BsonType.double;
    case 'Decimal128':
      return BsonType.decimal;
    case 'Binary':
      return BsonType.binData;
    case 'Timestamp':
      return BsonType.timestamp;
    case 'BSONRegExp':
      return BsonType.regex;
    case 'BSONSymbol':
      return BsonType.symbol;
    case 'Code':
      return (value as Tagged).scope ? BsonType.javascriptWithScope : BsonType.javascript;
    case 'MinKey':
      return BsonType.minKey;
    case 'MaxKey':
      return BsonType.maxKey;
    case 'DBPointer':
      return BsonType.dbPointer;
    default:
      break;
  }
  if (ArrayBuffer.isView(value)) return BsonType.binData;
  return BsonType.object;
}

/** True for every BSON number type (what the `number` alias stands for). */
export function isNumber(value: unknown): boolean {
  if (typeof value === 'number' || typeof value === 'bigint') return true;
  const tag = (value as Tagged | null | undefined)?._bsontype;
  return tag === 'Long' || tag === 'Int32' || tag === 'Double' || tag === 'Decimal128';
}

/** The set of types a `$type` operand names. */
export interface TypeSet {
  readonly codes: ReadonlySet<number>;
  /** The `number` alias: every numeric type. */
  readonly allNumbers: boolean;
}

function addType(entry: unknown, codes: Set<number>): boolean {
  if (typeof entry === 'string') {
    if (entry === 'number') return true;
    if (!Object.hasOwn(BsonType, entry)) throw new CommandError('BadValue', `Unknown type name alias: ${entry}`);
    codes.add((BsonType as Record<string, number>)[entry]);
    return false;
  }
  if (!isNumber(entry)) throw new CommandError('TypeMismatch', 'type must be represented as a number or a string');
  const number = Number(entry);
  if (!Number.isInteger(number) || !VALID_CODES.has(number))
    throw new CommandError('BadValue', `Invalid numerical type code: ${String(entry)}`);
  codes.add(number);
  return false;
}

/** Parses a `$type` operand: an alias, a type number, or an array of them (mongod's MatcherTypeSet). */
export function parseTypeSet(operand: unknown, path: string): TypeSet {
  const codes = new Set<number>();
  let allNumbers = false;
  for (const entry of Array.isArray(operand) ? operand : [operand]) allNumbers = addType(entry, codes) || allNumbers;
  if (codes.size === 0 && !allNumbers) throw new CommandError('FailedToParse', `${path} must match at least one type`);
  return { codes, allNumbers };
}

/** Whether a present value is of one of the set's types. */
export function hasType(set: TypeSet, value: unknown): boolean {
  return set.codes.has(bsonTypeOf(value)) || (set.allNumbers && isNumber(value));
}
