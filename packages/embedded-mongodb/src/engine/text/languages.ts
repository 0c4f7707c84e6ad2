import { newStemmer } from 'snowball-stemmers';
import { CommandError } from '../../errors';
import { STOP_WORDS } from './stop-words';
import { foldString } from './unicode';

/** A language of text index version 3: its stemmer and stop words. */
export interface TextLanguage {
  /** The canonical name ("english"; "none" stems nothing and has no stop words). */
  readonly name: string;
  /** English keeps the apostrophe inside words. */
  readonly english: boolean;
  /** Turkish folds I to dotless ı. */
  readonly turkish: boolean;
  isStopWord(lowerCased: string): boolean;
  stem(word: string): string;
}

/** The languages mongod's text indexes know, with the two-letter code each also answers to. */
const LANGUAGE_CODES: Readonly<Record<string, string>> = {
  danish: 'da',
  dutch: 'nl',
  english: 'en',
  finnish: 'fi',
  french: 'fr',
  german: 'de',
  hungarian: 'hu',
  italian: 'it',
  norwegian: 'nb',
  portuguese: 'pt',
  romanian: 'ro',
  russian: 'ru',
  spanish: 'es',
  swedish: 'sv',
  turkish: 'tr',
};

/** Words a stemmer was already asked about: documents repeat their words. */
const STEM_CACHE_LIMIT = 50_000;

function makeLanguage(name: string): TextLanguage {
  const stopWords = new Set((STOP_WORDS[name] ?? '').split(' ').filter((word) => word.length > 0));
  if (name === 'none') {
    return { name, english: false, turkish: false, isStopWord: () => false, stem: (word) => word };
  }
  const stemmer = newStemmer(name);
  const stems = new Map<string, string>();
  return {
    name,
    english: name === 'english',
    turkish: name === 'turkish',
    isStopWord: (word) => stopWords.has(word),
    stem(word) {
      let stem = stems.get(word);
      if (stem === undefined) {
        stem = stemmer.stem(word);
        if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
        stems.set(word, stem);
      }
      return stem;
    },
  };
}

const languages = new Map<string, TextLanguage>();

/** The language a name or two-letter code stands for (any case), or undefined. */
export function findLanguage(name: string): TextLanguage | undefined {
  const lower = name.toLowerCase();
  const canonical =
    lower === 'none' || Object.hasOwn(LANGUAGE_CODES, lower)
      ? lower
      : Object.keys(LANGUAGE_CODES).find((language) => LANGUAGE_CODES[language] === lower);
  if (canonical === undefined) return undefined;
  let language = languages.get(canonical);
  if (!language) {
    language = makeLanguage(canonical);
    languages.set(canonical, language);
  }
  return language;
}

/** The language of a `$language` or an index's `default_language`; BadValue as mongod when unknown. */
export function languageOrThrow(name: string): TextLanguage {
  const language = findLanguage(name);
  if (!language) throw new CommandError('BadValue', `unsupported language: "${name}" for text index version 3`);
  return language;
}

let stopWordStems: ReadonlySet<string> | undefined;

/**
 * The terms stop words stem to, in every language, diacritics stripped: a search term among them
 * may be held by a document only as a stop word, which its index entries leave out.
 */
export function stemsOfStopWords(): ReadonlySet<string> {
  if (!stopWordStems) {
    const stems = new Set<string>();
    const strip = { caseSensitive: true, diacriticSensitive: false, turkish: false };
    for (const name of Object.keys(STOP_WORDS)) {
      const language = findLanguage(name)!;
      for (const word of STOP_WORDS[name].split(' ')) stems.add(foldString(language.stem(word), strip));
    }
    stopWordStems = stems;
  }
  return stopWordStems;
}
