/**
 * The one codec of the opaque cursors of keyset pagination (candidatesConnection, auditEvents):
 * a position in an order, and whatever else must not change between pages, as the base64url
 * of a JSON array. A time is carried as its milliseconds since the epoch.
 *
 * Cursors are opaque, not secret: a caller can read and forge one. Decoding therefore trusts
 * nothing: a cursor that is not exactly the expected shape, or not spelled exactly as
 * `encodeCursor` spells its parts (other spacing, padding, a number written another way),
 * decodes to undefined, and each service answers that with its own input error. One position
 * has one cursor, so a cursor a client keeps compares equal to the one the service gives.
 */

/** What a part of a cursor holds: a time (a Date) or a text. */
export type CursorPartKind = 'time' | 'text';

type PartOf<K extends CursorPartKind> = K extends 'time' ? Date : string;

/** The decoded parts of a cursor of this shape, e.g. `[Date, string]` for `['time', 'text']`. */
export type CursorParts<S extends readonly CursorPartKind[]> = { -readonly [I in keyof S]: PartOf<S[I]> };

/** The cursor of these parts, in this order. */
export function encodeCursor(parts: readonly (Date | string)[]): string {
  const json = JSON.stringify(parts.map((part) => (part instanceof Date ? part.getTime() : part)));
  return Buffer.from(json, 'utf8').toString('base64url');
}

/**
 * The parts of `cursor` when it holds exactly `shape` (as many parts, each of its kind: a time
 * as a safe integer, a text as a string) and is their canonical spelling (`encodeCursor` of
 * them); undefined for anything else (not base64url of JSON, another length, a part of another
 * kind, another spelling of the same parts).
 */
export function decodeCursor<const S extends readonly CursorPartKind[]>(
  cursor: string,
  shape: S,
): CursorParts<S> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== shape.length) return undefined;
  const parts: (Date | string)[] = [];
  for (const [i, kind] of shape.entries()) {
    const part: unknown = parsed[i];
    if (kind === 'time' && Number.isSafeInteger(part)) parts.push(new Date(part as number));
    else if (kind === 'text' && typeof part === 'string') parts.push(part);
    else return undefined;
  }
  if (encodeCursor(parts) !== cursor) return undefined;
  // Each part was checked against its kind above.
  return parts as CursorParts<S>;
}
