/**
 * The lines of an import file, read from its bytes: NDJSON, one candidate a line, lines ending
 * in `\n` or `\r\n` (the last may have no end). A line is refused, by its number and never with
 * its text, when its bytes are not valid UTF-8 (a replacement character would be imported in
 * their place) or when it is longer than the maximum line length, which is found while reading:
 * an overlong line is never held whole, so memory stays bounded whatever the file holds. A UTF-8
 * byte order mark at the start of the file is skipped (editors on Windows write one).
 */

/** Most bytes of one line (its end not counted): far above any candidate the API accepts. */
export const MAX_IMPORT_LINE_BYTES = 8 * 1024 * 1024;

/** A line read (`text`), or refused before it is parsed (`refused`: why, naming no value). */
export type ImportLine = { lineNumber: number; text: string } | { lineNumber: number; refused: string };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

/** Reads `chunks` (a file or stdin stream: Buffers, or texts taken as UTF-8) line by line. */
export async function* readImportLines(
  chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  maxLineBytes = MAX_IMPORT_LINE_BYTES,
): AsyncGenerator<ImportLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const tooLong = `longer than the maximum line length (${maxLineBytes} bytes)`;
  let parts: Buffer[] = [];
  let length = 0;
  let lineNumber = 1;
  /** the current line passed the maximum: its refusal is out, its bytes are skipped up to its end */
  let overlong = false;
  /** the first bytes of the file, held until they tell whether they start with a byte order mark */
  let start: Buffer | undefined = Buffer.alloc(0);

  const lineOf = (): ImportLine => {
    let line = parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, -1);
    if (line.length > maxLineBytes) return { lineNumber, refused: tooLong };
    try {
      return { lineNumber, text: decoder.decode(line) };
    } catch {
      return { lineNumber, refused: 'not valid UTF-8' };
    }
  };

  for await (const chunk of chunks) {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (start !== undefined) {
      start = Buffer.concat([start, bytes]);
      if (start.length < BYTE_ORDER_MARK.length && BYTE_ORDER_MARK.subarray(0, start.length).equals(start)) continue;
      bytes = start.subarray(0, BYTE_ORDER_MARK.length).equals(BYTE_ORDER_MARK) ? start.subarray(3) : start;
      start = undefined;
    }
    let from = 0;
    while (from <= bytes.length) {
      const end = bytes.indexOf(NEWLINE, from);
      const piece = bytes.subarray(from, end === -1 ? bytes.length : end);
      if (!overlong) {
        // One byte more than the maximum may be the `\r` of a `\r\n` (lineOf checks the line itself).
        if (length + piece.length > maxLineBytes + 1) {
          overlong = true;
          parts = [];
          length = 0;
          yield { lineNumber, refused: tooLong };
        } else if (piece.length > 0) {
          parts.push(piece);
          length += piece.length;
        }
      }
      if (end === -1) break;
      if (!overlong) yield lineOf();
      parts = [];
      length = 0;
      overlong = false;
      lineNumber += 1;
      from = end + 1;
    }
  }
  if (start !== undefined && start.length > 0) {
    parts = [start];
    length = start.length;
  }
  if (!overlong && length > 0) yield lineOf();
}
