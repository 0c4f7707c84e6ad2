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
const DAY_MS = 86400000;

function twoDigits(out: Buffer, pos: number, value: number): number {
  out[pos] = 0x30 + Math.floor(value / 10);
  out[pos + 1] = 0x30 + (value % 10);
  return pos + 2;
}
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
    const length = bytes.length;
    this.ensure(length);
    // TypedArray's set (a builtin, no call into C++ as Buffer's copy is) beats a loop from a few bytes on.
    if (length > 6) {
      this.buf.set(bytes, this.pos);
      this.pos += length;
      return;
    }
    const out = this.buf;
    let pos = this.pos;
    for (let i = 0; i < length; i++) out[pos++] = bytes[i];
    this.pos = pos;
  }

  /** An ASCII text as it is (a number's digits, an enum value, an ISO date). */
  ascii(text: string): void {
    const length = text.length;
    this.ensure(length);
    const out = this.buf;
    let pos = this.pos;
    for (let i = 0; i < length; i++) out[pos++] = text.charCodeAt(i);
    this.pos = pos;
  }

  /** A 32-bit integer's digits (-0 as 0, as JSON.stringify writes it). */
  int(value: number): void {
    this.ensure(11);
    const out = this.buf;
    let n = value;
    if (n < 0) {
      out[this.pos++] = 0x2d;
      n = -n;
    }
    if (n < 10) {
      out[this.pos++] = 0x30 + n;
      return;
    }
    let digits = 1;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    let pos = this.pos + digits;
    this.pos = pos;
    while (n >= 10) {
      const next = Math.floor(n / 10);
      out[--pos] = 0x30 + (n - next * 10);
      n = next;
    }
    out[pos - 1] = 0x30 + n;
  }

  /**
   * The time value `ms` (within a Date's range) quoted as Date.prototype.toISOString writes it:
   * computed here for the years 0 to 9999 (every stored date in practice), without a Date or a string.
   */
  isoDateTime(ms: number): void {
    const days = Math.floor(ms / DAY_MS);
    let rest = ms - days * DAY_MS;
    // The civil date of a day count (H. Hinnant's days_from_civil, inverted).
    const z = days + 719468;
    const era = Math.floor(z / 146097);
    const doe = z - era * 146097;
    const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
    const month = mp < 10 ? mp + 3 : mp - 9;
    const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    if (year < 0 || year > 9999) {
      this.byte(QUOTE);
      this.ascii(new Date(ms).toISOString());
      this.byte(QUOTE);
      return;
    }
    const hours = Math.floor(rest / 3600000);
    rest -= hours * 3600000;
    const minutes = Math.floor(rest / 60000);
    rest -= minutes * 60000;
    const seconds = Math.floor(rest / 1000);
    const millis = rest - seconds * 1000;
    this.ensure(26);
    const out = this.buf;
    let pos = this.pos;
    out[pos++] = QUOTE;
    out[pos++] = 0x30 + Math.floor(year / 1000);
    out[pos++] = 0x30 + (Math.floor(year / 100) % 10);
    out[pos++] = 0x30 + (Math.floor(year / 10) % 10);
    out[pos++] = 0x30 + (year % 10);
    out[pos++] = 0x2d;
    pos = twoDigits(out, pos, month);
    out[pos++] = 0x2d;
    pos = twoDigits(out, pos, day);
    out[pos++] = 0x54;
    pos = twoDigits(out, pos, hours);
    out[pos++] = 0x3a;
    pos = twoDigits(out, pos, minutes);
    out[pos++] = 0x3a;
    pos = twoDigits(out, pos, seconds);
    out[pos++] = 0x2e;
    out[pos++] = 0x30 + Math.floor(millis / 100);
    out[pos++] = 0x30 + (Math.floor(millis / 10) % 10);
    out[pos++] = 0x30 + (millis % 10);
    out[pos++] = 0x5a;
    out[pos++] = QUOTE;
    this.pos = pos;
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
