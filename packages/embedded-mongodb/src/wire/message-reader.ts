import { HEADER_BYTES, MAX_MESSAGE_BYTES, WireProtocolError } from './protocol';

/**
 * Splits a TCP byte stream into whole wire messages. Chunks are kept as received and joined
 * once per message, so a 48 MB insert arriving in 64 KB pieces is copied once, not re-copied
 * on every chunk.
 */
export class MessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Adds received bytes; returns the messages they complete. Throws on an impossible length. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: Buffer[] = [];
    for (;;) {
      const length = this.peekLength();
      if (length === undefined || this.buffered < length) return messages;
      messages.push(this.take(length));
    }
  }

  private peekLength(): number | undefined {
    if (this.buffered < 4) return undefined;
    if (this.chunks[0].length < 4) this.chunks = [Buffer.concat(this.chunks)];
    const length = this.chunks[0].readInt32LE(0);
    if (length < HEADER_BYTES || length > MAX_MESSAGE_BYTES) {
      throw new WireProtocolError(`invalid message length ${length}`);
    }
    return length;
  }

  private take(length: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered);
    const message = joined.subarray(0, length);
    const rest = joined.subarray(length);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return message;
  }
}
