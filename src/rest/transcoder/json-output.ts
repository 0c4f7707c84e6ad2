import { isUtf8 } from 'node:buffer';

/**
 * Thrown when a stored value is not one the transcoder writes exactly as the GraphQL executor
 * would (a type the field's scalar would coerce or refuse, invalid UTF-8, a null in a list of
 * non-null items...): the request is then answered by the executor, which has the last word on
 * such data. One instance, without a stack: it is control flow, not a failure.
 */
export class NotTranscodable extends Error {
  private constructor() {
    super('a stored value left to the executor');
  }
  static readonly signal = new NotTranscodable();
}

export function giveUp(): never {
  throw NotTranscodable.signal;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const ESCAPED_QUOTE = Buffer.from('\\"', 'latin1');
const ESCAPED_BACKSLASH = Buffer.from('\\\\', 'latin1');

/** JSON.stringify's escape of each byte below 0x20, as bytes. */
const CONTROL_ESCAPES: readonly Buffer[] = Array.from({ length: 0x20 }, (_, code) =>
  Buffer.from(JSON.stringify(String.fromCharCode(code)).slice(1, -1), 'latin1'),
);

/**
 * The bytes of one JSON answer, written in place: grows by doubling, and hands out a copy of
 * exactly what was written. Kept by one transcoder and reused from answer to answer (it holds
 * nothing once `take` has copied the answer out).
 */
export class JsonOutput {
  buf: Buffer;
  pos = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  reset(): void {
    this.pos = 0;
  }

  ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  byte(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }

  /** Bytes known to need no escaping (a field's `"name":`, a reference object written at start). */
  raw(bytes: Buffer): void {
    this.ensure(bytes.length);
    bytes.copy(this.buf, this.pos);
    this.pos += bytes.length;
  }

  /** An ASCII text as it is (a number's digits, an enum value, an ISO date). */
  ascii(text: string): void {
    this.ensure(text.length);
    this.pos += this.buf.write(text, this.pos, 'latin1');
  }

  /** A non-negative or negative 32-bit integer's digits. */
  int(value: number): void {
    if (value >= 0 && value < 10) this.byte(0x30 + value);
    else this.ascii(String(value));
  }

  /**
   * The UTF-8 bytes `source[start, end)` as a JSON string, as JSON.stringify writes the text
   * they encode: quote, backslash and control characters escaped, everything else copied.
   * Bytes that are not valid UTF-8 give up (the driver would refuse to decode them).
   */
  utf8String(source: Buffer, start: number, end: number): void {
    // Room for the worst case (every byte escaped as \u00XX), so the loop never checks.
    this.ensure((end - start) * 6 + 2);
    const out = this.buf;
    let pos = this.pos;
    out[pos++] = QUOTE;
    let high = 0;
    for (let i = start; i < end; i++) {
      const b = source[i];
      if (b >= 0x20 && b !== QUOTE && b !== BACKSLASH) {
        high |= b;
        out[pos++] = b;
      } else {
        const escape = b < 0x20 ? CONTROL_ESCAPES[b] : b === QUOTE ? ESCAPED_QUOTE : ESCAPED_BACKSLASH;
        for (let k = 0; k < escape.length; k++) out[pos++] = escape[k];
      }
    }
    if (high & 0x80 && !isUtf8(source.subarray(start, end))) giveUp();
    out[pos++] = QUOTE;
    this.pos = pos;
  }

  /** A JavaScript string as JSON.stringify writes it. */
  jsString(value: string): void {
    this.raw(Buffer.from(JSON.stringify(value), 'utf8'));
  }

  /** A copy of what was written since the last reset. */
  take(): Buffer {
    const body = Buffer.allocUnsafeSlow(this.pos);
    this.buf.copy(body, 0, 0, this.pos);
    this.pos = 0;
    return body;
  }
}
