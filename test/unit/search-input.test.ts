import { searchFieldsOf } from 'candidate-documents';
import { BadUserInputError } from '../../src/errors';
import { searchQuery } from '../../src/candidates/search-query';
import {
  MAX_EXAM_REQUIREMENTS,
  MAX_KEYWORD_LENGTH,
  MAX_LANGUAGE_REQUIREMENTS,
  MAX_SAVED_LISTS,
  toOrder,
  toSearchFilter,
  type FilterInput,
  type SearchVocabulary,
} from '../../src/candidates/search-input';
import { educationLevels, languageLevels } from '../../src/reference/reference-data';

/**
 * The one normaliser of a search filter (both transports and statistics) and the search fields
 * stored with a candidate: what each field is resolved to, which input is refused naming which
 * field, and that a candidate's keys hold exactly the conditions that the query's keys ask for.
 */

const VOCABULARY: SearchVocabulary = {
  languageLevels: languageLevels(),
  educationLevels: educationLevels().map((level) => level.level),
  currentYear: 2026,
};
const LIST = 'k1-qF3LpTNWM8bgDrn_j9A';

function refusal(filter: FilterInput): { parameter: string; rule: string }[] {
  try {
    toSearchFilter(filter, false, VOCABULARY);
  } catch (error) {
    if (error instanceof BadUserInputError) return [...(error.details ?? [])];
    throw error;
  }
  throw new Error('the filter was accepted');
}

describe('search filter normalisation', () => {
  test('when no field is given, then only includeEmployed remains, as before the new fields existed', () => {
    expect(toSearchFilter({}, undefined, VOCABULARY)).toEqual({
      locations: undefined,
      nationalities: undefined,
      occupations: undefined,
      includeEmployed: false,
    });
  });

  test('when language requirements are given in any case and order, then each is the stored levels of at least its CEFR levels, in one order', () => {
    const filter = toSearchFilter(
      {
        languages: [
          { language: ' FR ', minWrittenLevel: 'A2' },
          { language: 'En', minSpokenLevel: 'B2', minWrittenLevel: 'C2' },
          { language: 'ar' },
        ],
      },
      false,
      VOCABULARY,
    );

    expect(filter.languages).toEqual([
      { language: 'ar' },
      { language: 'en', spokenLevels: [4, 5, 6], writtenLevels: [6] },
      { language: 'fr', writtenLevels: [2, 3, 4, 5, 6] },
    ]);
  });

  test('when ages are given, then they are years of birth of the current year (age = year - yearOfBirth)', () => {
    expect(toSearchFilter({ minAge: 18, maxAge: 45 }, false, VOCABULARY).birthYears).toEqual({ min: 1981, max: 2008 });
    expect(toSearchFilter({ maxAge: 45 }, false, VOCABULARY).birthYears).toEqual({ min: 1981 });
    expect(toSearchFilter({ minAge: 30 }, false, { ...VOCABULARY, currentYear: 2027 }).birthYears).toEqual({
      max: 1997,
    });
  });

  test('when education levels are given, then they are the reference levels in the range', () => {
    expect(toSearchFilter({ minEducationLevel: 6 }, false, VOCABULARY).educationLevels).toEqual([6, 7, 8]);
    expect(toSearchFilter({ minEducationLevel: 3, maxEducationLevel: 4 }, false, VOCABULARY).educationLevels).toEqual([
      3, 4,
    ]);
  });

  test('when a keyword has spaces around it, then it is trimmed, and a blank one is none', () => {
    expect(toSearchFilter({ keyword: '  registered nurse ' }, false).keyword).toBe('registered nurse');
    expect(toSearchFilter({ keyword: '   ' }, false).keyword).toBeUndefined();
  });

  test.each<[string, string, FilterInput]>([
    ['a language code of three letters', 'languages', { languages: [{ language: 'eng' }] }],
    [
      'too many language requirements',
      'languages',
      { languages: Array.from({ length: MAX_LANGUAGE_REQUIREMENTS + 1 }, () => ({ language: 'en' })) },
    ],
    ['a CEFR level that is none', 'languages', { languages: [{ language: 'en', minSpokenLevel: 'B3' as never }] }],
    ['negative years', 'minYearsExperience', { minYearsExperience: -1 }],
    ['years beyond 80', 'maxYearsExperience', { maxYearsExperience: 81 }],
    ['a minimum above the maximum', 'minYearsExperience', { minYearsExperience: 5, maxYearsExperience: 3 }],
    ['a fraction of a year', 'minYearsExperience', { minYearsExperience: 2.5 }],
    ['an education level above the highest', 'maxEducationLevel', { maxEducationLevel: 9 }],
    ['an age above 130', 'maxAge', { maxAge: 131 }],
    ['a minimum age above the maximum', 'minAge', { minAge: 50, maxAge: 40 }],
    ['an unknown exam', 'exams', { exams: [{ exam: 'TOEIC' }] }],
    ['a negative score', 'exams', { exams: [{ exam: 'TOEFL', minScore: -1 }] }],
    ['a score that is not finite', 'exams', { exams: [{ exam: 'TOEFL', minScore: Number.POSITIVE_INFINITY }] }],
    [
      'too many exam requirements',
      'exams',
      { exams: Array.from({ length: MAX_EXAM_REQUIREMENTS + 1 }, () => ({ exam: 'OET' })) },
    ],
    ['a keyword too long', 'keyword', { keyword: 'a'.repeat(MAX_KEYWORD_LENGTH + 1) }],
    ['a keyword with a line break', 'keyword', { keyword: 'nurse\nmidwife' }],
    ['a keyword with a zero-width space', 'keyword', { keyword: 'nur\u200bse' }],
    ['a saved list id that is not a public id', 'inSavedLists', { inSavedLists: ['list-1'] }],
    [
      'too many saved lists',
      'notInSavedLists',
      {
        notInSavedLists: Array.from(
          { length: MAX_SAVED_LISTS + 1 },
          (_, i) => `${'A'.repeat(20)}${String(i).padStart(2, '0')}`,
        ),
      },
    ],
  ])('when the filter has %s, then it is refused naming %s', (_what, parameter, filter) => {
    expect(refusal(filter).map((issue) => issue.parameter)).toEqual([parameter]);
  });

  test('when RELEVANCE is asked for without a keyword, then it is refused naming sort; with one, it is the order', () => {
    expect(() => toOrder('RELEVANCE', toSearchFilter({}, false))).toThrow(BadUserInputError);
    expect(toOrder('RELEVANCE', toSearchFilter({ keyword: 'nurse' }, false))).toBe('RELEVANCE');
    expect(toOrder(undefined, toSearchFilter({ keyword: 'nurse' }, false))).toBe('CREATED');
  });

  test('when saved list ids repeat or come in another order, then the filter is the same', () => {
    expect(toSearchFilter({ inSavedLists: [LIST, 'AAAAAAAAAAAAAAAAAAAAAA', LIST] }, false).inSavedLists).toEqual([
      'AAAAAAAAAAAAAAAAAAAAAA',
      LIST,
    ]);
  });
});

describe('search fields and the keys a query asks for', () => {
  const candidate = {
    candidateLanguages: [
      { languageIsoCode: 'en', spokenLevel: 4, writtenLevel: 2 },
      { languageIsoCode: 'en', spokenLevel: 2, writtenLevel: 5 },
      { languageIsoCode: 'ar' },
    ],
    candidateOccupations: [
      { occupation: { isco08Code: '2221' }, yearsExperience: 4 },
      { occupation: { isco08Code: '5120' } },
    ],
    candidateExams: [
      { exam: 'IELTS_GEN', score: ' 6.5 ' },
      { exam: 'OET', score: 'B' },
    ],
  };
  const fields = searchFieldsOf(candidate, (code) => (code === '2221' ? 'Nursing professionals' : undefined));
  /** The keys of one field that the query of `filter` asks for. */
  const asked = (filter: FilterInput, field: string): string[] => {
    const query = searchQuery(toSearchFilter(filter, false, VOCABULARY)) as Record<string, { $in?: string[] }>;
    return query[field]?.$in ?? [];
  };
  const meets = (filter: FilterInput, field: keyof typeof fields): boolean =>
    asked(filter, field).some((key) => (fields[field] as string[]).includes(key));

  test('when a language requirement needs both levels from one entry, then two entries each reaching one level do not meet it', () => {
    expect(meets({ languages: [{ language: 'en', minSpokenLevel: 'B2' }] }, 'searchLanguages')).toBe(true);
    expect(meets({ languages: [{ language: 'en', minWrittenLevel: 'C1' }] }, 'searchLanguages')).toBe(true);
    expect(
      meets({ languages: [{ language: 'en', minSpokenLevel: 'B2', minWrittenLevel: 'A2' }] }, 'searchLanguages'),
    ).toBe(true);
    expect(
      meets({ languages: [{ language: 'en', minSpokenLevel: 'B2', minWrittenLevel: 'B1' }] }, 'searchLanguages'),
    ).toBe(false);
    expect(meets({ languages: [{ language: 'ar' }] }, 'searchLanguages')).toBe(true);
    expect(meets({ languages: [{ language: 'ar', minSpokenLevel: 'A1' }] }, 'searchLanguages')).toBe(false);
  });

  test('when years are asked for with an occupation, then the same entry must hold both; an entry without years never matches', () => {
    expect(meets({ occupation: ['2221'], minYearsExperience: 4 }, 'searchExperience')).toBe(true);
    expect(meets({ occupation: ['2221'], minYearsExperience: 5 }, 'searchExperience')).toBe(false);
    expect(meets({ occupation: ['5120'], minYearsExperience: 0 }, 'searchExperience')).toBe(false);
    expect(meets({ minYearsExperience: 2, maxYearsExperience: 4 }, 'searchExperience')).toBe(true);
    expect(meets({ maxYearsExperience: 3 }, 'searchExperience')).toBe(false);
  });

  test('when the employer question is asked, then one key per spoken level holds occupation, language level and years', () => {
    const question = (languages: FilterInput['languages'], minYearsExperience?: number): FilterInput => ({
      location: ['JO'],
      occupation: ['2221'],
      languages,
      minYearsExperience,
    });

    expect(asked(question([{ language: 'en', minSpokenLevel: 'B2' }], 3), 'searchEmployerKeys')).toEqual([
      '2221|en|4|3',
      '2221|en|5|3',
      '2221|en|6|3',
    ]);
    expect(meets(question([{ language: 'en', minSpokenLevel: 'B2' }], 3), 'searchEmployerKeys')).toBe(true);
    expect(meets(question([{ language: 'en', minSpokenLevel: 'B2' }], 5), 'searchEmployerKeys')).toBe(false);
    expect(meets(question([{ language: 'en', minSpokenLevel: 'C1' }]), 'searchEmployerKeys')).toBe(false);
    // Not the employer's shape: a written level, or years no step holds, go to the other keys.
    expect(asked(question([{ language: 'en', minWrittenLevel: 'B2' }], 3), 'searchEmployerKeys')).toEqual([]);
    expect(asked(question([{ language: 'en', minSpokenLevel: 'B2' }], 4), 'searchEmployerKeys')).toEqual([]);
  });

  test('when exam scores are stored, then only a decimal number is a score', () => {
    expect(fields.searchExams).toEqual([{ exam: 'IELTS_GEN', score: 6.5 }, { exam: 'OET' }]);
  });

  test('when occupation names are given, then the keyword search holds them', () => {
    expect(fields.searchOccupationNames).toEqual(['Nursing professionals']);
  });
});
