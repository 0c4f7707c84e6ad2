import { deserialize, serialize, type Document } from 'bson';
import { holdsTypedNumbers, typedNumbersOf } from '../engine/raw-bson';
import { decodeTyped } from '../engine/typed-numbers';
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
  /**
   * The body again with each number of the BSON type it was sent as (engine/typed-numbers.ts),
   * when it holds a long or a whole double: what writes store. Arguments are read from `body`.
   */
  readonly typed?: Document;
}

/** Where a document of the message is: its bytes, for decoding them a second time with typed numbers. */
type Span = [start: number, end: number];

function readDocument(message: Buffer, offset: number, end: number): { doc: Document; next: number; span: Span } {
  if (offset + 5 > end) throw new WireProtocolError('truncated BSON document');
  const size = message.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new WireProtocolError('BSON document length out of bounds');
  try {
    return {
      doc: deserialize(message.subarray(offset, offset + size)),
      next: offset + size,
      span: [offset, offset + size],
    };
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
  let bodySpan: Span | undefined;
  const sequences: Array<[string, Document[], Span[]]> = [];
  while (offset < end) {
    const kind = message[offset++];
    if (kind === 0) {
      if (body) throw new WireProtocolError('OP_MSG with more than one body section');
      const read = readDocument(message, offset, end);
      body = read.doc;
      bodySpan = read.span;
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
      const spans: Span[] = [];
      for (let position = nameEnd + 1; position < sectionEnd;) {
        const read = readDocument(message, position, sectionEnd);
        docs.push(read.doc);
        spans.push(read.span);
        position = read.next;
      }
      sequences.push([identifier, docs, spans]);
      offset = sectionEnd;
    } else {
      throw new WireProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body || !bodySpan) throw new WireProtocolError('OP_MSG without a body section');
  for (const [identifier, docs] of sequences) body[identifier] = docs;
  const typed = typedBody(message, bodySpan, sequences);
  return { body, moreToCome: (flags & MORE_TO_COME) !== 0, ...(typed ? { typed } : {}) };
}

/**
 * The command decoded again with typed numbers, when a value it carries needs that: one inside
 * a field of the body (a document, a filter, an update) or in a document sequence. A long among
 * the body's own arguments (the driver's `txnNumber`, `getMore`) is no reason: handlers read
 * those from the plain body.
 */
function typedBody(
  message: Buffer,
  bodySpan: Span,
  sequences: ReadonlyArray<[string, Document[], Span[]]>,
): Document | undefined {
  const bytes = ([start, end]: Span) => message.subarray(start, end);
  const inValues =
    typedNumbersOf(bytes(bodySpan)).some(({ keys }) => keys.length > 1) ||
    sequences.some(([, , each]) => each.some((span) => holdsTypedNumbers(bytes(span))));
  if (!inValues) return undefined;
  const typed = decodeTyped(bytes(bodySpan));
  for (const [identifier, , each] of sequences) typed[identifier] = each.map((span) => decodeTyped(bytes(span)));
  return typed;
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
