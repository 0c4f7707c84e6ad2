/**
 * The search fields of a candidate: stored with it, derived from it, never read back. Each turns
 * a condition on one entry of a list (a language at some levels, years in an occupation) into
 * exact values of one indexed array, so that a search names points of an index and reads no
 * document to decide (the service's candidate-repository builds the queries, candidate-indexes
 * declares the indexes). Keys are short strings of `|`-separated parts; a level or a number of
 * years that the entry does not have is `-`, and `*` stands for "any".
 */
export interface SearchFields {
  /**
   * Per language entry: `code|spoken|written`, `code|spoken|*`, `code|*|written` and `code|*|*`,
   * the levels being the stored `level`s of the language levels. A requirement of minimum levels
   * is the keys of every level (pair) at or above them.
   */
  searchLanguages: string[];
  /**
   * Per occupation entry with `yearsExperience`: its years exactly, `code|=years` and
   * `*|=years`, and every minimum it reaches up to MAX_YEARS_STEP, `code|>=minimum` and
   * `*|>=minimum`. "At least 3 years" is one key (`*|>=3`, or per occupation code); a range
   * with a maximum is the keys of every year in it.
   */
  searchExperience: string[];
  /**
   * The employer's question in one key: per occupation (code) and per language of the candidate,
   * `code|language|spoken|years` with `spoken` the highest spoken level of that language's
   * entries and `years` each of EMPLOYER_YEAR_STEPS the occupation's entries reach (0: any,
   * even without `yearsExperience`). "At least 3 years as a nurse and English spoken at B2 or
   * better" is then three keys (B2, C1, C2 with 3), one point each.
   */
  searchEmployerKeys: string[];
  /** Per exam entry: the exam, and its score read as a number (examScoreOf) when it is one. */
  searchExams: { exam: string; score?: number }[];
  /** The names of the candidate's occupations, for the keyword search (none when no names are given). */
  searchOccupationNames: string[];
}

/** The minimum years of experience the employer keys hold exactly (besides 0). */
export const EMPLOYER_YEAR_STEPS: readonly number[] = [1, 2, 3, 5, 10];

/** The highest minimum of years searchExperience holds as one key (more years reach it too). */
export const MAX_YEARS_STEP = 30;

/** The field names of SearchFields, for projections that leave them out. */
export const SEARCH_FIELD_NAMES = [
  'searchLanguages',
  'searchExperience',
  'searchEmployerKeys',
  'searchExams',
  'searchOccupationNames',
] as const satisfies readonly (keyof SearchFields)[];

/** A level of a language key: the stored level, `-` when the entry has none. */
export function levelPart(level: number | undefined): string {
  return level === undefined ? '-' : String(level);
}

/**
 * An exam score as a number: the text (spaces around it aside) is a decimal number (`6.5`,
 * `100`, `.5`), else undefined (`B`, `7/9`, `6,5`, empty).
 */
export function examScoreOf(score: string | undefined): number | undefined {
  if (score === undefined) return undefined;
  const text = score.trim();
  return /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : undefined;
}

/** What the search fields are derived from: the lists of a candidate (CandidateDoc). */
export interface SearchedLists {
  candidateLanguages?: readonly { languageIsoCode?: string; spokenLevel?: number; writtenLevel?: number }[];
  candidateOccupations?: readonly { occupation?: { isco08Code: string }; yearsExperience?: number }[];
  candidateExams?: readonly { exam?: string; score?: string }[];
}

/** The search fields of a candidate; `occupationName` gives the names of its occupation codes. */
export function searchFieldsOf(
  candidate: SearchedLists,
  occupationName: (isco08Code: string) => string | undefined = () => undefined,
): SearchFields {
  const languages = new Set<string>();
  const highestSpoken = new Map<string, number>();
  for (const entry of candidate.candidateLanguages ?? []) {
    const code = entry.languageIsoCode;
    if (code === undefined) continue;
    const spoken = levelPart(entry.spokenLevel);
    const written = levelPart(entry.writtenLevel);
    languages.add(`${code}|${spoken}|${written}`);
    languages.add(`${code}|${spoken}|*`);
    languages.add(`${code}|*|${written}`);
    languages.add(`${code}|*|*`);
    if (entry.spokenLevel !== undefined)
      highestSpoken.set(code, Math.max(entry.spokenLevel, highestSpoken.get(code) ?? entry.spokenLevel));
  }

  const experience = new Set<string>();
  const employer = new Set<string>();
  const names = new Set<string>();
  for (const entry of candidate.candidateOccupations ?? []) {
    const code = entry.occupation?.isco08Code;
    const years = entry.yearsExperience;
    if (years !== undefined) {
      for (const of of code === undefined ? ['*'] : [code, '*']) {
        experience.add(`${of}|=${years}`);
        for (let minimum = 0; minimum <= Math.min(years, MAX_YEARS_STEP); minimum++)
          experience.add(`${of}|>=${minimum}`);
      }
    }
    if (code === undefined) continue;
    const name = occupationName(code);
    if (name !== undefined) names.add(name);
    const steps = [0, ...EMPLOYER_YEAR_STEPS.filter((step) => years !== undefined && step <= years)];
    for (const [language, spoken] of highestSpoken)
      for (const step of steps) employer.add(`${code}|${language}|${spoken}|${step}`);
  }

  const exams: SearchFields['searchExams'] = [];
  for (const entry of candidate.candidateExams ?? []) {
    if (entry.exam === undefined) continue;
    const score = examScoreOf(entry.score);
    exams.push(score === undefined ? { exam: entry.exam } : { exam: entry.exam, score });
  }

  return {
    searchLanguages: [...languages],
    searchExperience: [...experience],
    searchEmployerKeys: [...employer],
    searchExams: exams,
    searchOccupationNames: [...names],
  };
}
