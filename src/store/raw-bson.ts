/**
 * Reading stored BSON documents (the driver's `raw: true`) in place: element types, and the size of each value, so that a scan
 * steps over what the selection does not name without decoding it.
 * See https://bsonspec.org/spec.html.
 */
export const BSON_TYPE = {
  double: 0x01,
  string: 0x02,
  document: 0x03,
  array: 0x04,
  binary: 0x05,
  undefined: 0x06,
  objectId: 0x07,
  boolean: 0x08,
  dateTime: 0x09,
  null: 0x0a,
  regex: 0x0b,
  dbPointer: 0x0c,
  javascript: 0x0d,
  symbol: 0x0e,
  javascriptWithScope: 0x0f,
  int32: 0x10,
  timestamp: 0x11,
  int64: 0x12,
  decimal128: 0x13,
  minKey: 0xff,
  maxKey: 0x7f,
} as const;

export function int32At(buf: Buffer, at: number): number {
  return buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16) | (buf[at + 3] << 24);
}

/** The end of the value of `type` starting at `at`; -1 for a type it does not know. */
export function skipValue(buf: Buffer, type: number, at: number): number {
  switch (type) {
    case BSON_TYPE.double:
    case BSON_TYPE.dateTime:
    case BSON_TYPE.timestamp:
    case BSON_TYPE.int64:
      return at + 8;
    case BSON_TYPE.string:
    case BSON_TYPE.javascript:
    case BSON_TYPE.symbol:
      return at + 4 + int32At(buf, at);
    case BSON_TYPE.document:
    case BSON_TYPE.array:
    case BSON_TYPE.javascriptWithScope:
      return at + int32At(buf, at);
    case BSON_TYPE.binary:
      return at + 5 + int32At(buf, at);
    case BSON_TYPE.undefined:
    case BSON_TYPE.null:
    case BSON_TYPE.minKey:
    case BSON_TYPE.maxKey:
      return at;
    case BSON_TYPE.objectId:
      return at + 12;
    case BSON_TYPE.boolean:
      return at + 1;
    case BSON_TYPE.int32:
      return at + 4;
    case BSON_TYPE.decimal128:
      return at + 16;
    case BSON_TYPE.regex: {
      let end = at;
      while (buf[end] !== 0) end++;
      end++;
      while (buf[end] !== 0) end++;
      return end + 1;
    }
    case BSON_TYPE.dbPointer:
      return at + 4 + int32At(buf, at) + 12;
    default:
      return -1;
  }
}

/** The position of the value of the element named `name` (ASCII bytes) in the document at `start`, or -1; its type in `found.type`. */
export function findElement(buf: Buffer, start: number, name: Buffer, found: { type: number }): number {
  const end = start + int32At(buf, start) - 1;
  let p = start + 4;
  while (p < end) {
    const type = buf[p++];
    const nameStart = p;
    while (buf[p] !== 0) p++;
    const matches = p - nameStart === name.length && sameBytes(buf, nameStart, name);
    p++;
    if (matches) {
      found.type = type;
      return p;
    }
    p = skipValue(buf, type, p);
    if (p < 0) return -1;
  }
  return -1;
}

export function sameBytes(buf: Buffer, at: number, name: Buffer): boolean {
  for (let i = 0; i < name.length; i++) if (buf[at + i] !== name[i]) return false;
  return true;
}

const TWO_32 = 2 ** 32;
/** The high 32 bits of 2^53: bson promotes an int64 from -2^53 to 2^53 to a number, and keeps a Long object outside. */
const PROMOTED_HIGH = 2 ** 21;

/**
 * The int64 at `at` as a number when bson would promote it, else undefined. The bounds are
 * compared on the exact bits: as a double, 2^53 + 1 rounds to 2^53 and would pass them.
 */
export function promotedInt64(buf: Buffer, at: number): number | undefined {
  const low = buf.readUInt32LE(at);
  const high = buf.readInt32LE(at + 4);
  if (high > PROMOTED_HIGH || (high === PROMOTED_HIGH && low > 0) || high < -PROMOTED_HIGH) return undefined;
  return high * TWO_32 + low;
}

/** The string value at `at` as a JavaScript string (a key to look up). */
export function stringAt(buf: Buffer, at: number): string {
  return buf.toString('utf8', at + 4, at + 4 + int32At(buf, at) - 1);
}

const PUBLIC_ID = Buffer.from('publicId', 'latin1');

/** The `publicId` string of a stored document (every candidate and job opportunity has one). */
export function publicIdOf(document: Uint8Array): string {
  const buf = asBuffer(document);
  const found = { type: 0 };
  const at = findElement(buf, 0, PUBLIC_ID, found);
  if (at < 0 || found.type !== BSON_TYPE.string) throw new Error('a stored document without a string publicId');
  return stringAt(buf, at);
}

/** A Buffer over the same bytes (the driver hands out Buffers already; a Uint8Array is wrapped, not copied). */
export function asBuffer(document: Uint8Array): Buffer {
  return Buffer.isBuffer(document) ? document : Buffer.from(document.buffer, document.byteOffset, document.byteLength);
}
