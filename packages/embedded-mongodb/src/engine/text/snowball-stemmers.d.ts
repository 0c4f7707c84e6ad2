/** The one function of the snowball-stemmers package the text index uses (it ships no types). */
declare module 'snowball-stemmers' {
  interface Stemmer {
    stem(word: string): string;
  }
  export function newStemmer(algorithm: string): Stemmer;
  export function algorithms(): string[];
}
