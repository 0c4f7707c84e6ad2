import { deserialize, Double, Long, type Document } from 'bson';
import { isNumber } from './bson-types';
import { isPlainObject } from './path-values';
import { typedNumbersOf } from './raw-bson';
import { compareValues } from './value-order';

/**
 * How the store holds numbers once decoded, so that each keeps the BSON type it was written as
 * (mongod keeps it, `$type` tells them apart, and the driver reads it back): an int is a
 * JavaScript number, and so is a double the number's own encoding gives back (a fraction, -0, or
 * beyond 32 bits); a double with a whole value within 32 bits is a `Double`, every int64 a `Long`,
 * a decimal a `Decimal128`. `bson`'s serializer writes each back as the type it was.
 */

interface Tagged {
  readonly _bsontype?: string;
}

/** A stored or sent document decoded with each number of the BSON type it has (above). */
export function decodeTyped(bson: Uint8Array): Document {
  const doc = deserialize(bson);
  const typed = typedNumbersOf(bson);
  if (typed.length === 0) return doc;
  // The plain decoding, then each number it could not type put back as its wrapper.
  const view = new DataView(bson.buffer, bson.byteOffset, bson.byteLength);
  for (const { keys, type, offset } of typed) {
    let container = doc as Record<string, unknown>;
    for (let i = 0; i < keys.length - 1; i++) container = container[keys[i]] as Record<string, unknown>;
    container[keys[keys.length - 1]] =
      type === 0x01
        ? new Double(view.getFloat64(offset, true))
        : new Long(view.getInt32(offset, true), view.getInt32(offset + 4, true));
  }
  return doc;
}

/** A `Double` or `Long` as the JavaScript number it stands for (a Long beyond 2^53 stays one). */
function plain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(plain);
  const tag = (value as Tagged)._bsontype;
  if (tag === 'Double') return (value as Double).value;
  if (tag === 'Long') {
    const long = value as { toNumber(): number; toString(): string };
    const number = long.toNumber();
    return Number.isSafeInteger(number) ? number : value;
  }
  if (tag !== undefined || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) copy[key] = plain(field);
  return copy;
}

/**
 * A copy of a document with its numbers as JavaScript numbers, for mingo's expressions (which
 * compute on JavaScript numbers only): what aggregation stages and pipeline updates run on.
 */
export function withPlainNumbers(doc: Document): Document {
  return plain(doc) as Document;
}

/**
 * `result`, computed by mingo from `withPlainNumbers(original)`, with each number it holds at a
 * path where `original` has an equal number given that number back (its stored type): fields a
 * projection or a pipeline update kept keep their types. Changes `result` in place.
 */
export function withTypesOf(original: unknown, result: unknown): unknown {
  if (typeof result === 'number')
    return typeof original !== 'number' && isNumber(original) && compareValues(original, result) === 0
      ? original
      : result;
  if (Array.isArray(result)) {
    const before = Array.isArray(original) ? original : [];
    for (let i = 0; i < result.length; i++) result[i] = withTypesOf(before[i], result[i]);
  } else if (isPlainObject(result)) {
    const before = isPlainObject(original) ? original : {};
    for (const key of Object.keys(result)) result[key] = withTypesOf(before[key], result[key]);
  }
  return result;
}
