import type { CandidateExamDoc, CandidateLanguageDoc } from 'candidate-documents';
import type { DemoRandom } from './random';
import type { DemoReference } from './reference';
import { OTHER_EXAMS, type OccupationGroup, type Weighted } from './vocabulary';

type Exam = NonNullable<CandidateExamDoc['exam']>;

/** Groups whose people more often learnt English for their work and sit English exams for it. */
const PROFESSIONAL: ReadonlySet<OccupationGroup> = new Set(['health', 'it', 'engineering', 'education']);

/** English spoken, as an index into the levels (0 = A1 … 5 = C2), by whether the work needs it. */
const ENGLISH_SPOKEN: Readonly<Record<'professional' | 'other', readonly Weighted<number>[]>> = {
  professional: [
    { value: 0, weight: 4 },
    { value: 1, weight: 10 },
    { value: 2, weight: 22 },
    { value: 3, weight: 30 },
    { value: 4, weight: 22 },
    { value: 5, weight: 12 },
  ],
  other: [
    { value: 0, weight: 18 },
    { value: 1, weight: 27 },
    { value: 2, weight: 27 },
    { value: 3, weight: 16 },
    { value: 4, weight: 8 },
    { value: 5, weight: 4 },
  ],
};

/** Written minus spoken, in levels: a language learnt at school is often written better than spoken. */
const SCHOOL_WRITTEN: readonly Weighted<number>[] = [
  { value: -1, weight: 30 },
  { value: 0, weight: 45 },
  { value: 1, weight: 25 },
];

/** Written minus spoken for a language picked up where one lives: spoken better than written. */
const LIVED_WRITTEN: readonly Weighted<number>[] = [
  { value: 0, weight: 40 },
  { value: -1, weight: 35 },
  { value: -2, weight: 25 },
];

/** A mother tongue is written at the top level, unless schooling was in another language. */
const MOTHER_WRITTEN: readonly Weighted<number>[] = [
  { value: 0, weight: 80 },
  { value: -1, weight: 12 },
  { value: -2, weight: 8 },
];

/**
 * The mother tongue(s) at the top level, the host country's languages, often English, sometimes
 * French; spoken and written levels apart (across A1 … C2), as people learnt each language.
 */
export function makeLanguages(
  rng: DemoRandom,
  reference: DemoReference,
  mother: readonly string[],
  hostLanguages: readonly string[],
  livesAtHome: boolean,
  group: OccupationGroup,
): CandidateLanguageDoc[] {
  const levels = reference.languageLevels;
  const top = levels.length - 1;
  const known = reference.languageCodes;
  const result: CandidateLanguageDoc[] = [];
  const clamp = (index: number): number => Math.max(0, Math.min(top, index));
  const add = (code: string, spokenIndex: number, writtenShift: readonly Weighted<number>[]): void => {
    if (!known.has(code) || result.some((l) => l.languageIsoCode === code) || levels.length === 0) return;
    const spoken = clamp(spokenIndex);
    const written = clamp(spoken + rng.weighted(writtenShift));
    result.push({ languageIsoCode: code, writtenLevel: levels[written], spokenLevel: levels[spoken] });
  };
  add(mother[0], top, MOTHER_WRITTEN);
  if (mother.length > 1 && rng.chance(0.4)) add(mother[1], top - rng.int(0, 2), LIVED_WRITTEN);
  if (!livesAtHome)
    for (const code of hostLanguages) if (rng.chance(0.7)) add(code, rng.int(0, top - 1), LIVED_WRITTEN);
  const professional = PROFESSIONAL.has(group);
  if (rng.chance(professional ? 0.85 : 0.55)) {
    add('en', rng.weighted(ENGLISH_SPOKEN[professional ? 'professional' : 'other']), SCHOOL_WRITTEN);
  }
  if (rng.chance(0.1)) add('fr', rng.int(0, top - 1), SCHOOL_WRITTEN);
  return result;
}

/** Exams by how often people of a group sit them: health workers heading abroad often take OET. */
const EXAMS: Readonly<Record<'health' | 'other', readonly Weighted<Exam>[]>> = {
  health: [
    { value: 'IELTS_GEN', weight: 50 },
    { value: 'IELTS_ACA', weight: 16 },
    { value: 'OET', weight: 14 },
    { value: 'OET_READ', weight: 2 },
    { value: 'OET_LIST', weight: 2 },
    { value: 'OET_LANG', weight: 2 },
    { value: 'TOEFL', weight: 5 },
    { value: 'DET_OFFICIAL', weight: 5 },
    { value: 'OTHER', weight: 4 },
    { value: 'NO_RESPONSE', weight: 2 },
  ],
  other: [
    { value: 'IELTS_GEN', weight: 36 },
    { value: 'IELTS_ACA', weight: 14 },
    { value: 'TOEFL', weight: 13 },
    { value: 'DET_OFFICIAL', weight: 13 },
    { value: 'OET', weight: 2 },
    { value: 'OTHER', weight: 19 },
    { value: 'NO_RESPONSE', weight: 3 },
  ],
};

/** Scores as people record them when they are not a plain number. */
const UNREADABLE_IELTS = ['Awaiting results', 'Band {band}', '{comma}'];

/**
 * English (and other) language exams with scores as recorded: IELTS bands such as `6.5`, TOEFL
 * and Duolingo points, OET grades (`B`) or points, other exams' own grades; now and then a score
 * that is not a number (`Awaiting results`, `6,5`), or none. Some took one exam twice.
 */
export function makeExams(
  rng: DemoRandom,
  englishLevel: number,
  createdYear: number,
  group: OccupationGroup,
): CandidateExamDoc[] {
  const likely =
    englishLevel >= 3 ? (group === 'health' ? 0.85 : PROFESSIONAL.has(group) ? 0.7 : 0.4) : englishLevel > 0 ? 0.08 : 0;
  if (!rng.chance(likely)) return [];
  const weights = EXAMS[group === 'health' ? 'health' : 'other'];
  const exams: CandidateExamDoc[] = [];
  const count = rng.chance(0.25) ? 2 : 1;
  let year = rng.int(Math.max(2015, createdYear - 4), createdYear);
  for (let i = 0; i < count; i++) {
    // A second exam came earlier: often the same one, with a lower result.
    const exam = i > 0 && rng.chance(0.4) ? (exams[0].exam as Exam) : rng.weighted(weights);
    exams.push(examOf(rng, exam, i > 0 ? Math.max(1, englishLevel - 1) : englishLevel, year));
    year = Math.max(2012, year - rng.int(1, 3));
  }
  return exams;
}

function examOf(rng: DemoRandom, exam: Exam, englishLevel: number, year: number): CandidateExamDoc {
  const band = ieltsBand(englishLevel);
  switch (exam) {
    case 'IELTS_GEN':
    case 'IELTS_ACA': {
      const score = Math.max(3, Math.min(9, band + rng.int(-1, 1) / 2)).toFixed(1);
      if (!rng.chance(0.04)) return { exam, score, year };
      const recorded = rng.pick(UNREADABLE_IELTS).replace('{band}', score).replace('{comma}', score.replace('.', ','));
      return { exam, score: recorded, year };
    }
    case 'TOEFL':
      return { exam, score: String(Math.min(120, Math.round(band * 14) + rng.int(-5, 5))), year };
    case 'OET':
      return { exam, score: rng.chance(0.6) ? oetGrade(englishLevel) : String(oetPoints(rng, englishLevel)), year };
    case 'OET_READ':
    case 'OET_LIST':
    case 'OET_LANG':
      return { exam, score: oetGrade(englishLevel), year };
    case 'DET_OFFICIAL':
      return { exam, score: String(Math.min(160, Math.round(band * 18) + rng.int(-5, 5))), year };
    case 'OTHER': {
      const other = rng.pick(OTHER_EXAMS);
      return { exam, otherExam: other.name, score: rng.pick(other.scores), year };
    }
    default:
      return { exam, year };
  }
}

/** OET's letter grade of a level index (1 = beginner … 6 = proficient). */
function oetGrade(level: number): string {
  return level >= 6 ? 'A' : level === 5 ? 'B' : level === 4 ? 'C+' : level === 3 ? 'C' : 'D';
}

/** OET points (0 to 500) within the grade of a level. */
function oetPoints(rng: DemoRandom, level: number): number {
  const from = level >= 6 ? 450 : level === 5 ? 350 : level === 4 ? 300 : level === 3 ? 200 : 100;
  return Math.min(500, from + rng.int(0, 9) * 10);
}

/** The IELTS band that roughly matches a language level index (1 = A1 … 6 = C2). */
export function ieltsBand(level: number): number {
  return [3, 3, 4, 5, 6, 7.5, 8.5][Math.max(0, Math.min(6, level))];
}
