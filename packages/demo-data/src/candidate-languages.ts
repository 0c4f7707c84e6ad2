import type { CandidateExamDoc, CandidateLanguageDoc } from 'candidate-documents';
import type { DemoRandom } from './random';
import type { DemoReference } from './reference';
import { OTHER_EXAMS } from './vocabulary';

/** The mother tongue(s) at the top level, the host country's languages, often English, sometimes French. */
export function makeLanguages(
  rng: DemoRandom,
  reference: DemoReference,
  mother: readonly string[],
  hostLanguages: readonly string[],
  livesAtHome: boolean,
): CandidateLanguageDoc[] {
  const levels = reference.languageLevels;
  const top = levels.length - 1;
  const known = reference.languageCodes;
  const result: CandidateLanguageDoc[] = [];
  const add = (code: string, spokenIndex: number): void => {
    if (!known.has(code) || result.some((l) => l.languageIsoCode === code) || levels.length === 0) return;
    const spoken = Math.max(0, Math.min(top, spokenIndex));
    const written = Math.max(0, Math.min(top, spoken - rng.int(0, 1)));
    result.push({ languageIsoCode: code, writtenLevel: levels[written], spokenLevel: levels[spoken] });
  };
  add(mother[0], top);
  if (mother.length > 1 && rng.chance(0.4)) add(mother[1], top - rng.int(0, 2));
  if (!livesAtHome) for (const code of hostLanguages) if (rng.chance(0.7)) add(code, rng.int(0, top - 1));
  if (rng.chance(0.65)) add('en', rng.int(0, top));
  if (rng.chance(0.1)) add('fr', rng.int(0, top - 1));
  return result;
}

export function makeExams(rng: DemoRandom, englishLevel: number, createdYear: number): CandidateExamDoc[] {
  if (englishLevel < 3 || !rng.chance(0.55)) return [];
  const year = rng.int(Math.max(2015, createdYear - 4), createdYear);
  const exam = rng.weighted<NonNullable<CandidateExamDoc['exam']>>([
    { value: 'IELTS_GEN', weight: 35 },
    { value: 'IELTS_ACA', weight: 15 },
    { value: 'TOEFL', weight: 10 },
    { value: 'OET', weight: 8 },
    { value: 'OET_READ', weight: 2 },
    { value: 'OET_LIST', weight: 2 },
    { value: 'OET_LANG', weight: 2 },
    { value: 'DET_OFFICIAL', weight: 10 },
    { value: 'OTHER', weight: 14 },
    { value: 'NO_RESPONSE', weight: 2 },
  ]);
  const band = ieltsBand(englishLevel);
  switch (exam) {
    case 'IELTS_GEN':
    case 'IELTS_ACA':
      return [{ exam, score: Math.min(9, band + rng.int(-1, 1) / 2).toFixed(1), year }];
    case 'TOEFL':
      return [{ exam, score: String(Math.round(band * 14) + rng.int(-5, 5)), year }];
    case 'OET':
    case 'OET_READ':
    case 'OET_LIST':
    case 'OET_LANG':
      return [{ exam, score: rng.pick(['C', 'C+', 'B', 'A']), year }];
    case 'DET_OFFICIAL':
      return [{ exam, score: String(Math.round(band * 18) + rng.int(-5, 5)), year }];
    case 'OTHER': {
      const other = rng.pick(OTHER_EXAMS);
      return [{ exam, otherExam: other.name, score: rng.pick(other.scores), year }];
    }
    default:
      return [{ exam, year }];
  }
}

/** The IELTS band that roughly matches a language level index (1 = beginner … 6 = proficient). */
export function ieltsBand(level: number): number {
  return Math.min(9, 3 + level * 0.5 + (level >= 4 ? 1 : 0));
}
