/**
 * The character rules of text index version 3, as mongod derives them from the Unicode
 * Character Database: which code points separate words, how a code point is case folded
 * (simple folding, Turkish dotless i aside) and which diacritics are removed. mongod builds its
 * tables from Unicode 8.0; these are built from the Unicode version of the running V8 through
 * its property escapes, so a character added to Unicode since may be classed differently.
 */

/** Unicode properties whose code points separate words (mongod's delimiter list). */
const DELIMITER =
  /[\p{White_Space}\p{Dash}\p{Quotation_Mark}\p{Terminal_Punctuation}\p{Pattern_Syntax}\p{Sentence_Terminal}]/u;

/** The Hyphen property (deprecated, so without a property escape): its code points. */
const HYPHENS = new Set([0x2d, 0xad, 0x58a, 0x1806, 0x2010, 0x2011, 0x2e17, 0x30fb, 0xfe63, 0xff0d, 0xff65]);

const DIACRITIC = /\p{Diacritic}/u;

/** Delimiters of the Basic Multilingual Plane, looked up rather than matched per character. */
const BMP_DELIMITERS = (() => {
  const table = new Uint8Array(0x10000);
  for (let cp = 0; cp < 0x10000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (HYPHENS.has(cp) || DELIMITER.test(String.fromCharCode(cp))) table[cp] = 1;
  }
  return table;
})();

/**
 * Whether a code point separates words. English keeps the apostrophe inside words (so "don't"
 * is one word, and a stop word); every other language splits at it.
 */
export function isDelimiter(codePoint: number, english: boolean): boolean {
  if (codePoint === 0x27) return !english;
  if (codePoint < 0x10000) return BMP_DELIMITERS[codePoint] === 1;
  return DELIMITER.test(String.fromCodePoint(codePoint));
}

/** Case folds that differ from the lower case JavaScript gives (Unicode CaseFolding.txt, status C and S). */
const FOLDS_BEYOND_LOWER_CASE = new Map<number, number>([
  [0x00b5, 0x03bc], // micro sign
  [0x017f, 0x0073], // long s
  [0x0345, 0x03b9], // combining ypogegrammeni
  [0x03c2, 0x03c3], // final sigma
  [0x03d0, 0x03b2],
  [0x03d1, 0x03b8],
  [0x03d5, 0x03c6],
  [0x03d6, 0x03c0],
  [0x03f0, 0x03ba],
  [0x03f1, 0x03c1],
  [0x03f5, 0x03b5],
  [0x1e9b, 0x1e61],
  [0x1fbe, 0x03b9],
]);

const foldCache = new Map<number, number>();

/** A code point's simple case fold; `turkish` maps I to dotless ı and İ to i. */
export function foldCase(codePoint: number, turkish: boolean): number {
  if (codePoint < 0x80) {
    if (codePoint >= 0x41 && codePoint <= 0x5a) return turkish && codePoint === 0x49 ? 0x131 : codePoint | 0x20;
    return codePoint;
  }
  if (codePoint === 0x130) return turkish ? 0x69 : codePoint;
  let folded = foldCache.get(codePoint);
  if (folded === undefined) {
    folded = FOLDS_BEYOND_LOWER_CASE.get(codePoint);
    if (folded === undefined) {
      const lower = String.fromCodePoint(codePoint).toLowerCase();
      const first = lower.codePointAt(0)!;
      // Full lower-case mappings to several code points are not simple folds: left as they are.
      folded = lower.length === String.fromCodePoint(first).length ? first : codePoint;
    }
    foldCache.set(codePoint, folded);
  }
  return folded;
}

/** 0 for a code point that is itself a diacritic (removed). */
const diacriticCache = new Map<number, number>();

/**
 * A code point without its diacritics: a diacritic itself becomes 0 (removed); a letter that
 * decomposes into a base and diacritics becomes the recomposed base when that is one code point.
 */
export function removeDiacritics(codePoint: number): number {
  if (codePoint < 0x80) return codePoint === 0x5e || codePoint === 0x60 ? 0 : codePoint;
  let stripped = diacriticCache.get(codePoint);
  if (stripped === undefined) {
    const char = String.fromCodePoint(codePoint);
    if (DIACRITIC.test(char)) {
      stripped = 0;
    } else {
      let base = '';
      for (const part of char.normalize('NFD')) if (!DIACRITIC.test(part)) base += part;
      const recomposed = base.normalize('NFC');
      const first = recomposed.codePointAt(0);
      stripped =
        first !== undefined && recomposed.length === String.fromCodePoint(first).length && recomposed !== char
          ? first
          : codePoint;
    }
    diacriticCache.set(codePoint, stripped);
  }
  return stripped;
}

/** Whether a string is all ASCII (then its UTF-8 bytes are as many as its characters). */
export function isAscii(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') === text.length;
}

export interface FoldOptions {
  readonly caseSensitive: boolean;
  readonly diacriticSensitive: boolean;
  readonly turkish: boolean;
}

/** A string case folded (unless case sensitive) and without diacritics (unless diacritic sensitive). */
export function foldString(text: string, options: FoldOptions): string {
  if (options.caseSensitive && options.diacriticSensitive) return text;
  // ASCII: lower case at once (but Turkish I), and only ^ and ` are diacritics.
  if (!options.turkish && isAscii(text)) {
    const cased = options.caseSensitive ? text : text.toLowerCase();
    return options.diacriticSensitive ? cased : cased.replace(/[\^`]/g, '');
  }
  let out = '';
  for (const char of text) {
    let codePoint = char.codePointAt(0)!;
    if (!options.caseSensitive) codePoint = foldCase(codePoint, options.turkish);
    if (!options.diacriticSensitive) {
      codePoint = removeDiacritics(codePoint);
      if (codePoint === 0) continue;
    }
    out += codePoint < 0x80 ? String.fromCharCode(codePoint) : String.fromCodePoint(codePoint);
  }
  return out;
}

/** A string with each code point case folded, diacritics kept (what stop words are checked against). */
export function lowerCase(text: string, turkish: boolean): string {
  let out = '';
  for (const char of text) out += String.fromCodePoint(foldCase(char.codePointAt(0)!, turkish));
  return out;
}
