/**
 * Index keys as byte strings whose bytewise order (memcmp, then shorter first) is the index
 * order of value-order.ts's compareValues with each field's direction applied: what mongod calls
 * KeyString. An embedded B+tree that only compares bytes can then hold the index.
 *
 * Layout. A key is its fields' encodings one after another; a descending field is its ascending
 * encoding with every byte inverted. A value is one type byte (0x10 + its rank in value-order.ts)
 * and a body:
 * - MinKey, null and undefined, MaxKey: none;
 * - numbers and dates: the double (every number type converted as the comparator converts it),
 *   8 bytes big-endian with the sign bit flipped (negatives: all bits), NaN as 8 zero bytes;
 * - strings, symbols, code: each UTF-16 code unit as UTF-8 would write a code point of that value
 *   (lone surrogates included), U+0000 as 00 01, then the terminator 00 00;
 * - objects: per field the value's type byte, the name as a string, the value's body; then 00;
 * - arrays: the elements as values, then 00;
 * - binary: length (4 bytes), subtype (1 byte), the bytes; ObjectId: its 12 bytes;
 * - booleans: 00 or 01; timestamps: high then low, 4 bytes each; regexps: pattern then flags.
 *
 * Every value's encoding is prefix-free (no encoding starts with another one), which is what
 * keeps the order when fields are concatenated, when a field is inverted and when the store
 * appends a record number: two different encodings always differ at a byte both have.
 *
 * decodeKey reads a key back, as values that compareValues holds equal to the encoded ones and
 * that encode to the same bytes (see decodeKey for the forms each type comes back in).
 */

import { Binary, BSONRegExp, Code, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { toNumber, TypeEdge, typeBracketOf } from './value-order';

/** The ranks of value-order.ts. */
const MIN_KEY = 0;
const NULL = 1;
const NUMBER = 2;
const STRING = 3;
const OBJECT = 4;
const ARRAY = 5;
const BINARY = 6;
const OBJECT_ID = 7;
const BOOLEAN = 8;
const DATE = 9;
const TIMESTAMP = 10;
const REGEXP = 11;
const CODE = 12;
const MAX_KEY = 13;

/** Type bytes stay far from 00 and FF so a field never starts with 00 or FF, inverted or not. */
const TYPE_BASE = 0x10;
/** Closes an object or array: below every type byte, so a shorter one sorts first. */
const END = 0x00;

/** Where a TypeEdge met while encoding puts the bound: before or after every key extending the bytes. */
const enum EdgeAt {
  None,
  Before,
  After,
}

/** One scratch buffer for every encoding (grown on demand), copied out once per key. */
let scratch = new Uint8Array(512);
let view = new DataView(scratch.buffer);
let pos = 0;
/** The `edge` of the TypeEdge just written (-1 or 1), 0 while none was: the encoding stops there. */
let edgeMet = 0;

function reserve(bytes: number): void {
  if (pos + bytes <= scratch.length) return;
  let size = scratch.length * 2;
  while (size < pos + bytes) size *= 2;
  const grown = new Uint8Array(size);
  grown.set(scratch.subarray(0, pos));
  scratch = grown;
  view = new DataView(grown.buffer);
}

function writeByte(byte: number): void {
  reserve(1);
  scratch[pos++] = byte;
}

function writeDouble(value: number): void {
  reserve(8);
  if (Number.isNaN(value)) {
    // Every NaN alike, below -Infinity (whose encoding starts 00 0F).
    for (let i = 0; i < 8; i++) scratch[pos++] = 0;
    return;
  }
  // `+ 0` turns -0 into 0: the comparator holds them equal.
  view.setFloat64(pos, value + 0);
  if (scratch[pos] & 0x80) {
    for (let i = pos; i < pos + 8; i++) scratch[i] ^= 0xff;
  } else {
    scratch[pos] |= 0x80;
  }
  pos += 8;
}

/**
 * UTF-8's shape applied to each UTF-16 code unit rather than to code points: bytewise order is
 * then code unit order, JavaScript's string order, surrogates included.
 */
function writeString(value: string): void {
  const length = value.length;
  reserve(3 * length + 2);
  const bytes = scratch;
  let p = pos;
  for (let i = 0; i < length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) {
      if (unit === 0) {
        bytes[p++] = 0;
        bytes[p++] = 1;
      } else {
        bytes[p++] = unit;
      }
    } else if (unit < 0x800) {
      bytes[p++] = 0xc0 | (unit >> 6);
      bytes[p++] = 0x80 | (unit & 0x3f);
    } else {
      bytes[p++] = 0xe0 | (unit >> 12);
      bytes[p++] = 0x80 | ((unit >> 6) & 0x3f);
      bytes[p++] = 0x80 | (unit & 0x3f);
    }
  }
  // Below 00 01 (U+0000) and every other unit's first byte: the shorter string sorts first.
  bytes[p++] = 0;
  bytes[p++] = 0;
  pos = p;
}

function writeUint32(value: number): void {
  reserve(4);
  view.setUint32(pos, value >>> 0);
  pos += 4;
}

function writeBytes(bytes: Uint8Array): void {
  reserve(bytes.length);
  scratch.set(bytes, pos);
  pos += bytes.length;
}

function writeBinary(value: unknown): void {
  const bytes = ArrayBuffer.isView(value)
    ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
    : (value as { buffer: Uint8Array }).buffer;
  // Length first, then subtype, then bytes: the comparator's order.
  writeUint32(bytes.length);
  writeByte(((value as { sub_type?: number }).sub_type ?? 0) & 0xff);
  writeBytes(bytes);
}

function writeObjectId(value: unknown): void {
  const id = (value as { id?: unknown }).id;
  if (id instanceof Uint8Array && id.length === 12) {
    writeBytes(id);
    return;
  }
  // The comparator orders ObjectIds by hex string, which is the order of the bytes it spells.
  const hex = String(value);
  reserve(12);
  for (let i = 0; i < 12; i++) scratch[pos++] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16) || 0;
}

function writeObject(value: Record<string, unknown>): void {
  // The comparator's order per field: type of the value, then name, then value.
  for (const name of Object.keys(value)) {
    const field = value[name];
    if (field instanceof TypeEdge) {
      writeByte(TYPE_BASE + field.rank);
      writeString(name);
      edgeMet = field.edge;
      return;
    }
    const rank = typeBracketOf(field);
    writeByte(TYPE_BASE + rank);
    writeString(name);
    writeBody(field, rank);
    if (edgeMet !== 0) return;
  }
  writeByte(END);
}

function writeArray(value: readonly unknown[]): void {
  for (let i = 0; i < value.length; i++) {
    writeValue(value[i]);
    if (edgeMet !== 0) return;
  }
  writeByte(END);
}

function writeBody(value: unknown, rank: number): void {
  switch (rank) {
    case NUMBER:
      writeDouble(toNumber(value));
      return;
    case STRING:
      writeString(typeof value === 'string' ? value : String(value));
      return;
    case OBJECT:
      writeObject(value as Record<string, unknown>);
      return;
    case ARRAY:
      writeArray(value as unknown[]);
      return;
    case BINARY:
      writeBinary(value);
      return;
    case OBJECT_ID:
      writeObjectId(value);
      return;
    case BOOLEAN:
      writeByte(value ? 1 : 0);
      return;
    case DATE:
      writeDouble((value as Date).getTime());
      return;
    case TIMESTAMP: {
      const timestamp = value as { high: number; low: number };
      writeUint32(timestamp.high);
      writeUint32(timestamp.low);
      return;
    }
    case REGEXP:
      if (value instanceof RegExp) {
        writeString(value.source);
        writeString(value.flags);
      } else {
        const regExp = value as { pattern: unknown; options: unknown };
        writeString(String(regExp.pattern));
        writeString(String(regExp.options));
      }
      return;
    case CODE:
      writeString(String(value));
      return;
    default:
      // MinKey, null (and undefined), MaxKey: the type byte is the whole value.
      return;
  }
}

function writeValue(value: unknown): void {
  // The two commonest key types skip the general type dispatch.
  if (typeof value === 'string') {
    writeByte(TYPE_BASE + STRING);
    writeString(value);
    return;
  }
  if (typeof value === 'number') {
    writeByte(TYPE_BASE + NUMBER);
    writeDouble(value);
    return;
  }
  if (value instanceof TypeEdge) {
    // A point between keys: only the type byte, the bound sits before or after all that extend it.
    writeByte(TYPE_BASE + value.rank);
    edgeMet = value.edge;
    return;
  }
  const rank = typeBracketOf(value);
  writeByte(TYPE_BASE + rank);
  writeBody(value, rank);
}

/** Encodes the first `count` fields into the scratch buffer (from 0 to `pos`). */
function writeKey(values: readonly unknown[], directions: readonly number[], count: number): EdgeAt {
  pos = 0;
  edgeMet = 0;
  for (let i = 0; i < count; i++) {
    const start = pos;
    writeValue(values[i]);
    const descending = directions[i] < 0;
    if (descending) {
      for (let j = start; j < pos; j++) scratch[j] ^= 0xff;
    }
    if (edgeMet !== 0) {
      // The key is decided at the edge; inverting the field turns "below all" into "above all".
      return edgeMet > 0 !== descending ? EdgeAt.After : EdgeAt.Before;
    }
  }
  return EdgeAt.None;
}

/**
 * The encoding of an index key; `directions` holds 1 or -1 per field. Two keys of the same index
 * compare bytewise as SortedIndex.compareKeys compares them, and are byte-equal exactly when it
 * finds them equal. A key holding a TypeEdge encodes as the bound that edge stands for.
 */
export function encodeKey(values: readonly unknown[], directions: readonly number[]): Uint8Array {
  const at = writeKey(values, directions, values.length);
  const bytes = scratch.slice(0, pos);
  return at === EdgeAt.After ? successor(bytes)! : bytes;
}

/**
 * The smallest byte string above every byte string that starts with `bytes`; undefined when
 * there is none (`bytes` empty or all FF).
 */
export function successor(bytes: Uint8Array): Uint8Array | undefined {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0xff) end--;
  if (end === 0) return undefined;
  const next = bytes.slice(0, end);
  next[end - 1]++;
  return next;
}

/** A KeyRange's side (start or end) as one byte bound; undefined is open. */
function bound(
  prefix: readonly unknown[],
  inclusive: boolean,
  directions: readonly number[],
  isEnd: boolean,
): Uint8Array | undefined {
  // compareKeys ignores prefix fields beyond the index's.
  const count = Math.min(prefix.length, directions.length);
  if (count === 0) return undefined;
  const at = writeKey(prefix, directions, count);
  const bytes = scratch.slice(0, pos);
  if (at === EdgeAt.Before) return bytes;
  // A field always starts with a type byte (never FF, inverted or not), so a successor exists.
  if (at === EdgeAt.After) return successor(bytes);
  // An inclusive start and an exclusive end sit before the keys with this prefix, the others after.
  return inclusive === isEnd ? successor(bytes) : bytes;
}

/**
 * The byte interval [gte, lt) holding exactly the entries (a full key's encoding, followed by any
 * bytes) that SortedIndex's predicates accept for `range`; undefined leaves that side open.
 */
export function keyRangeBounds(
  range: {
    readonly start: readonly unknown[];
    readonly startInclusive: boolean;
    readonly end: readonly unknown[];
    readonly endInclusive: boolean;
  },
  directions: readonly number[],
): { gte: Uint8Array | undefined; lt: Uint8Array | undefined } {
  return {
    gte: bound(range.start, range.startInclusive, directions, false),
    lt: bound(range.end, range.endInclusive, directions, true),
  };
}

/** Bytewise order as LMDB compares keys: memcmp, then the shorter first. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

// Decoding. Scans decode every entry they read (covered $group counts, merges, sorts from index
// keys), so the reader keeps its state in module variables and allocates only the values.

const NO_BYTES = new Uint8Array(0);
/** The bytes being read, the read position, the first byte not to read, and the current field's
 * mask: FF for a descending field (whose bytes are inverted), 00 for an ascending one. */
let input: Uint8Array = NO_BYTES;
let at = 0;
let limit = 0;
let mask = 0;

/** A double's 8 bytes restored to IEEE order, to read back with the DataView. */
const doubleBytes = new Uint8Array(8);
const doubleView = new DataView(doubleBytes.buffer);

/** A long ASCII string's bytes, un-inverted for Buffer's latin1 decoding; grown on demand. */
let asciiBytes = Buffer.allocUnsafe(256);
/** A string's code units as UTF-16LE bytes (byte order fixed, whatever the platform's) when it is
 * not ASCII or holds U+0000; grown on demand. */
let codeUnitBytes = Buffer.allocUnsafe(512);
/** Up to this length a string built by concatenation is flat (V8 copies short ones) and quicker
 * than the call into Buffer; longer ones would become ropes, slow to hash or compare later. */
const SHORT_STRING = 12;

function notAKey(): Error {
  return new RangeError('decodeKey: the bytes are not an index key as encodeKey writes it');
}

function need(bytes: number): void {
  if (at + bytes > limit) throw notAKey();
}

function readByte(): number {
  if (at >= limit) throw notAKey();
  return input[at++] ^ mask;
}

function readUint32(): number {
  need(4);
  const b = input;
  const value = ((b[at] ^ mask) << 24) | ((b[at + 1] ^ mask) << 16) | ((b[at + 2] ^ mask) << 8) | (b[at + 3] ^ mask);
  at += 4;
  return value >>> 0;
}

/** The copy of `length` bytes, un-inverted. */
function readBytes(length: number): Uint8Array {
  need(length);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = input[at + i] ^ mask;
  at += length;
  return bytes;
}

function readDouble(): number {
  need(8);
  const first = input[at] ^ mask;
  if (first & 0x80) {
    // Zero or positive, stored with the sign bit set.
    doubleBytes[0] = first & 0x7f;
    for (let i = 1; i < 8; i++) doubleBytes[i] = input[at + i] ^ mask;
  } else {
    // Negative, stored with every bit inverted; NaN's 8 zero bytes invert to FF..FF, a NaN.
    const flip = mask ^ 0xff;
    for (let i = 0; i < 8; i++) doubleBytes[i] = input[at + i] ^ flip;
  }
  at += 8;
  return doubleView.getFloat64(0);
}

/**
 * Most key strings are ASCII without U+0000, one byte per code unit: found by one scan and read
 * without decoding. Any other string is read again from its start by readCodeUnits.
 */
function readString(): string {
  const bytes = input;
  const flip = mask;
  const end = limit;
  const start = at;
  let p = start;
  let unit = 0;
  for (; p < end; p++) {
    unit = bytes[p] ^ flip;
    if (unit === 0 || unit >= 0x80) break;
  }
  if (unit !== 0 || p + 1 >= end || (bytes[p + 1] ^ flip) !== 0) return readCodeUnits();
  at = p + 2;
  const length = p - start;
  if (length <= SHORT_STRING) {
    // Few calls with several units each: the quickest way measured to a short flat string.
    let text = '';
    let i = start;
    if (i + 8 <= p) {
      text = String.fromCharCode(
        bytes[i] ^ flip,
        bytes[i + 1] ^ flip,
        bytes[i + 2] ^ flip,
        bytes[i + 3] ^ flip,
        bytes[i + 4] ^ flip,
        bytes[i + 5] ^ flip,
        bytes[i + 6] ^ flip,
        bytes[i + 7] ^ flip,
      );
      i += 8;
    }
    if (i + 4 <= p) {
      text += String.fromCharCode(bytes[i] ^ flip, bytes[i + 1] ^ flip, bytes[i + 2] ^ flip, bytes[i + 3] ^ flip);
      i += 4;
    }
    for (; i < p; i++) text += String.fromCharCode(bytes[i] ^ flip);
    return text;
  }
  if (asciiBytes.length < length) asciiBytes = Buffer.allocUnsafe(Math.max(length, 2 * asciiBytes.length));
  const ascii = asciiBytes;
  for (let i = 0; i < length; i++) ascii[i] = bytes[start + i] ^ flip;
  return ascii.toString('latin1', 0, length);
}

/** writeString's units read back one by one: 00 01 is U+0000, 00 00 ends the string. */
function readCodeUnits(): string {
  let out = codeUnitBytes;
  let length = 0;
  for (;;) {
    const lead = readByte();
    let unit: number;
    if (lead === 0) {
      const next = readByte();
      if (next === 0) break;
      if (next !== 1) throw notAKey();
      unit = 0;
    } else if (lead < 0x80) {
      unit = lead;
    } else if (lead < 0xc0 || lead >= 0xf0) {
      throw notAKey();
    } else if (lead < 0xe0) {
      unit = ((lead & 0x1f) << 6) | (readByte() & 0x3f);
    } else {
      unit = ((lead & 0x0f) << 12) | ((readByte() & 0x3f) << 6) | (readByte() & 0x3f);
    }
    if (2 * length === out.length) {
      const grown = Buffer.allocUnsafe(2 * out.length);
      out.copy(grown);
      out = codeUnitBytes = grown;
    }
    out[2 * length] = unit & 0xff;
    out[2 * length + 1] = unit >> 8;
    length++;
  }
  return out.toString('utf16le', 0, 2 * length);
}

function readObject(): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (;;) {
    const type = readByte();
    if (type === END) return object;
    const name = readString();
    const value = readBody(type - TYPE_BASE);
    if (name === '__proto__') {
      // A field, not the prototype, as BSON's deserializer makes it.
      Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
    } else {
      object[name] = value;
    }
  }
}

function readArray(): unknown[] {
  const array: unknown[] = [];
  for (;;) {
    need(1);
    if ((input[at] ^ mask) === END) {
      at++;
      return array;
    }
    array.push(readValue());
  }
}

/**
 * The text that value-order.ts compares for a Code value: String(value). For bson's Code that is
 * "[object Object]" whatever its code, so every Code encodes alike; a function gives its source.
 * Its String() is the text again, so it compares equal to the value it was encoded from.
 */
class CodeText extends Code {
  override toString(): string {
    return this.code;
  }
}

function readRegExp(): BSONRegExp {
  const pattern = readString();
  const options = readString();
  // Set after construction: the constructor refuses what a JavaScript RegExp key may hold
  // (flags g, y, d, v; U+0000 in the pattern).
  const regExp = new BSONRegExp('');
  regExp.pattern = pattern;
  regExp.options = options;
  return regExp;
}

function readBody(rank: number): unknown {
  switch (rank) {
    case NUMBER:
      return readDouble();
    case STRING:
      return readString();
    case OBJECT:
      return readObject();
    case ARRAY:
      return readArray();
    case BINARY: {
      const length = readUint32();
      const subtype = readByte();
      return new Binary(readBytes(length), subtype);
    }
    case OBJECT_ID:
      // A fresh array: some bson versions keep the one they are given.
      return new ObjectId(readBytes(12));
    case BOOLEAN:
      return readByte() !== 0;
    case DATE:
      return new Date(readDouble());
    case TIMESTAMP: {
      const high = readUint32();
      return new Timestamp({ t: high, i: readUint32() });
    }
    case REGEXP:
      return readRegExp();
    case CODE:
      return new CodeText(readString());
    case MIN_KEY:
      return new MinKey();
    case NULL:
      return null;
    case MAX_KEY:
      return new MaxKey();
    default:
      throw notAKey();
  }
}

function readValue(): unknown {
  return readBody(readByte() - TYPE_BASE);
}

/**
 * The values of the key encoded in `bytes` from `offset`, one per direction, read up to `end` at
 * most (anything after the key, such as the store's record number, is left alone). Each compares
 * equal (compareValues) to the value encoded and encodes to the same bytes; as that is all the
 * encoding keeps, the types come back as:
 * - every number type as the double the comparator uses (a Long beyond 2^53 rounded, -0 as 0,
 *   a Decimal128 beyond the double range as ±Infinity), dates as Date;
 * - null and undefined as null; BSONSymbol as string; Code (and a function) as a Code whose
 *   String() is the text compared (for every bson Code "[object Object]", see CodeText);
 * - a Uint8Array as Binary of subtype 0; a RegExp as BSONRegExp with the RegExp's flags;
 * - objects as plain objects (a class instance or DBRef loses its prototype), arrays as arrays.
 * Only whole keys decode: a range bound holding a TypeEdge does not. Throws a RangeError when the
 * bytes are not such a key.
 */
export function decodeKey(bytes: Uint8Array, directions: readonly number[], offset = 0, end = bytes.length): unknown[] {
  input = bytes;
  at = offset;
  limit = Math.min(end, bytes.length);
  const values: unknown[] = [];
  for (let i = 0; i < directions.length; i++) {
    mask = directions[i] < 0 ? 0xff : 0;
    values.push(readValue());
  }
  // Not kept past the call: the caller's buffer may be large or reused.
  input = NO_BYTES;
  return values;
}

function skipString(): void {
  const bytes = input;
  const flip = mask;
  // 00 starts only U+0000 (00 01) and the terminator (00 00): every other byte of a unit is nonzero.
  for (let p = at; p + 1 < limit; p++) {
    if ((bytes[p] ^ flip) === 0) {
      p++;
      if ((bytes[p] ^ flip) === 0) {
        at = p + 1;
        return;
      }
    }
  }
  throw notAKey();
}

function skip(bytes: number): void {
  need(bytes);
  at += bytes;
}

function skipBody(rank: number): void {
  switch (rank) {
    case NUMBER:
    case DATE:
    case TIMESTAMP:
      skip(8);
      return;
    case STRING:
    case CODE:
      skipString();
      return;
    case REGEXP:
      skipString();
      skipString();
      return;
    case OBJECT:
      for (let type = readByte(); type !== END; type = readByte()) {
        skipString();
        skipBody(type - TYPE_BASE);
      }
      return;
    case ARRAY:
      for (let type = readByte(); type !== END; type = readByte()) skipBody(type - TYPE_BASE);
      return;
    case BINARY:
      skip(readUint32() + 1);
      return;
    case OBJECT_ID:
      skip(12);
      return;
    case BOOLEAN:
      skip(1);
      return;
    case MIN_KEY:
    case NULL:
    case MAX_KEY:
      return;
    default:
      throw notAKey();
  }
}

/** The number of bytes the key's fields (one per direction) take in `bytes` from `offset`. */
export function encodedLength(bytes: Uint8Array, directions: readonly number[], offset = 0): number {
  input = bytes;
  at = offset;
  limit = bytes.length;
  for (let i = 0; i < directions.length; i++) {
    mask = directions[i] < 0 ? 0xff : 0;
    skipBody(readByte() - TYPE_BASE);
  }
  input = NO_BYTES;
  return at - offset;
}
