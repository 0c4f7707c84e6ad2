/**
 * What the text fields of a registration may hold, and the one normal form of e-mail addresses.
 *
 * Characters that are invisible or change how text around them is shown have no business in a
 * name, a number or an address: controls (Unicode category Cc: NUL, ESC, DEL, NEL, …), format
 * characters (Cf: zero-width space, word joiner, soft hyphen, byte order mark, the bidi marks,
 * embeddings, overrides and isolates, tag characters), line and paragraph separators (Zl, Zp) and
 * lone surrogates (Cs). They make one value look like another (`a@example.org` and
 * `a@example.org\u200b` would be two addresses) or reorder what a reader sees (U+202E).
 *
 * - `identifier` (e-mail, phone and agency numbers, profile link, registrarId): none of them.
 * - `line` (names, city, roles, institutions, skills, …): none of them, except the zero-width
 *   non-joiner and joiner (U+200C, U+200D), which spell Persian, Arabic-script and Indic words
 *   and emoji sequences.
 * - `multiline` (the candidate's message, a job description): as `line`, plus line feed,
 *   carriage return and tab.
 */
export type TextKind = 'identifier' | 'line' | 'multiline';

const JOINERS = '\\u200C\\u200D';
const MULTILINE_CONTROLS = '\\n\\r\\t';

const REFUSED: Record<TextKind, RegExp> = {
  identifier: /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u,
  line: new RegExp(`[\\p{Zl}\\p{Zp}\\p{Cs}\\p{Cc}]|(?![${JOINERS}])\\p{Cf}`, 'u'),
  multiline: new RegExp(`(?![${MULTILINE_CONTROLS}])\\p{Cc}|[\\p{Zl}\\p{Zp}\\p{Cs}]|(?![${JOINERS}])\\p{Cf}`, 'u'),
};

/** The rule an input issue states (never the value, which may be identity data). */
export const TEXT_RULES: Record<TextKind, string> = {
  identifier: 'free of control, zero-width, bidi and other invisible characters',
  line: 'free of line breaks and of control, zero-width (other than U+200C and U+200D), bidi and other invisible characters',
  multiline:
    'free of control (other than line feed, carriage return and tab), zero-width (other than U+200C and U+200D), bidi and other invisible characters',
};

/** True when `value` holds a character that text of this kind may not. */
export function hasRefusedCharacter(value: string, kind: TextKind): boolean {
  return REFUSED[kind].test(value);
}

/**
 * The form in which e-mail addresses are compared (and kept unique): Unicode NFKC (full-width
 * and other compatibility forms become their plain letters, `ｉｎｆｏ＠example.org` is
 * `info@example.org`), surrounding white space trimmed, lower case.
 */
export function normalisedEmail(email: string): string {
  return email.normalize('NFKC').trim().toLowerCase();
}
