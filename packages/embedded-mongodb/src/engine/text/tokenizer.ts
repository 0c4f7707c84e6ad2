import type { TextLanguage } from './languages';
import { foldString, isDelimiter, lowerCase } from './unicode';

export interface TokenOptions {
  /** Leave out the language's stop words (documents and queries do; the matcher does not). */
  readonly filterStopWords: boolean;
  readonly caseSensitive: boolean;
  readonly diacriticSensitive: boolean;
}

const STRIP_DIACRITICS = { caseSensitive: true, diacriticSensitive: false, turkish: false } as const;

/**
 * The terms of a text, as text index version 3 makes them: words split at delimiters; a word
 * whose lower case is a stop word left out; the rest stemmed (from their lower case, or as
 * written when case sensitive), then stripped of diacritics unless diacritic sensitive.
 */
export function tokenize(text: string, language: TextLanguage, options: TokenOptions): string[] {
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
