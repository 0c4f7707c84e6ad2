import { deserialize, serialize, type Document } from 'bson';
import { HEADER_BYTES, OpCode, WireProtocolError, writeHeader } from './protocol';

const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;
/**
 * Bits 0-15 must be understood by the receiver; an unknown one set makes the message invalid.
 * Bits 16+ are optional (exhaustAllowed) and ignored: replies never stream.
 */
const REQUIRED_BITS_MASK = 0xffff;

export interface OpMsgRequest {
  /** The command: the kind 0 body with every kind 1 document sequence added as an array field. */
  readonly body: Document;
  /** The client expects no reply (unacknowledged writes). */
  readonly moreToCome: boolean;
}

function readDocument(message: Buffer, offset: number, end: number): { doc: Document; next: number } {
  if (offset + 5 > end) throw new WireProtocolError('truncated BSON document');
  const size = message.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new WireProtocolError('BSON document length out of bounds');
  try {
    return { doc: deserialize(message.subarray(offset, offset + size)), next: offset + size };
  } catch (error) {
    throw new WireProtocolError(`invalid BSON: ${(error as Error).message}`);
  }
}

export function decodeOpMsg(message: Buffer): OpMsgRequest {
  if (message.length < HEADER_BYTES + 5) throw new WireProtocolError('OP_MSG too short');
  const flags = message.readUInt32LE(HEADER_BYTES);
  if ((flags & REQUIRED_BITS_MASK & ~(CHECKSUM_PRESENT | MORE_TO_COME)) !== 0) {
    throw new WireProtocolError(`unsupported OP_MSG flags ${flags.toString(16)}`);
  }
  // The checksum is optional to verify; the store accepts it without checking (TCP already does).
  const end = flags & CHECKSUM_PRESENT ? message.length - 4 : message.length;
  let offset = HEADER_BYTES + 4;
  let body: Document | undefined;
  const sequences: Array<[string, Document[]]> = [];
  while (offset < end) {
    const kind = message[offset++];
    if (kind === 0) {
      if (body) throw new WireProtocolError('OP_MSG with more than one body section');
      const read = readDocument(message, offset, end);
      body = read.doc;
      offset = read.next;
    } else if (kind === 1) {
      if (offset + 4 > end) throw new WireProtocolError('truncated document sequence');
      const sectionEnd = offset + message.readInt32LE(offset);
      if (sectionEnd > end || sectionEnd < offset + 5)
        throw new WireProtocolError('document sequence length out of bounds');
      const nameEnd = message.indexOf(0, offset + 4);
      if (nameEnd < 0 || nameEnd >= sectionEnd)
        throw new WireProtocolError('unterminated document sequence identifier');
      const identifier = message.toString('utf8', offset + 4, nameEnd);
      const docs: Document[] = [];
      for (let position = nameEnd + 1; position < sectionEnd;) {
        const read = readDocument(message, position, sectionEnd);
        docs.push(read.doc);
        position = read.next;
      }
      sequences.push([identifier, docs]);
      offset = sectionEnd;
    } else {
      throw new WireProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new WireProtocolError('OP_MSG without a body section');
  for (const [identifier, docs] of sequences) body[identifier] = docs;
  return { body, moreToCome: (flags & MORE_TO_COME) !== 0 };
}

/** An OP_MSG reply carrying one document (given as a value or already BSON-encoded). */
export function encodeOpMsg(requestId: number, responseTo: number, reply: Document | Uint8Array): Buffer {
  const bson = reply instanceof Uint8Array ? reply : serialize(reply);
  const message = Buffer.allocUnsafe(HEADER_BYTES + 5 + bson.length);
  writeHeader(message, message.length, requestId, responseTo, OpCode.Msg);
  message.writeUInt32LE(0, HEADER_BYTES);
  message[HEADER_BYTES + 4] = 0;
  message.set(bson, HEADER_BYTES + 5);
  return message;
}
