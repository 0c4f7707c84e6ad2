import type { Filter, Sort } from 'mongodb';
import { EMPLOYER_YEAR_STEPS, MAX_YEARS_STEP, type StoredCandidateDoc } from 'candidate-documents';

/** One language requirement: an entry of this language whose levels are among these stored levels. */
export interface LanguageCondition {
  /** ISO 639-1, lower case */
  language: string;
  /** the stored spoken levels that meet the requirement; absent: any (or none) */
  spokenLevels?: readonly number[];
  /** the stored written levels that meet the requirement; absent: any (or none) */
  writtenLevels?: readonly number[];
}

/**
 * Filters of a candidate search, normalised by search-input.ts (codes in their stored case,
 * levels and ages resolved to stored values). Several values of one field are alternatives
 * (OR); several fields all apply (AND); so do several language or exam requirements. An absent
 * field does not restrict.
 */
export interface CandidateSearchFilter {
  /** ISO 3166-1 alpha-2 codes of the current location (`countryIsoCode`). */
  locations?: readonly string[];
  /** ISO 3166-1 alpha-2 codes of the nationality (`nationalityIsoCode`). */
  nationalities?: readonly string[];
  /** ISCO-08 codes: the candidate has at least one of these occupations. */
  occupations?: readonly string[];
  /** Every requirement is met by one entry of `candidateLanguages`. */
  languages?: readonly LanguageCondition[];
  /** One occupation entry has yearsExperience in the range (inclusive) and, with `occupations`, one of their codes. */
  yearsExperience?: { readonly min?: number; readonly max?: number };
  /** The stored `maxEducationLevel`s that match. */
  educationLevels?: readonly number[];
  /** yearOfBirth in the range (inclusive): the ages of the filter, resolved to the current year. */
  birthYears?: { readonly min?: number; readonly max?: number };
  /** Every requirement is met by one exam entry of that exam, with a numeric score of at least minScore when given. */
  exams?: readonly { readonly exam: string; readonly minScore?: number }[];
  /** MongoDB `$text` search over the professional text. */
  keyword?: string;
  /** Public ids of saved lists: the candidate is in at least one of them. */
  inSavedLists?: readonly string[];
  /** Public ids of saved lists: the candidate is in none of them. */
  notInSavedLists?: readonly string[];
  /** Candidates of status EMPLOYED are left out unless this is true (contract section 3). */
  includeEmployed: boolean;
}

/** The members of the filter's saved lists, read by the caller (resolveSavedLists) before the query is built. */
export interface SavedListMembers {
  /** the candidates of any `inSavedLists` list (none: no candidate matches) */
  members?: readonly string[];
  /** the candidates of every `notInSavedLists` list */
  excluded?: readonly string[];
}

/** A filter with its saved lists read: what searchQuery translates. */
export type ResolvedSearchFilter = CandidateSearchFilter & SavedListMembers;

/** The two orders of a search: the stable one, or keyword matches ranked by their text score. */
export type CandidateOrder = 'CREATED' | 'RELEVANCE';

/** The one order of every search but a ranked keyword search: total and stable, since publicId is unique. */
export const CANDIDATE_ORDER = { createdDate: 1, publicId: 1 } as const;

/** A keyword search ranked by MongoDB's text score, then in the stable order. */
export const RELEVANCE_ORDER: Sort = { score: { $meta: 'textScore' }, createdDate: 1, publicId: 1 };

/** Keys of one `$in` beyond which a range of years is not spelled out per occupation (see experienceClause). */
const MAX_EXPERIENCE_KEYS = 500;
/** Keys of one `$in` of the employer keys beyond which they are not used (see employerClause). */
const MAX_EMPLOYER_KEYS = 200;
/** Birth years a range may span and still be named one by one (points merge in search order; a range is sorted). */
const MAX_BIRTH_YEAR_POINTS = 60;

const OCCUPATION_PATH = 'candidateOccupations.occupation.isco08Code';

/**
 * The one translation of a search filter into a MongoDB query: searches, counts and statistics
 * (src/statistics) select candidates through it, so a filter means the same everywhere.
 *
 * "Not EMPLOYED" is `listed: true`. With includeEmployed, `listed` is still named, as both of
 * its values: every stored candidate has one (storedCandidate, backfillListed), so this
 * selects every candidate, and it gives each search index (candidate-indexes.ts) exact values on
 * every field before the search order. Each filter is stated as exact values of one indexed
 * field where it can be (the search fields of candidate-documents turn a condition on one entry
 * of a list into keys), so that a search is a few point ranges of one index, each in search
 * order and merged (MongoDB's SORT_MERGE), skipped on index keys and counted from them, on
 * MongoDB as on the embedded store. What no index holds exactly (an exam score, a list's
 * exclusion, a second language requirement, the keyword) is still in the query: the store
 * checks it on the candidates the index yields.
 */
export function searchQuery(filter: ResolvedSearchFilter): Filter<StoredCandidateDoc> {
  const query: Record<string, unknown> = {};
  const and: Record<string, unknown>[] = [];
  /** Adds `{path: condition}`, in `$and` when the path is taken already. */
  const add = (path: string, condition: unknown) => {
    if (Object.hasOwn(query, path)) and.push({ [path]: condition });
    else query[path] = condition;
  };

  if (filter.keyword !== undefined) query.$text = { $search: filter.keyword };
  if (filter.locations?.length) add('countryIsoCode', { $in: [...filter.locations] });
  if (filter.nationalities?.length) add('nationalityIsoCode', { $in: [...filter.nationalities] });

  const employer = employerClause(filter);
  const languages = [...(filter.languages ?? [])];
  if (employer) {
    add('searchEmployerKeys', { $in: employer.keys });
    languages.splice(employer.language, 1);
  } else if (filter.yearsExperience) {
    for (const [path, condition] of experienceClause(filter.occupations, filter.yearsExperience)) add(path, condition);
  } else if (filter.occupations?.length) {
    add(OCCUPATION_PATH, { $in: [...filter.occupations] });
  }
  for (const language of languages) add('searchLanguages', { $in: languageKeys(language) });

  if (filter.educationLevels) add('maxEducationLevel', { $in: [...filter.educationLevels] });
  if (filter.birthYears) add('yearOfBirth', birthYearCondition(filter.birthYears));
  for (const { exam, minScore } of filter.exams ?? []) {
    if (minScore === undefined) add('searchExams.exam', exam);
    else add('searchExams', { $elemMatch: { exam, score: { $gte: minScore } } });
  }

  if (filter.inSavedLists?.length) {
    if (filter.members === undefined) throw new Error('searchQuery: the saved lists of inSavedLists are not read');
    add('publicId', { $in: [...filter.members] });
  }
  if (filter.notInSavedLists?.length) {
    if (filter.excluded === undefined) throw new Error('searchQuery: the saved lists of notInSavedLists are not read');
    if (filter.excluded.length > 0) add('publicId', { $nin: [...filter.excluded] });
  }
  add('listed', filter.includeEmployed ? { $in: [false, true] } : true);
  if (and.length > 0) query.$and = and;
  return query;
}

/** The search keys of a language requirement (searchLanguages of candidate-documents). */
function languageKeys({ language, spokenLevels, writtenLevels }: LanguageCondition): string[] {
  if (spokenLevels && writtenLevels)
    return spokenLevels.flatMap((spoken) => writtenLevels.map((written) => `${language}|${spoken}|${written}`));
  if (spokenLevels) return spokenLevels.map((spoken) => `${language}|${spoken}|*`);
  if (writtenLevels) return writtenLevels.map((written) => `${language}|*|${written}`);
  return [`${language}|*|*`];
}

/**
 * A range of years as keys of searchExperience: per occupation code when codes are given (the
 * same entry holds both), else of any entry (`*`). A minimum alone (up to MAX_YEARS_STEP) is one
 * key per code; a range with a maximum, or a higher minimum, is one key per year in it. Too many
 * codes times years to spell out: the keys of the years of any entry, the codes, and the entry's
 * condition itself checked by the store.
 */
function experienceClause(
  occupations: readonly string[] | undefined,
  years: { readonly min?: number; readonly max?: number },
): [string, unknown][] {
  const { min = 0, max } = years;
  const keysOf = (of: string): string[] =>
    max === undefined && min <= MAX_YEARS_STEP
      ? [`${of}|>=${min}`]
      : Array.from({ length: Math.max(0, (max ?? MAX_STORED_YEARS) - min + 1) }, (_, i) => `${of}|=${min + i}`);
  if (!occupations?.length) return [['searchExperience', { $in: keysOf('*') }]];
  const keys = occupations.flatMap(keysOf);
  if (keys.length <= MAX_EXPERIENCE_KEYS) return [['searchExperience', { $in: keys }]];
  return [
    ['searchExperience', { $in: keysOf('*') }],
    [
      'candidateOccupations',
      {
        $elemMatch: {
          'occupation.isco08Code': { $in: [...occupations] },
          yearsExperience: { $gte: min, $lte: max ?? MAX_STORED_YEARS },
        },
      },
    ],
  ];
}

/** Years of experience as stored: registration and import accept 0 to 80. */
const MAX_STORED_YEARS = 80;

/**
 * The employer's question as keys of one index (searchEmployerKeys, with the location before
 * them): occupations, a language spoken at a level or better, and at least some years in the
 * occupation (one of EMPLOYER_YEAR_STEPS, or none). Returns the keys and which language
 * requirement they hold; undefined when the filter is not of that shape (no location, no
 * occupation, no spoken level alone, another number of years, a maximum), or when its spoken
 * levels are not every level from some level up (the keys hold a language's highest level).
 */
function employerClause(filter: CandidateSearchFilter): { keys: string[]; language: number } | undefined {
  const { locations, occupations, languages, yearsExperience } = filter;
  if (!locations?.length || !occupations?.length || !languages?.length) return undefined;
  let step = 0;
  if (yearsExperience) {
    if (yearsExperience.max !== undefined || yearsExperience.min === undefined) return undefined;
    if (yearsExperience.min !== 0 && !EMPLOYER_YEAR_STEPS.includes(yearsExperience.min)) return undefined;
    step = yearsExperience.min;
  }
  const language = languages.findIndex(
    ({ spokenLevels, writtenLevels }) =>
      writtenLevels === undefined &&
      spokenLevels !== undefined &&
      spokenLevels.length > 0 &&
      spokenLevels.length === Math.max(...spokenLevels) - Math.min(...spokenLevels) + 1,
  );
  if (language < 0) return undefined;
  const { language: code, spokenLevels } = languages[language];
  const keys = occupations.flatMap((occupation) =>
    spokenLevels!.map((spoken) => `${occupation}|${code}|${spoken}|${step}`),
  );
  return keys.length <= MAX_EMPLOYER_KEYS ? { keys, language } : undefined;
}

function birthYearCondition({ min, max }: { readonly min?: number; readonly max?: number }): unknown {
  if (min !== undefined && max !== undefined && max - min + 1 <= MAX_BIRTH_YEAR_POINTS)
    return { $in: Array.from({ length: Math.max(0, max - min + 1) }, (_, i) => min + i) };
  return { ...(min !== undefined ? { $gte: min } : {}), ...(max !== undefined ? { $lte: max } : {}) };
}

/**
 * The filter without its exclusion by saved lists, and that exclusion as a selection of its
 * own: a count of the filter is the count without the exclusion less the excluded candidates
 * it selects, both counts that an index answers (the exclusion alone is checked candidate by
 * candidate).
 */
export function exclusionSplit(
  filter: ResolvedSearchFilter,
): { without: ResolvedSearchFilter; excludedAmongThem: Filter<StoredCandidateDoc> } | undefined {
  if (!filter.excluded?.length) return undefined;
  const without: ResolvedSearchFilter = { ...filter, notInSavedLists: undefined, excluded: undefined };
  return { without, excludedAmongThem: andAlso(searchQuery(without), { publicId: { $in: [...filter.excluded] } }) };
}

/** A query and one more condition, the query's own `$text` kept at the top level (where MongoDB wants it). */
export function andAlso(
  query: Filter<StoredCandidateDoc>,
  condition: Filter<StoredCandidateDoc>,
): Filter<StoredCandidateDoc> {
  const and = (query as { $and?: unknown[] }).$and ?? [];
  return { ...query, $and: [...and, condition] } as Filter<StoredCandidateDoc>;
}
