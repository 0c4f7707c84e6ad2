import type { TextLanguage } from './languages';
import { foldString, isAscii, isDelimiter, lowerCase } from './unicode';

export interface TokenOptions {
  /** Leave out the language's stop words (documents and queries do; the matcher does not). */
  readonly filterStopWords: boolean;
  readonly caseSensitive: boolean;
  readonly diacriticSensitive: boolean;
}

const STRIP_DIACRITICS = { caseSensitive: true, diacriticSensitive: false, turkish: false } as const;

/** The ASCII delimiters (English keeps the apostrophe), looked up per character of ASCII text. */
const ASCII_DELIMITERS = (english: boolean): Uint8Array => {
  const table = new Uint8Array(128);
  for (let code = 0; code < 128; code++) table[code] = isDelimiter(code, english) ? 1 : 0;
  return table;
};
const ENGLISH_ASCII = ASCII_DELIMITERS(true);
const OTHER_ASCII = ASCII_DELIMITERS(false);

/**
 * The terms of a text, as text index version 3 makes them: words split at delimiters; a word
 * whose lower case is a stop word left out; the rest stemmed (from their lower case, or as
 * written when case sensitive), then stripped of diacritics unless diacritic sensitive.
 */
export function tokenize(text: string, language: TextLanguage, options: TokenOptions): string[] {
  // ASCII text (most of it) is split on a table and lower-cased at once; it has no diacritic to
  // strip (^ and ` are delimiters). Turkish lower-cases I apart, so it takes the general path.
  if (!language.turkish && isAscii(text)) return tokenizeAscii(text, language, options);
  const terms: string[] = [];
  let word = '';
  const flush = (): void => {
    if (word.length === 0) return;
    const lower = lowerCase(word, language.turkish);
    if (!(options.filterStopWords && language.isStopWord(lower))) {
      let term = language.stem(options.caseSensitive ? word : lower);
      if (!options.diacriticSensitive) term = foldString(term, STRIP_DIACRITICS);
      terms.push(term);
    }
    word = '';
  };
  for (const char of text) {
    if (isDelimiter(char.codePointAt(0)!, language.english)) flush();
    else word += char;
  }
  flush();
  return terms;
}

function tokenizeAscii(text: string, language: TextLanguage, options: TokenOptions): string[] {
  const delimiters = language.english ? ENGLISH_ASCII : OTHER_ASCII;
  const lowered = text.toLowerCase();
  const terms: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const delimiter = i === text.length || delimiters[text.charCodeAt(i)] === 1;
    if (!delimiter) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    const lower = lowered.slice(start, i);
    if (!(options.filterStopWords && language.isStopWord(lower)))
      terms.push(language.stem(options.caseSensitive ? text.slice(start, i) : lower));
    start = -1;
  }
  return terms;
}
