/**
 * Work on BSON documents without decoding them: the store keeps every document as its BSON
 * bytes (what it sends back most of the time), and these helpers cover the few things it does
 * to those bytes directly: leaving out top-level fields (the `{_id: 0}` projection of every
 * read of the service) and wrapping or unwrapping a document inside a record of the data files.
 */

/** Bytes of the value of an element of `type` that starts at `offset`. */
export function valueLength(bson: Uint8Array, view: DataView, type: number, offset: number): number {
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

interface Element {
  readonly name: string;
  readonly type: number;
  /** where the element (its type byte) starts */
  readonly start: number;
  /** where its value starts */
  readonly valueStart: number;
  /** one past its last byte */
  readonly end: number;
}

/** The top-level elements of a document, in order. */
function* elements(bson: Uint8Array): Generator<Element> {
  const view = new DataView(bson.buffer, bson.byteOffset, bson.byteLength);
  const total = view.getInt32(0, true);
  let offset = 4;
  while (offset < total - 1) {
    const type = bson[offset];
    const nameEnd = bson.indexOf(0, offset + 1);
    const name = Buffer.from(bson.buffer, bson.byteOffset + offset + 1, nameEnd - offset - 1).toString('utf8');
    const valueStart = nameEnd + 1;
    const end = valueStart + valueLength(bson, view, type, valueStart);
    yield { name, type, start: offset, valueStart, end };
    offset = end;
  }
}

/** The document without the named top-level fields (the same bytes when it has none of them). */
export function withoutTopLevelFields(bson: Uint8Array, names: ReadonlySet<string>): Uint8Array {
  const kept: Element[] = [];
  let dropped = false;
  for (const element of elements(bson)) {
    if (names.has(element.name)) dropped = true;
    else kept.push(element);
  }
  if (!dropped) return bson;
  const size = 4 + kept.reduce((sum, e) => sum + (e.end - e.start), 0) + 1;
  const out = Buffer.allocUnsafe(size);
  out.writeInt32LE(size, 0);
  let offset = 4;
  for (const e of kept) {
    out.set(bson.subarray(e.start, e.end), offset);
    offset += e.end - e.start;
  }
  out[offset] = 0;
  return out;
}

/** The bytes of the embedded document in top-level field `name`; undefined when there is none. */
export function embeddedDocument(bson: Uint8Array, name: string): Uint8Array | undefined {
  for (const element of elements(bson)) {
    if (element.name === name && element.type === 0x03) return bson.subarray(element.valueStart, element.end);
  }
  return undefined;
}

/**
 * `{<stringName>: <stringValue>, <documentName>: <document>}` around a document that is BSON
 * already (a record of the data files holding a stored document), without decoding it.
 */
export function wrapDocument(stringName: string, stringValue: string, documentName: string, document: Uint8Array): Buffer {
  const stringNameBytes = Buffer.byteLength(stringName) + 1;
  const stringValueBytes = Buffer.byteLength(stringValue) + 1;
  const documentNameBytes = Buffer.byteLength(documentName) + 1;
  const size = 4 + (1 + stringNameBytes + 4 + stringValueBytes) + (1 + documentNameBytes + document.length) + 1;
  const out = Buffer.alloc(size);
  let offset = out.writeInt32LE(size, 0);
  out[offset++] = 0x02;
  offset += out.write(stringName, offset, 'utf8') + 1;
  offset = out.writeInt32LE(stringValueBytes, offset);
  offset += out.write(stringValue, offset, 'utf8') + 1;
  out[offset++] = 0x03;
  offset += out.write(documentName, offset, 'utf8') + 1;
  out.set(document, offset);
  return out;
}
