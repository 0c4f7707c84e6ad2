/** MongoDB wire protocol constants (https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/). */
export const OpCode = {
  Reply: 1,
  Query: 2004,
  Compressed: 2012,
  Msg: 2013,
} as const;

export const HEADER_BYTES = 16;

/** The largest message the store accepts; the value it advertises as maxMessageSizeBytes. */
export const MAX_MESSAGE_BYTES = 48_000_000;

export interface MessageHeader {
  readonly length: number;
  readonly requestId: number;
  readonly responseTo: number;
  readonly opCode: number;
}

/** A message the store cannot make sense of; the connection that sent it is closed. */
export class WireProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireProtocolError';
  }
}

export function readHeader(message: Buffer): MessageHeader {
  return {
    length: message.readInt32LE(0),
    requestId: message.readInt32LE(4),
    responseTo: message.readInt32LE(8),
    opCode: message.readInt32LE(12),
  };
}

export function writeHeader(
  target: Buffer,
  length: number,
  requestId: number,
  responseTo: number,
  opCode: number,
): void {
  target.writeInt32LE(length, 0);
  target.writeInt32LE(requestId, 4);
  target.writeInt32LE(responseTo, 8);
  target.writeInt32LE(opCode, 12);
}
