import { EXAMS, isPublicId, PUBLIC_ID_RULE } from 'candidate-documents';
import { throwIfAny, type InputIssue } from '../errors';
import type { CandidateOrder, CandidateSearchFilter, LanguageCondition } from './search-query';
import { hasRefusedCharacter } from './text-input';

/** Bounds of the contract (section 8). */
export const MIN_PAGE = 0;
export const MIN_LIMIT = 1;
export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 10;
/** More codes than this in one filter field is not a search a partner makes; it bounds the work. */
export const MAX_CODES_PER_FILTER = 50;
/** Language requirements, exam requirements and saved lists per filter field: each is a condition of its own. */
export const MAX_LANGUAGE_REQUIREMENTS = 10;
export const MAX_EXAM_REQUIREMENTS = 10;
export const MAX_SAVED_LISTS = 10;
/** Characters of a keyword search: a question, not a document. */
export const MAX_KEYWORD_LENGTH = 200;
/** Years of experience as registration and import accept them. */
export const MAX_YEARS_EXPERIENCE = 80;
/** Ages a filter may name. */
export const MAX_AGE = 130;
/** Exam scores a requirement may name (every exam's scale fits). */
export const MAX_EXAM_SCORE = 10_000;

/** The CEFR levels, in order: a minimum level is met by it and every level after it. */
export const CEFR_ORDER = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'] as const;
export type CefrLevel = (typeof CEFR_ORDER)[number];

export interface LanguageRequirementInput {
  language: string;
  minSpokenLevel?: CefrLevel | null;
  minWrittenLevel?: CefrLevel | null;
}

export interface ExamRequirementInput {
  exam: string;
  minScore?: number | null;
}

/** The filter of a search as both transports take it (GraphQL `CandidateFilter`; REST builds the same). */
export interface FilterInput {
  location?: readonly string[] | null;
  nationality?: readonly string[] | null;
  occupation?: readonly string[] | null;
  languages?: readonly LanguageRequirementInput[] | null;
  minYearsExperience?: number | null;
  maxYearsExperience?: number | null;
  minEducationLevel?: number | null;
  maxEducationLevel?: number | null;
  minAge?: number | null;
  maxAge?: number | null;
  exams?: readonly ExamRequirementInput[] | null;
  keyword?: string | null;
  inSavedLists?: readonly string[] | null;
  notInSavedLists?: readonly string[] | null;
}

/**
 * What the meaning of some filter fields depends on: the language levels' CEFR levels and the
 * education levels (reference data), and the current UTC year (ages).
 */
export interface SearchVocabulary {
  languageLevels: readonly { level: number; cefrLevel: string | null }[];
  educationLevels: readonly number[];
  currentYear: number;
}

/** What a vocabulary is read from: the reference data (ReferenceCache, after its load). */
export interface VocabularySource {
  keys(collection: 'languageLevels' | 'educationLevels'): number[];
  find(collection: 'languageLevels', level: number): { cefrLevel: string | null } | null;
}

/** The vocabulary of the reference data at `now`. */
export function searchVocabulary(reference: VocabularySource, now: Date): SearchVocabulary {
  return {
    languageLevels: reference
      .keys('languageLevels')
      .map((level) => ({ level, cefrLevel: reference.find('languageLevels', level)?.cefrLevel ?? null })),
    educationLevels: reference.keys('educationLevels'),
    currentYear: now.getUTCFullYear(),
  };
}

const CODE_RULES = {
  location: { pattern: /^[A-Z]{2}$/, rule: 'ISO 3166-1 alpha-2 country codes' },
  nationality: { pattern: /^[A-Z]{2}$/, rule: 'ISO 3166-1 alpha-2 country codes' },
  occupation: { pattern: /^\d{4}$/, rule: 'ISCO-08 unit group codes (4 digits)' },
} as const;

const LANGUAGE_CODE = /^[a-z]{2}$/;

/**
 * Turns the filter of either transport (and statistics) into the repository's filter: codes
 * trimmed and in the case they are stored in (matching is case-insensitive), empty entries
 * dropped, duplicates removed, levels and ranges resolved to the stored values they accept, and
 * the form and bounds of each field checked, so that a mistyped parameter is a clear 400, not an
 * empty page. `vocabulary` is needed only by languages with levels, education levels and ages.
 */
export function toSearchFilter(
  filter: FilterInput | null | undefined,
  includeEmployed: boolean | null | undefined,
  vocabulary?: SearchVocabulary,
): CandidateSearchFilter {
  const issues: InputIssue[] = [];
  const codes = (field: keyof typeof CODE_RULES): string[] | undefined => {
    const raw = filter?.[field];
    if (raw == null) return undefined;
    const normalised = [...new Set(raw.map((code) => code.trim().toUpperCase()).filter((code) => code !== ''))];
    if (normalised.length > MAX_CODES_PER_FILTER)
      issues.push({ parameter: field, rule: `at most ${MAX_CODES_PER_FILTER} codes` });
    else if (normalised.some((code) => !CODE_RULES[field].pattern.test(code)))
      issues.push({ parameter: field, rule: CODE_RULES[field].rule });
    return normalised.length > 0 ? normalised : undefined;
  };
  const needed = (): SearchVocabulary => {
    if (vocabulary === undefined) throw new Error('toSearchFilter: this filter needs the search vocabulary');
    return vocabulary;
  };
  const result: CandidateSearchFilter = {
    locations: codes('location'),
    nationalities: codes('nationality'),
    occupations: codes('occupation'),
    includeEmployed: includeEmployed ?? false,
  };

  const languages = languageConditions(filter?.languages, issues, needed);
  if (languages) result.languages = languages;

  const years = range(filter, 'minYearsExperience', 'maxYearsExperience', 0, MAX_YEARS_EXPERIENCE, issues);
  if (years) result.yearsExperience = years;

  if (filter?.minEducationLevel != null || filter?.maxEducationLevel != null) {
    const known = [...needed().educationLevels].sort((a, b) => a - b);
    const levels = range(filter, 'minEducationLevel', 'maxEducationLevel', known[0] ?? 0, known.at(-1) ?? 0, issues);
    if (levels)
      result.educationLevels = known.filter(
        (level) => level >= (levels.min ?? -Infinity) && level <= (levels.max ?? Infinity),
      );
  }

  const ages = range(filter, 'minAge', 'maxAge', 0, MAX_AGE, issues);
  if (ages) {
    // The age reached by the end of the year is currentYear - yearOfBirth (as AGE_BAND counts it).
    const year = needed().currentYear;
    result.birthYears = {
      ...(ages.max !== undefined ? { min: year - ages.max } : {}),
      ...(ages.min !== undefined ? { max: year - ages.min } : {}),
    };
  }

  const exams = examConditions(filter?.exams, issues);
  if (exams) result.exams = exams;

  const keyword = keywordOf(filter?.keyword, issues);
  if (keyword !== undefined) result.keyword = keyword;

  const inLists = listIds(filter?.inSavedLists, 'inSavedLists', issues);
  if (inLists) result.inSavedLists = inLists;
  const notInLists = listIds(filter?.notInSavedLists, 'notInSavedLists', issues);
  if (notInLists) result.notInSavedLists = notInLists;

  throwIfAny(issues);
  return result;
}

/** The order of a search: CREATED unless RELEVANCE is asked for, which ranks keyword matches. */
export function toOrder(sort: CandidateOrder | null | undefined, filter: CandidateSearchFilter): CandidateOrder {
  if (sort === 'RELEVANCE' && filter.keyword === undefined)
    throwIfAny([{ parameter: 'sort', rule: 'RELEVANCE only together with a keyword' }]);
  return sort ?? 'CREATED';
}

function languageConditions(
  raw: readonly LanguageRequirementInput[] | null | undefined,
  issues: InputIssue[],
  vocabulary: () => SearchVocabulary,
): LanguageCondition[] | undefined {
  if (raw == null || raw.length === 0) return undefined;
  if (raw.length > MAX_LANGUAGE_REQUIREMENTS) {
    issues.push({ parameter: 'languages', rule: `at most ${MAX_LANGUAGE_REQUIREMENTS} requirements` });
    return undefined;
  }
  const atLeast = (minimum: CefrLevel | null | undefined): number[] | undefined => {
    if (minimum == null) return undefined;
    const rank = CEFR_ORDER.indexOf(minimum);
    if (rank < 0) {
      issues.push({ parameter: 'languages', rule: `levels of ${CEFR_ORDER.join(', ')}` });
      return [];
    }
    return vocabulary()
      .languageLevels.filter(
        ({ cefrLevel }) => cefrLevel !== null && CEFR_ORDER.indexOf(cefrLevel as CefrLevel) >= rank,
      )
      .map(({ level }) => level)
      .sort((a, b) => a - b);
  };
  const conditions = new Map<string, LanguageCondition>();
  for (const requirement of raw) {
    const language = requirement.language.trim().toLowerCase();
    if (!LANGUAGE_CODE.test(language)) {
      issues.push({ parameter: 'languages', rule: 'ISO 639-1 language codes (2 letters)' });
      continue;
    }
    const condition: LanguageCondition = { language };
    const spoken = atLeast(requirement.minSpokenLevel);
    const written = atLeast(requirement.minWrittenLevel);
    if (spoken) condition.spokenLevels = spoken;
    if (written) condition.writtenLevels = written;
    conditions.set(JSON.stringify(condition), condition);
  }
  // In one order whatever the order given: the same requirements are the same filter (cursors, caches).
  return [...conditions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, condition]) => condition);
}

type RangeField =
  'minYearsExperience' | 'maxYearsExperience' | 'minEducationLevel' | 'maxEducationLevel' | 'minAge' | 'maxAge';

/** A range of integers from two fields, each within [lowest, highest], the minimum at most the maximum. */
function range(
  filter: FilterInput | null | undefined,
  minField: RangeField,
  maxField: RangeField,
  lowest: number,
  highest: number,
  issues: InputIssue[],
): { min?: number; max?: number } | undefined {
  const min = filter?.[minField];
  const max = filter?.[maxField];
  if (min == null && max == null) return undefined;
  let valid = true;
  for (const [field, value] of [
    [minField, min],
    [maxField, max],
  ] as const) {
    if (value == null) continue;
    if (!Number.isSafeInteger(value) || value < lowest || value > highest) {
      issues.push({ parameter: field, rule: `an integer from ${lowest} to ${highest}` });
      valid = false;
    }
  }
  if (valid && min != null && max != null && min > max) {
    issues.push({ parameter: minField, rule: `at most ${maxField}` });
    valid = false;
  }
  if (!valid) return undefined;
  return { ...(min != null ? { min } : {}), ...(max != null ? { max } : {}) };
}

function examConditions(
  raw: readonly ExamRequirementInput[] | null | undefined,
  issues: InputIssue[],
): { exam: string; minScore?: number }[] | undefined {
  if (raw == null || raw.length === 0) return undefined;
  if (raw.length > MAX_EXAM_REQUIREMENTS) {
    issues.push({ parameter: 'exams', rule: `at most ${MAX_EXAM_REQUIREMENTS} requirements` });
    return undefined;
  }
  const conditions = new Map<string, { exam: string; minScore?: number }>();
  for (const { exam, minScore } of raw) {
    if (!(EXAMS as readonly string[]).includes(exam)) {
      issues.push({ parameter: 'exams', rule: `exams of ${EXAMS.join(', ')}` });
      continue;
    }
    if (minScore != null && !(Number.isFinite(minScore) && minScore >= 0 && minScore <= MAX_EXAM_SCORE)) {
      issues.push({ parameter: 'exams', rule: `minimum scores from 0 to ${MAX_EXAM_SCORE}` });
      continue;
    }
    const condition = minScore == null ? { exam } : { exam, minScore };
    conditions.set(JSON.stringify(condition), condition);
  }
  return [...conditions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, condition]) => condition);
}

/** A keyword search, trimmed; blank: none. Free of invisible characters, as any text field of the service. */
function keywordOf(raw: string | null | undefined, issues: InputIssue[]): string | undefined {
  if (raw == null) return undefined;
  const keyword = raw.trim();
  if (keyword === '') return undefined;
  if ([...keyword].length > MAX_KEYWORD_LENGTH) {
    issues.push({ parameter: 'keyword', rule: `at most ${MAX_KEYWORD_LENGTH} characters` });
    return undefined;
  }
  if (hasRefusedCharacter(keyword, 'line')) {
    issues.push({ parameter: 'keyword', rule: 'one line of visible text' });
    return undefined;
  }
  return keyword;
}

function listIds(
  raw: readonly string[] | null | undefined,
  parameter: 'inSavedLists' | 'notInSavedLists',
  issues: InputIssue[],
): string[] | undefined {
  if (raw == null) return undefined;
  const ids = [...new Set(raw.map((id) => id.trim()).filter((id) => id !== ''))].sort();
  if (ids.length > MAX_SAVED_LISTS) {
    issues.push({ parameter, rule: `at most ${MAX_SAVED_LISTS} saved list ids` });
    return undefined;
  }
  if (ids.some((id) => !isPublicId(id))) {
    issues.push({ parameter, rule: `saved list public ids (${PUBLIC_ID_RULE})` });
    return undefined;
  }
  return ids.length > 0 ? ids : undefined;
}

/** Page and limit of the contract: page >= 0, limit 1..100; null means the default. */
export function toPage(
  page: number | null | undefined,
  limit: number | null | undefined,
): { page: number; limit: number } {
  const issues: InputIssue[] = [];
  const p = page ?? 0;
  const l = limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(p) || p < MIN_PAGE) issues.push({ parameter: 'page', rule: `an integer >= ${MIN_PAGE}` });
  if (!Number.isSafeInteger(l) || l < MIN_LIMIT || l > MAX_LIMIT) {
    issues.push({ parameter: 'limit', rule: `an integer from ${MIN_LIMIT} to ${MAX_LIMIT}` });
  }
  throwIfAny(issues);
  return { page: p, limit: l };
}

export { throwIfAny, type CandidateOrder };
