/**
 * Work on BSON documents without decoding them: the store keeps every document as its BSON
 * bytes (what it sends back most of the time), and these helpers cover the few things it does
 * to those bytes directly: leaving out top-level fields (the `{_id: 0}` projection of every
 * read of the service) and wrapping or unwrapping a document inside a record of the data files.
 */

/** Bytes of the value of an element of `type` that starts at `offset`. */
function valueLength(bson: Uint8Array, view: DataView, type: number, offset: number): number {
  switch (type) {
    case 0x01: // double
    case 0x09: // UTC datetime
    case 0x11: // timestamp
    case 0x12: // int64
      return 8;
    case 0x02: // string
    case 0x0d: // JavaScript code
    case 0x0e: // symbol
      return 4 + view.getInt32(offset, true);
    case 0x03: // document
    case 0x04: // array
    case 0x0f: // code with scope
      return view.getInt32(offset, true);
    case 0x05: // binary
      return 4 + 1 + view.getInt32(offset, true);
    case 0x06: // undefined
    case 0x0a: // null
    case 0x7f: // max key
    case 0xff: // min key
      return 0;
    case 0x07: // ObjectId
      return 12;
    case 0x08: // boolean
      return 1;
    case 0x0b: {
      // regular expression: two C strings
      let end = bson.indexOf(0, offset);
      end = bson.indexOf(0, end + 1);
      return end + 1 - offset;
    }
    case 0x0c: // DBPointer: string then ObjectId
      return 4 + view.getInt32(offset, true) + 12;
    case 0x10: // int32
      return 4;
    case 0x13: // decimal128
      return 16;
    default:
      throw new Error(`unknown BSON element type 0x${type.toString(16)}`);
  }
}

/** Top-level field names as the UTF-8 bytes they are in a document, for matching without decoding. */
export type FieldNames = readonly Uint8Array[];

export function fieldNames(names: Iterable<string>): FieldNames {
  return [...new Set(names)].map((name) => Buffer.from(name, 'utf8'));
}

/**
 * Calls `visit` for each top-level element of a document, in order, with where it starts (its
 * type byte), where its name ends (the name is `bson[start + 1 .. nameEnd)`) and one past its
 * last byte, until `visit` returns false. The one walk over BSON elements of the store.
 */
function forEachElement(
  bson: Uint8Array,
  visit: (start: number, nameEnd: number, end: number) => boolean | void,
): void {
  const view = new DataView(bson.buffer, bson.byteOffset, bson.byteLength);
  const total = view.getInt32(0, true);
  for (let offset = 4; offset < total - 1;) {
    let nameEnd = offset + 1;
    while (bson[nameEnd] !== 0) nameEnd++;
    const end = nameEnd + 1 + valueLength(bson, view, bson[offset], nameEnd + 1);
    if (visit(offset, nameEnd, end) === false) return;
    offset = end;
  }
}

/** True when the name of the element at `start` (ending at `nameEnd`) is one of `names`. */
function nameIsOneOf(bson: Uint8Array, start: number, nameEnd: number, names: FieldNames): boolean {
  search: for (const name of names) {
    if (nameEnd - start - 1 !== name.length) continue;
    for (let i = 0; i < name.length; i++) if (bson[start + 1 + i] !== name[i]) continue search;
    return true;
  }
  return false;
}

/** Names grouped by their length in bytes: an element's name is compared only with those of its length. */
type NamesByLength = readonly (readonly Uint8Array[] | undefined)[];

const byLength = new WeakMap<FieldNames, NamesByLength>();

/** `names` grouped by length, made once per list of names (a projection's, compiled once per command). */
function namesByLength(names: FieldNames): NamesByLength {
  let grouped = byLength.get(names);
  if (grouped === undefined) {
    const groups: Uint8Array[][] = [];
    for (const name of names) (groups[name.length] ??= []).push(name);
    grouped = groups;
    byLength.set(names, grouped);
  }
  return grouped;
}

/** nameIsOneOf through the names grouped by length: a projection of many fields costs as little per element as one of a few. */
function nameIsAmong(bson: Uint8Array, start: number, nameEnd: number, grouped: NamesByLength): boolean {
  const candidates = grouped[nameEnd - start - 1];
  return candidates !== undefined && nameIsOneOf(bson, start, nameEnd, candidates);
}

/** A document of the elements of `bson` in `ranges` (start, end pairs), in that order. */
function documentOf(bson: Uint8Array, ranges: readonly number[]): Buffer {
  let size = 4 + 1;
  for (let i = 0; i < ranges.length; i += 2) size += ranges[i + 1] - ranges[i];
  const out = Buffer.allocUnsafe(size);
  out.writeInt32LE(size, 0);
  let at = 4;
  for (let i = 0; i < ranges.length; i += 2) {
    out.set(bson.subarray(ranges[i], ranges[i + 1]), at);
    at += ranges[i + 1] - ranges[i];
  }
  out[at] = 0;
  return out;
}

/** The document without the named top-level fields (the same bytes when it has none of them). */
export function withoutTopLevelFields(bson: Uint8Array, names: FieldNames): Uint8Array {
  const kept: number[] = [];
  const grouped = namesByLength(names);
  let dropped = false;
  forEachElement(bson, (start, nameEnd, end) => {
    if (nameIsAmong(bson, start, nameEnd, grouped)) dropped = true;
    else kept.push(start, end);
  });
  return dropped ? documentOf(bson, kept) : bson;
}

/**
 * The document reduced to the named top-level fields. A stored document is the encoding of an
 * object, where a name occurs once, so the walk ends at the last field wanted.
 */
export function onlyTopLevelFields(bson: Uint8Array, names: FieldNames): Buffer {
  const kept: number[] = [];
  const grouped = namesByLength(names);
  forEachElement(bson, (start, nameEnd, end) => {
    if (nameIsAmong(bson, start, nameEnd, grouped)) kept.push(start, end);
    return kept.length < 2 * names.length;
  });
  return documentOf(bson, kept);
}

const ID = fieldNames(['_id']);

/**
 * `bson` with its `_id` element moved to the front, where MongoDB stores it (drivers append the
 * _id they generate), rearranged in place rather than through a reordered copy of the object.
 */
export function withIdFirstInPlace(bson: Uint8Array): Uint8Array {
  forEachElement(bson, (start, nameEnd, end) => {
    if (!nameIsOneOf(bson, start, nameEnd, ID)) return true;
    if (start > 4) {
      // A copy (Buffer's own slice would share the bytes about to be moved).
      const element = Uint8Array.prototype.slice.call(bson, start, end);
      bson.copyWithin(4 + element.length, 4, start);
      bson.set(element, 4);
    }
    return false;
  });
  return bson;
}

/** True when the document's first element is `_id`, as the store keeps documents. */
export function hasIdFirst(bson: Uint8Array): boolean {
  let first = false;
  forEachElement(bson, (start, nameEnd) => {
    first = nameIsOneOf(bson, start, nameEnd, ID);
    return false;
  });
  return first;
}

/** The bytes of the embedded document in top-level field `name`; undefined when there is none. */
export function embeddedDocument(bson: Uint8Array, name: string): Uint8Array | undefined {
  const names = fieldNames([name]);
  let found: Uint8Array | undefined;
  forEachElement(bson, (start, nameEnd, end) => {
    if (bson[start] !== 0x03 || !nameIsOneOf(bson, start, nameEnd, names)) return true;
    found = bson.subarray(nameEnd + 1, end);
    return false;
  });
  return found;
}

/**
 * `head` (a document) with one more field, `name`, holding `document`, which is BSON already (a
 * record of the data files around a stored document), without decoding it. The document is the
 * last element, so it ends one byte before the record does.
 */
export function withDocumentField(head: Uint8Array, name: string, document: Uint8Array): Buffer {
  const nameBytes = Buffer.byteLength(name) + 1;
  const size = head.length + 1 + nameBytes + document.length;
  const out = Buffer.allocUnsafe(size);
  out.set(head.subarray(0, head.length - 1), 0);
  out.writeInt32LE(size, 0);
  let offset = head.length - 1;
  out[offset++] = 0x03;
  offset += out.write(name, offset, 'utf8');
  out[offset++] = 0;
  out.set(document, offset);
  out[size - 1] = 0;
  return out;
}

/** Where `document` starts in `record`, made of it by `withDocumentField`. */
export function documentFieldOffset(record: Uint8Array, document: Uint8Array): number {
  return record.length - 1 - document.length;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** A number whose BSON type JavaScript numbers cannot keep, by where it is in its document. */
export interface TypedNumberAt {
  /** Field names from the top (array positions as their decimal names, as BSON stores them). */
  readonly keys: readonly string[];
  /** BSON type 0x01 (a double) or 0x12 (an int64). */
  readonly type: 0x01 | 0x12;
  /** Where its 8 bytes start. */
  readonly offset: number;
}

/**
 * The numbers of a document that JavaScript numbers cannot keep the BSON type of: every int64
 * (one within 2^53 would come back an int or a double), and every double whose value is a whole
 * number within 32 bits (it would be written back as an int). Walks every element, nested
 * documents and arrays included, without decoding any; with `firstOnly`, stops at the first.
 * Empty when there is none.
 */
export function typedNumbersOf(bson: Uint8Array, firstOnly = false): TypedNumberAt[] {
  const found: TypedNumberAt[] = [];
  const view = new DataView(bson.buffer, bson.byteOffset, bson.byteLength);
  const total = view.getInt32(0, true);
  // One flat walk: a nested document's elements follow its length, and its end is a 0 type
  // byte. The names of the documents the walk is in, as [start, end) of their bytes.
  const names: number[] = [];
  for (let offset = 4; offset < total - 1;) {
    const type = bson[offset];
    if (type === 0) {
      names.length -= 2;
      offset++;
      continue;
    }
    let nameEnd = offset + 1;
    while (bson[nameEnd] !== 0) nameEnd++;
    const value = nameEnd + 1;
    let typed = type === 0x12;
    if (type === 0x01) {
      const number = view.getFloat64(value, true);
      typed = Number.isInteger(number) && number >= INT32_MIN && number <= INT32_MAX && !Object.is(number, -0);
    }
    if (typed) {
      const keys: string[] = [];
      for (let i = 0; i < names.length; i += 2)
        keys.push(Buffer.from(bson.buffer, bson.byteOffset + names[i], names[i + 1] - names[i]).toString('utf8'));
      keys.push(Buffer.from(bson.buffer, bson.byteOffset + offset + 1, nameEnd - offset - 1).toString('utf8'));
      found.push({ keys, type: type as 0x01 | 0x12, offset: value });
      if (firstOnly) return found;
    }
    if (type === 0x03 || type === 0x04) {
      names.push(offset + 1, nameEnd);
      offset = value + 4;
    } else {
      offset = value + valueLength(bson, view, type, value);
    }
  }
  return found;
}

/** Whether a document holds a number of `typedNumbersOf`. */
export function holdsTypedNumbers(bson: Uint8Array): boolean {
  return typedNumbersOf(bson, true).length > 0;
}
