import { findLanguage, languageOrThrow } from '../src/engine/text/languages';
import { STOP_WORDS } from '../src/engine/text/stop-words';
import { parseTextQuery } from '../src/engine/text/text-query';
import { fixTextSpec, scoreDocument, termKey } from '../src/engine/text/text-spec';
import { tokenize } from '../src/engine/text/tokenizer';

/** How documents and searches become terms, with no store: the rules of mongod's text index version 3. */

const english = languageOrThrow('english');
const insensitive = { filterStopWords: true, caseSensitive: false, diacriticSensitive: false };

function parsed(search: string, options: { caseSensitive?: boolean; diacriticSensitive?: boolean } = {}) {
  return parseTextQuery(
    { search, caseSensitive: options.caseSensitive ?? false, diacriticSensitive: options.diacriticSensitive ?? false },
    english,
  );
}

describe('text terms', () => {
  describe('languages', () => {
    it('when a language is named by its name or two-letter code in any case, then it is found; an unknown one is not', () => {
      expect(findLanguage('ES')?.name).toBe('spanish');
      expect(findLanguage('Norwegian')?.name).toBe('norwegian');
      expect(findLanguage('nb')?.name).toBe('norwegian');
      expect(findLanguage('none')?.name).toBe('none');
      expect(findLanguage('constructor')).toBeUndefined();
      expect(() => languageOrThrow('xx')).toThrow('unsupported language: "xx" for text index version 3');
    });

    it('when each language mongod supports stems a word, then its own stemmer and stop words are used', () => {
      const cases: [string, string, string[]][] = [
        ['danish', 'og arbejderne', ['arbejd']],
        ['dutch', 'de verpleegkundigen', ['verpleegkund']],
        ['finnish', 'ja sairaanhoitajat', ['sairaanhoitaj']],
        ['french', 'les infirmières', ['infirmi']],
        ['german', 'die Krankenschwestern', ['krankenschw']],
        ['hungarian', 'az ápolók', ['apolo']],
        ['italian', 'gli infermieri', ['infermier']],
        ['norwegian', 'og sykepleierne', ['sykepleiern']],
        ['portuguese', 'os enfermeiros', ['enfermeir']],
        ['romanian', 'asistentele', ['asistent']],
        ['russian', 'и медсестры', ['медсестр']],
        ['spanish', 'las enfermeras', ['enfermer']],
        ['swedish', 'och sjuksköterskorna', ['sjukskotersk']],
        ['turkish', 've hemşireler', ['hemsire']],
      ];
      for (const [name, text, terms] of cases) {
        expect({ name, terms: tokenize(text, languageOrThrow(name), insensitive) }).toEqual({ name, terms });
      }
    });

    it('when the stop word lists are read, then every language has its list but Romanian, as mongod ships them', () => {
      const languages = Object.keys(STOP_WORDS).sort();
      expect(languages).toEqual([
        'danish',
        'dutch',
        'english',
        'finnish',
        'french',
        'german',
        'hungarian',
        'italian',
        'norwegian',
        'portuguese',
        'russian',
        'spanish',
        'swedish',
        'turkish',
      ]);
      expect(STOP_WORDS.english.split(' ')).toHaveLength(174);
    });
  });

  describe('tokens', () => {
    it('when English text holds apostrophes, then they stay inside words (and "don\'t" is a stop word); elsewhere they split', () => {
      // The English stemmer takes the possessive off.
      expect(tokenize("don't stop the nurse's work", english, insensitive)).toEqual(['stop', 'nurs', 'work']);
      expect(tokenize("l'infirmière", languageOrThrow('french'), insensitive)).toEqual(['infirmi']);
    });

    it('when words are joined by hyphens, dashes or punctuation, then they are separate words; underscores join', () => {
      expect(tokenize('nurse-midwife—teacher; welder_fitter', english, insensitive)).toEqual([
        'nurs',
        'midwif',
        'teacher',
        'welder_fitt',
      ]);
    });

    it('when case and diacritics are folded, then Turkish folds I to dotless ı and others to i', () => {
      expect(tokenize('IŞIK', languageOrThrow('turkish'), insensitive)).toEqual(['ısık']);
      expect(tokenize('Éclair', languageOrThrow('none'), insensitive)).toEqual(['eclair']);
      expect(tokenize('Éclair', languageOrThrow('none'), { ...insensitive, caseSensitive: true })).toEqual(['Eclair']);
    });
  });

  describe('the $search syntax', () => {
    it('when words, phrases and negations are mixed, then each lands where mongod puts it', () => {
      const query = parsed('nurse "intensive care" -night -"night shift" the');
      expect(query).toMatchObject({
        boundsTerms: ['care', 'intens', 'nurs'],
        positiveTerms: ['care', 'intens', 'nurs'],
        negatedTerms: ['night'],
        phrases: ['intensive care'],
        negatedPhrases: ['night shift'],
      });
    });

    it('when a minus follows a space, is inside a word or inside a phrase, then only the first negates', () => {
      expect(parsed('- nurse').negatedTerms).toEqual([]);
      expect(parsed('-nurse-welder').negatedTerms).toEqual(['nurs', 'welder']);
      expect(parsed('nurse-welder')).toMatchObject({ positiveTerms: ['nurs', 'welder'], negatedTerms: [] });
      expect(parsed('"nurse -welder"')).toMatchObject({ phrases: ['nurse -welder'], negatedTerms: [] });
      expect(parsed('-"a b"-"c d"').negatedPhrases).toEqual(['a b', 'c d']);
    });

    it('when the search is case sensitive, then the index is still read with folded terms and documents checked as written', () => {
      const query = parsed('Nurse', { caseSensitive: true });
      expect(query.boundsTerms).toEqual(['nurs']);
      expect(query.positiveTerms).toEqual(['Nurs']);
    });
  });

  describe('scores', () => {
    const definition = (key: Record<string, unknown>, options: Record<string, unknown> = {}) =>
      fixTextSpec(key, options).definition;

    it('when terms are scored, then weight × (1 + ½ + … per repeat) × (½ + ½ × share of the field), 1.1× for the whole field, summed over fields', () => {
      const scores = scoreDocument(
        { title: 'Nurse', body: 'nurse and nurse, nurse aide', tags: ['nurse'] },
        definition({ title: 'text', body: 'text', tags: 'text' }, { weights: { title: 4 } }),
      );
      const body = 1.75 * (0.5 * (3 / 4) + 0.5);
      // "Nurse" is not its term "nurs": no whole-field bonus.
      expect(scores.get('nurs')).toBeCloseTo(4 + body + 1, 12);
      expect(scores.get('aid')).toBeCloseTo(0.5 * (1 / 4) + 0.5, 12);
    });

    it('when text sits in arrays and subdocuments, then strings at weighted paths count, arrays in arrays do not, and subdocuments may name their language', () => {
      const scores = scoreDocument(
        {
          quotes: [
            { text: 'nurses', language: 'spanish' },
            { text: 'enfermeras', language: 'spanish' },
            'welders',
            ['ignored'],
          ],
          note: { text: 'not weighted' },
        },
        definition({ quotes: 'text', 'quotes.text': 'text' }),
      );
      expect([...scores.keys()].sort()).toEqual(['enfermer', 'nurs', 'welder']);
    });

    it('when weights are given as decimals, then they count as integers, as mongod reads them', () => {
      const fixed = fixTextSpec({ a: 'text' }, { weights: { a: 2.9, b: 1 } });
      expect(fixed.options.weights).toEqual({ a: 2, b: 1 });
    });

    it('when a term is over 224 bytes, then its key is its first 224 bytes and an MD5 of it', () => {
      const long = 'é'.repeat(150);
      expect(termKey('nurse')).toBe('nurse');
      expect(Buffer.byteLength(termKey(long))).toBe(224 + 32);
      expect(termKey(long)).not.toBe(termKey(`${long}x`));
    });
  });
});
