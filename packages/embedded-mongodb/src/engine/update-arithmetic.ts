import { Double, Long, type Document } from 'bson';
import { CommandError } from '../errors';
import { BsonType, bsonTypeOf, isNumber } from './bson-types';
import { isPlainObject } from './path-values';
import { compareValues, toNumber } from './value-order';

/**
 * `$inc`, `$mul`, `$min`, `$max` and `$bit` with mongod's number types (its SafeNum): the result
 * of two numbers has the wider type of the two (int < long < double < decimal); an int result
 * beyond 32 bits becomes a long, a long beyond 64 bits is refused; a missing field takes the
 * operand (`$mul`: a zero of the operand's type, `$bit`: the int 0 it starts from); `$min`/`$max`
 * keep the winning value as it is; `$bit` works on ints and longs only. mingo finds the
 * fields (positional `$`, `$[]`, array filters) as it does for `$set`: each of these operators is
 * handed to mingo as the `$set` of a pending value, resolved here once mingo has put it in place.
 */

type ArithmeticOperator = '$inc' | '$mul' | '$min' | '$max' | '$bit';

const ARITHMETIC_OPERATORS: readonly ArithmeticOperator[] = ['$inc', '$mul', '$min', '$max', '$bit'];

type BitOperation = readonly ['and' | 'or' | 'xor', unknown];

/** What one of the operators does to the field mingo puts it in. */
class PendingNumber {
  constructor(
    readonly operator: ArithmeticOperator,
    readonly operand: unknown,
  ) {}
}

const INT32_MIN = -2147483648n;
const INT32_MAX = 2147483647n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Type rank: the result of two numbers has the higher one. */
function rank(value: unknown): number {
  switch (bsonTypeOf(value)) {
    case BsonType.int:
      return 0;
    case BsonType.long:
      return 1;
    case BsonType.double:
      return 2;
    default:
      return 3;
  }
}

function asBigInt(value: unknown): bigint {
  return typeof value === 'number' ? BigInt(value) : BigInt(String(value));
}

/** A double as the store holds it (typed-numbers.ts): a `Double` where a number would read back as an int. */
function asDouble(value: number): unknown {
  return bsonTypeOf(value) === BsonType.int ? new Double(value) : value;
}

function describe(value: unknown): string {
  const type = bsonTypeOf(value);
  if (type === BsonType.long) return `(NumberLong)${String(value)}`;
  if (type === BsonType.int) return `(NumberInt)${String(value)}`;
  return `(NumberDouble)${String(toNumber(value))}`;
}

/** `current op operand` for two numbers, or undefined beyond 64 bits. */
function compute(operator: '$inc' | '$mul', current: unknown, operand: unknown): unknown {
  const type = Math.max(rank(current), rank(operand));
  if (type === 3)
    throw new CommandError('CommandNotSupported', `${operator} on decimal numbers is not supported by this store`);
  if (type === 2) {
    const a = toNumber(current);
    const b = toNumber(operand);
    return asDouble(operator === '$inc' ? a + b : a * b);
  }
  const a = asBigInt(current);
  const b = asBigInt(operand);
  const result = operator === '$inc' ? a + b : a * b;
  if (type === 0 && result >= INT32_MIN && result <= INT32_MAX) return Number(result);
  if (result < INT64_MIN || result > INT64_MAX) return undefined;
  return Long.fromBigInt(result);
}

/** A zero of the operand's type: what `$mul` makes of a missing field. */
function zeroLike(operand: unknown): unknown {
  switch (bsonTypeOf(operand)) {
    case BsonType.long:
      return Long.fromNumber(0);
    case BsonType.double:
      return new Double(0);
    case BsonType.int:
      return 0;
    default:
      throw new CommandError('CommandNotSupported', '$mul on decimal numbers is not supported by this store');
  }
}

/**
 * The operators with `$inc`, `$mul`, `$min` and `$max` moved into `$set` as pending values (their
 * paths never meet another operator's: the update was refused otherwise when parsed).
 */
export function withPendingNumbers(operators: Document): Document {
  if (!ARITHMETIC_OPERATORS.some((name) => name in operators)) return operators;
  const result: Document = { ...operators };
  const set: Document = { ...(operators.$set as Document | undefined) };
  for (const name of ARITHMETIC_OPERATORS) {
    const spec = result[name] as unknown;
    if (spec === undefined) continue;
    delete result[name];
    if (!isPlainObject(spec))
      throw new CommandError('FailedToParse', `Modifiers operate on fields but we found type ${typeof spec} instead`);
    for (const [path, operand] of Object.entries(spec)) {
      if (name === '$bit') {
        set[path] = new PendingNumber(name, bitOperations(path, operand));
        continue;
      }
      if ((name === '$inc' || name === '$mul') && !isNumber(operand)) {
        const verb = name === '$inc' ? 'increment' : 'multiply';
        throw new CommandError(
          'TypeMismatch',
          `Cannot ${verb} with non-numeric argument: {${path}: ${JSON.stringify(operand)}}`,
        );
      }
      set[path] = new PendingNumber(name, operand);
    }
  }
  result.$set = set;
  return result;
}

function isInteger(value: unknown): boolean {
  const type = bsonTypeOf(value);
  return type === BsonType.int || type === BsonType.long;
}

/** A `$bit` field's operations, in order, as mongod parses them. */
function bitOperations(path: string, spec: unknown): BitOperation[] {
  if (!isPlainObject(spec))
    throw new CommandError(
      'BadValue',
      `The $bit modifier is not compatible with a ${typeof spec}. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}`,
    );
  const operations: BitOperation[] = [];
  for (const [name, operand] of Object.entries(spec)) {
    if (name !== 'and' && name !== 'or' && name !== 'xor')
      throw new CommandError(
        'BadValue',
        `The $bit modifier only supports 'and', 'or', and 'xor', not '${name}' which is an unknown operator: {${name}: ${String(operand)}}`,
      );
    if (!isInteger(operand))
      throw new CommandError(
        'BadValue',
        `The $bit modifier field must be an Integer(32/64 bit); a '${typeof operand}' is not supported here: {${name}: ${String(operand)}}`,
      );
    operations.push([name, operand]);
  }
  if (operations.length === 0)
    throw new CommandError(
      'BadValue',
      `You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}`,
    );
  return operations;
}

/** `$bit`'s operations on an int or a long: a long when either is one. */
function applyBits(current: unknown, operations: readonly BitOperation[]): unknown {
  let value = current;
  for (const [name, operand] of operations) {
    const long = bsonTypeOf(value) === BsonType.long || bsonTypeOf(operand) === BsonType.long;
    const a = asBigInt(value);
    const b = asBigInt(operand);
    const bits = name === 'and' ? a & b : name === 'or' ? a | b : a ^ b;
    value = long ? Long.fromBigInt(BigInt.asIntN(64, bits)) : Number(BigInt.asIntN(32, bits));
  }
  return value;
}

/** The value at concrete `keys` of `doc` (array positions included), and whether there is one. */
function valueAtKeys(doc: unknown, keys: readonly (string | number)[]): { present: boolean; value?: unknown } {
  let value = doc;
  for (const key of keys) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return { present: false };
    value = (value as Record<string | number, unknown>)[key];
  }
  return { present: value !== undefined, value };
}

function resolve(pending: PendingNumber, before: Document, keys: readonly (string | number)[]): unknown {
  const { present, value } = valueAtKeys(before, keys);
  const { operator, operand } = pending;
  if (operator === '$min') return !present || compareValues(operand, value) < 0 ? operand : value;
  if (operator === '$max') return !present || compareValues(operand, value) > 0 ? operand : value;
  if (operator === '$bit') {
    if (present && !isInteger(value))
      throw new CommandError(
        'BadValue',
        `Cannot apply $bit to a value of non-integral type.{_id: ${String(before._id)}} has the field ${keys.join('.')} of non-integer type ${typeof value}`,
      );
    return applyBits(present ? value : 0, operand as BitOperation[]);
  }
  if (!present) return operator === '$inc' ? operand : zeroLike(operand);
  const path = keys.join('.');
  if (!isNumber(value)) {
    throw new CommandError(
      'TypeMismatch',
      `Cannot apply ${operator} to a value of non-numeric type. {_id: ${String(before._id)}} has the field '${path}' of non-numeric type ${typeof value}`,
    );
  }
  const result = compute(operator, value, operand);
  if (result === undefined) {
    throw new CommandError(
      'BadValue',
      `Failed to apply ${operator} operations to current value (${describe(value)}) for document {_id: ${String(before._id)}}`,
    );
  }
  return result;
}

/** Replaces every pending value mingo put into `after` by its result on the field's value in `before`. */
export function resolvePendingNumbers(before: Document, after: Document): void {
  const visit = (container: Record<string | number, unknown>, keys: (string | number)[]): void => {
    for (const key of Array.isArray(container) ? container.keys() : Object.keys(container)) {
      const value = container[key];
      if (value instanceof PendingNumber) container[key] = resolve(value, before, [...keys, key]);
      else if (Array.isArray(value) || isPlainObject(value))
        visit(value as Record<string | number, unknown>, [...keys, key]);
    }
  };
  visit(after, []);
}

/** Whether the operators hold one of those resolved here. */
export function hasArithmetic(operators: Document): boolean {
  return ARITHMETIC_OPERATORS.some((name) => name in operators);
}
