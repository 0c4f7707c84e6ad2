import type { CandidateDoc, SavedListDoc } from 'candidate-documents';
import type { CefrLevel } from '../../src/candidates/search-input';
import { languageLevels } from '../../src/reference/reference-data';

/**
 * The rules of a candidate search written out plainly, to compare the service's answers with:
 * every stored candidate tested against the filter one by one, as schema/search.graphql
 * describes each field, with none of the service's keys or indexes. Only for tests.
 */

/** A search filter as a client sends it (GraphQL `CandidateFilter`, REST builds the same), keyword aside. */
export interface ModelFilter {
  location?: string[];
  nationality?: string[];
  occupation?: string[];
  languages?: { language: string; minSpokenLevel?: CefrLevel; minWrittenLevel?: CefrLevel }[];
  minYearsExperience?: number;
  maxYearsExperience?: number;
  minEducationLevel?: number;
  maxEducationLevel?: number;
  minAge?: number;
  maxAge?: number;
  exams?: { exam: string; minScore?: number }[];
  inSavedLists?: string[];
  notInSavedLists?: string[];
}

const CEFR: readonly string[] = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'];
/** A stored language level's place in CEFR order, -1 for none (no level, or one without a CEFR level). */
const CEFR_RANK = new Map(languageLevels().map((level) => [level.level, CEFR.indexOf(level.cefrLevel ?? '')]));

function rankOf(level: number | undefined): number {
  return level === undefined ? -1 : (CEFR_RANK.get(level) ?? -1);
}

/** A score read as a number: a decimal number, spaces around it aside. */
function scoreOf(score: string | undefined): number | undefined {
  const text = score?.trim() ?? '';
  return /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : undefined;
}

const within = (value: number | undefined, min: number | undefined, max: number | undefined): boolean =>
  value !== undefined && (min === undefined || value >= min) && (max === undefined || value <= max);

const codesOf = (codes: string[] | undefined): string[] =>
  [...new Set((codes ?? []).map((code) => code.trim().toUpperCase()))].filter((code) => code !== '');

/** Whether a candidate meets the filter (includeEmployed aside). */
export function meets(
  candidate: CandidateDoc,
  filter: ModelFilter,
  context: { currentYear: number; lists: readonly SavedListDoc[] },
): boolean {
  const locations = codesOf(filter.location);
  const nationalities = codesOf(filter.nationality);
  const occupations = codesOf(filter.occupation);
  if (locations.length > 0 && !locations.includes(candidate.countryIsoCode ?? '')) return false;
  if (nationalities.length > 0 && !nationalities.includes(candidate.nationalityIsoCode ?? '')) return false;
  const entries = candidate.candidateOccupations ?? [];
  const hasCode = (entry: (typeof entries)[number]) =>
    occupations.length === 0 || occupations.includes(entry.occupation?.isco08Code ?? '');
  if (occupations.length > 0 && !entries.some(hasCode)) return false;
  if (filter.minYearsExperience !== undefined || filter.maxYearsExperience !== undefined) {
    const inRange = (entry: (typeof entries)[number]) =>
      within(entry.yearsExperience, filter.minYearsExperience, filter.maxYearsExperience);
    if (!entries.some((entry) => hasCode(entry) && inRange(entry))) return false;
  }
  for (const requirement of filter.languages ?? []) {
    const language = requirement.language.trim().toLowerCase();
    const spoken = requirement.minSpokenLevel === undefined ? -1 : CEFR.indexOf(requirement.minSpokenLevel);
    const written = requirement.minWrittenLevel === undefined ? -1 : CEFR.indexOf(requirement.minWrittenLevel);
    const met = (candidate.candidateLanguages ?? []).some(
      (entry) =>
        entry.languageIsoCode === language &&
        (requirement.minSpokenLevel === undefined || rankOf(entry.spokenLevel) >= spoken) &&
        (requirement.minWrittenLevel === undefined || rankOf(entry.writtenLevel) >= written),
    );
    if (!met) return false;
  }
  if (filter.minEducationLevel !== undefined || filter.maxEducationLevel !== undefined) {
    if (!within(candidate.maxEducationLevel, filter.minEducationLevel, filter.maxEducationLevel)) return false;
  }
  if (filter.minAge !== undefined || filter.maxAge !== undefined) {
    const age = candidate.yearOfBirth === undefined ? undefined : context.currentYear - candidate.yearOfBirth;
    if (!within(age, filter.minAge, filter.maxAge)) return false;
  }
  for (const requirement of filter.exams ?? []) {
    const met = (candidate.candidateExams ?? []).some(
      (entry) =>
        entry.exam === requirement.exam &&
        (requirement.minScore === undefined || (scoreOf(entry.score) ?? -Infinity) >= requirement.minScore),
    );
    if (!met) return false;
  }
  const inAnyOf = (ids: string[]) =>
    context.lists.some((list) => ids.includes(list.publicId) && list.candidatePublicIds.includes(candidate.publicId));
  if (filter.inSavedLists?.length && !inAnyOf(filter.inSavedLists)) return false;
  if (filter.notInSavedLists?.length && inAnyOf(filter.notInSavedLists)) return false;
  return true;
}

/** The candidates a search returns over all its pages, in search order (creation date, then publicId). */
export function modelSearch(
  candidates: readonly CandidateDoc[],
  filter: ModelFilter,
  includeEmployed: boolean,
  context: { currentYear: number; lists: readonly SavedListDoc[] },
): CandidateDoc[] {
  return candidates
    .filter((candidate) => (includeEmployed || candidate.status !== 'EMPLOYED') && meets(candidate, filter, context))
    .sort(
      (a, b) =>
        a.createdDate.getTime() - b.createdDate.getTime() ||
        (a.publicId < b.publicId ? -1 : a.publicId > b.publicId ? 1 : 0),
    );
}
