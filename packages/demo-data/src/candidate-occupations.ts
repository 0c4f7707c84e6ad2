import type { CandidateJobExperienceDoc, CandidateOccupationDoc, CandidateSkillDoc } from 'candidate-documents';
import type { DemoRandom } from './random';
import type { DemoReference } from './reference';
import { DAY_MS, isoDate } from './values';
import { PROFESSIONS, type JobKind, type Profession } from './professions';
import {
  CERTIFICATIONS,
  COMMON_OCCUPATIONS,
  COMPANY_PATTERNS,
  JOB_DESCRIPTIONS,
  SKILL_PERIODS,
  SKILLS,
  occupationGroupOf,
  type OccupationGroup,
  type Weighted,
} from './vocabulary';

/** An occupation chosen for a candidate, before its years and jobs are drawn. */
export interface PlannedOccupation {
  code: string;
  group: OccupationGroup;
  major: number | undefined;
  /** what people of this occupation write about their work */
  profession: Profession;
}

/** The occupations the candidates draw from: the common ones by weight, and any code of the reference. */
export interface DemoOccupations {
  readonly common: readonly Weighted<PlannedOccupation>[];
  readonly byCode: ReadonlyMap<string, PlannedOccupation>;
}

/**
 * Every occupation of the reference data, planned once: the common ones (vocabulary.ts) with their
 * own professions (professions.ts), the others with their group's phrases under their reference name.
 */
export function demoOccupationsOf(reference: DemoReference): DemoOccupations {
  const byCode = new Map<string, PlannedOccupation>();
  for (const code of reference.occupationCodes) {
    const group = occupationGroupOf(code);
    const profession: Profession = {
      jobs: [{ role: reference.occupationNames.get(code) ?? code, lines: JOB_DESCRIPTIONS[group] }],
      extras: [],
      skills: SKILLS[group],
      certifications: CERTIFICATIONS[group],
    };
    byCode.set(code, { code, group, major: undefined, profession });
  }
  const common: Weighted<PlannedOccupation>[] = [];
  for (const o of COMMON_OCCUPATIONS) {
    if (!byCode.has(o.code)) continue;
    const planned = { code: o.code, group: o.group, major: o.major, profession: PROFESSIONS[o.code] };
    byCode.set(o.code, planned);
    common.push({ value: planned, weight: o.weight });
  }
  return { common, byCode };
}

/** One to three distinct occupations, mostly common ones; the first is the candidate's main one. */
export function planOccupations(
  rng: DemoRandom,
  occupations: DemoOccupations,
  reference: DemoReference,
): PlannedOccupation[] {
  const commonOccupations = occupations.common;
  const count = rng.weighted([
    { value: 1, weight: 55 },
    { value: 2, weight: 35 },
    { value: 3, weight: 10 },
  ]);
  const planned: PlannedOccupation[] = [];
  const seen = new Set<string>();
  for (let attempt = 0; planned.length < count && attempt < 10; attempt++) {
    let next: PlannedOccupation;
    if (rng.chance(0.75) && commonOccupations.length > 0) {
      next = rng.weighted(commonOccupations);
    } else {
      next = occupations.byCode.get(rng.pick(reference.occupationCodes)) as PlannedOccupation;
    }
    if (seen.has(next.code)) continue;
    seen.add(next.code);
    planned.push(next);
  }
  return planned;
}

export function makeOccupation(
  rng: DemoRandom,
  occupation: PlannedOccupation,
  rank: number,
  workingYears: number,
  yearOfArrival: number,
  createdYear: number,
  nationality: string,
  host: string,
  homeCity: string,
  hostCity: string | undefined,
): CandidateOccupationDoc {
  const yearsExperience = rank === 0 ? rng.int(1, Math.min(25, workingYears)) : rng.int(1, Math.min(8, workingYears));
  const experiences: CandidateJobExperienceDoc[] = [];
  const jobCount =
    rank === 0
      ? rng.weighted([
          { value: 0, weight: 10 },
          { value: 1, weight: 55 },
          { value: 2, weight: 35 },
        ])
      : rng.int(0, 1);
  const profession = occupation.profession;
  const companies = COMPANY_PATTERNS[occupation.group];
  let kind: JobKind | undefined;
  if (jobCount >= 1) {
    // The job held at home, before leaving.
    kind = rng.pick(profession.jobs);
    const endYear = Math.max(createdYear - workingYears, yearOfArrival - rng.int(0, 2));
    const startYear = Math.max(createdYear - workingYears, endYear - yearsExperience);
    const start = Date.UTC(startYear, rng.int(0, 11), rng.int(1, 28));
    const end = Math.max(start + 90 * DAY_MS, Date.UTC(endYear, rng.int(0, 11), rng.int(1, 28)));
    experiences.push({
      countryIsoCode: nationality,
      companyName: rng.pick(companies).replace('{city}', homeCity),
      role: kind.role,
      startDate: isoDate(start),
      endDate: isoDate(end),
      fullTime: rng.chance(0.85),
      paid: true,
      description: describe(rng, kind, profession),
    });
  }
  if (jobCount >= 2 && yearOfArrival < createdYear) {
    // Work found since arriving in the host country, often informal, often the same kind of job.
    if (kind === undefined || rng.chance(0.4)) kind = rng.pick(profession.jobs);
    const start = Date.UTC(rng.int(yearOfArrival, createdYear - 1), rng.int(0, 11), rng.int(1, 28));
    const job: CandidateJobExperienceDoc = {
      countryIsoCode: host,
      companyName: rng.pick(companies).replace('{city}', hostCity ?? 'the city'),
      role: kind.role,
      startDate: isoDate(start),
    };
    if (rng.chance(0.6)) job.endDate = isoDate(start + rng.int(60, 700) * DAY_MS);
    job.fullTime = rng.chance(0.5);
    job.paid = rng.chance(0.8);
    job.description = describe(rng, kind, profession);
    experiences.push(job);
  }
  return {
    occupation: { isco08Code: occupation.code },
    yearsExperience,
    candidateJobExperiences: experiences,
  };
}

/** A job's description: a line of its kind, and often a sentence any job of the occupation may add. */
function describe(rng: DemoRandom, kind: JobKind, profession: Profession): string {
  const line = rng.pick(kind.lines);
  return profession.extras.length > 0 && rng.chance(0.6) ? `${line} ${rng.pick(profession.extras)}` : line;
}

/** Two to five skills of the candidate's occupations. */
export function makeSkills(rng: DemoRandom, planned: readonly PlannedOccupation[]): CandidateSkillDoc[] {
  const pool = [...new Set(planned.flatMap((o) => o.profession.skills))];
  return rng.sample(pool, rng.int(2, 5)).map((skill) => ({ skill, timePeriod: rng.pick(SKILL_PERIODS) }));
}
