import { deserialize, serialize, type Document } from 'bson';
import { HEADER_BYTES, OpCode, WireProtocolError, writeHeader } from './protocol';

/** OP_REPLY flag: the query failed and the single document is an error ($err). */
export const QUERY_FAILURE = 1 << 1;
/** OP_REPLY flag servers set since 1.6 to tell clients they support awaitData. */
const AWAIT_CAPABLE = 1 << 3;

export interface OpQueryRequest {
  readonly fullCollectionName: string;
  readonly query: Document;
}

/**
 * Decodes a legacy OP_QUERY. Drivers still send their first handshake (isMaster on admin.$cmd)
 * this way, before they know the server speaks OP_MSG.
 */
export function decodeOpQuery(message: Buffer): OpQueryRequest {
  const nameStart = HEADER_BYTES + 4;
  const nameEnd = message.indexOf(0, nameStart);
  if (nameEnd < 0) throw new WireProtocolError('unterminated collection name in OP_QUERY');
  const fullCollectionName = message.toString('utf8', nameStart, nameEnd);
  const queryStart = nameEnd + 1 + 8; // numberToSkip, numberToReturn
  if (queryStart + 5 > message.length) throw new WireProtocolError('truncated OP_QUERY');
  const size = message.readInt32LE(queryStart);
  if (size < 5 || queryStart + size > message.length)
    throw new WireProtocolError('OP_QUERY document length out of bounds');
  let query: Document;
  try {
    query = deserialize(message.subarray(queryStart, queryStart + size));
  } catch (error) {
    throw new WireProtocolError(`invalid BSON: ${(error as Error).message}`);
  }
  // Old drivers wrap the command as {$query: {...}, $readPreference: ...}.
  if (query.$query && typeof query.$query === 'object') query = query.$query as Document;
  return { fullCollectionName, query };
}

export function encodeOpReply(requestId: number, responseTo: number, reply: Document, flags = 0): Buffer {
  const bson = serialize(reply);
  const message = Buffer.allocUnsafe(HEADER_BYTES + 20 + bson.length);
  writeHeader(message, message.length, requestId, responseTo, OpCode.Reply);
  message.writeInt32LE(flags | AWAIT_CAPABLE, HEADER_BYTES);
  message.writeBigInt64LE(0n, HEADER_BYTES + 4); // cursorID
  message.writeInt32LE(0, HEADER_BYTES + 12); // startingFrom
  message.writeInt32LE(1, HEADER_BYTES + 16); // numberReturned
  message.set(bson, HEADER_BYTES + 20);
  return message;
}
