/**
 * Encodes `{cursor: {<batchKey>: [...docs], id: <int64>, ns}, ok: 1}` around documents that are
 * already BSON, so a batch is serialized once, document by document, and its size is known
 * before the reply is built (batches stop short of the 16 MB reply limit).
 */

const TYPE_DOUBLE = 0x01;
const TYPE_STRING = 0x02;
const TYPE_DOCUMENT = 0x03;
const TYPE_ARRAY = 0x04;
const TYPE_INT64 = 0x12;

function cstringBytes(value: string): number {
  return Buffer.byteLength(value, 'utf8') + 1;
}

class BsonWriter {
  private offset = 0;
  constructor(readonly buffer: Buffer) {}

  int32(value: number): void {
    this.buffer.writeInt32LE(value, this.offset);
    this.offset += 4;
  }

  byte(value: number): void {
    this.buffer[this.offset++] = value;
  }

  cstring(value: string): void {
    this.offset += this.buffer.write(value, this.offset, 'utf8');
    this.byte(0);
  }

  element(type: number, name: string): void {
    this.byte(type);
    this.cstring(name);
  }

  bytes(value: Uint8Array): void {
    this.buffer.set(value, this.offset);
    this.offset += value.length;
  }

  int64(value: number): void {
    this.buffer.writeBigInt64LE(BigInt(value), this.offset);
    this.offset += 8;
  }

  double(value: number): void {
    this.buffer.writeDoubleLE(value, this.offset);
    this.offset += 8;
  }

  string(value: string): void {
    this.int32(cstringBytes(value));
    this.cstring(value);
  }
}

export function encodeCursorReply(
  batchKey: 'firstBatch' | 'nextBatch',
  cursorId: number,
  ns: string,
  docs: readonly Uint8Array[],
): Buffer {
  let arrayBytes = 4 + 1;
  docs.forEach((doc, i) => {
    arrayBytes += 1 + cstringBytes(String(i)) + doc.length;
  });
  const cursorBytes = 4 + (1 + cstringBytes(batchKey) + arrayBytes) + (1 + 3 + 8) + (1 + 3 + 4 + cstringBytes(ns)) + 1;
  const totalBytes = 4 + (1 + cstringBytes('cursor') + cursorBytes) + (1 + 3 + 8) + 1;

  const out = new BsonWriter(Buffer.allocUnsafe(totalBytes));
  out.int32(totalBytes);
  out.element(TYPE_DOCUMENT, 'cursor');
  out.int32(cursorBytes);
  out.element(TYPE_ARRAY, batchKey);
  out.int32(arrayBytes);
  docs.forEach((doc, i) => {
    out.element(TYPE_DOCUMENT, String(i));
    out.bytes(doc);
  });
  out.byte(0);
  out.element(TYPE_INT64, 'id');
  out.int64(cursorId);
  out.element(TYPE_STRING, 'ns');
  out.string(ns);
  out.byte(0);
  out.element(TYPE_DOUBLE, 'ok');
  out.double(1);
  out.byte(0);
  return out.buffer;
}
