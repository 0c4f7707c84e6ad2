import type { CandidateJobExperienceDoc, CandidateOccupationDoc, CandidateSkillDoc } from 'candidate-documents';
import type { DemoRandom } from './random';
import type { DemoReference } from './reference';
import { DAY_MS, isoDate } from './values';
import {
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
  role: string;
  major: number | undefined;
}

/** The common occupations (vocabulary.ts) that the reference data knows, by weight. */
export function commonOccupationsOf(reference: DemoReference): Weighted<PlannedOccupation>[] {
  const known = new Set(reference.occupationCodes);
  return COMMON_OCCUPATIONS.filter((o) => known.has(o.code)).map((o) => ({
    value: { code: o.code, group: o.group, role: o.role, major: o.major },
    weight: o.weight,
  }));
}

/** One to three distinct occupations, mostly common ones; the first is the candidate's main one. */
export function planOccupations(
  rng: DemoRandom,
  commonOccupations: readonly Weighted<PlannedOccupation>[],
  reference: DemoReference,
): PlannedOccupation[] {
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
      const code = rng.pick(reference.occupationCodes);
      next = {
        code,
        group: occupationGroupOf(code),
        role: reference.occupationNames.get(code) ?? code,
        major: undefined,
      };
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
  const descriptions = JOB_DESCRIPTIONS[occupation.group];
  const companies = COMPANY_PATTERNS[occupation.group];
  if (jobCount >= 1) {
    // The job held at home, before leaving.
    const endYear = Math.max(createdYear - workingYears, yearOfArrival - rng.int(0, 2));
    const startYear = Math.max(createdYear - workingYears, endYear - yearsExperience);
    const start = Date.UTC(startYear, rng.int(0, 11), rng.int(1, 28));
    const end = Math.max(start + 90 * DAY_MS, Date.UTC(endYear, rng.int(0, 11), rng.int(1, 28)));
    experiences.push({
      countryIsoCode: nationality,
      companyName: rng.pick(companies).replace('{city}', homeCity),
      role: occupation.role,
      startDate: isoDate(start),
      endDate: isoDate(end),
      fullTime: rng.chance(0.85),
      paid: true,
      description: rng.pick(descriptions),
    });
  }
  if (jobCount >= 2 && yearOfArrival < createdYear) {
    // Work found since arriving in the host country, often informal.
    const start = Date.UTC(rng.int(yearOfArrival, createdYear - 1), rng.int(0, 11), rng.int(1, 28));
    const job: CandidateJobExperienceDoc = {
      countryIsoCode: host,
      companyName: rng.pick(companies).replace('{city}', hostCity ?? 'the city'),
      role: occupation.role,
      startDate: isoDate(start),
    };
    if (rng.chance(0.6)) job.endDate = isoDate(start + rng.int(60, 700) * DAY_MS);
    job.fullTime = rng.chance(0.5);
    job.paid = rng.chance(0.8);
    job.description = rng.pick(descriptions);
    experiences.push(job);
  }
  return {
    occupation: { isco08Code: occupation.code },
    yearsExperience,
    candidateJobExperiences: experiences,
  };
}

export function makeSkills(rng: DemoRandom, planned: readonly PlannedOccupation[]): CandidateSkillDoc[] {
  const pool = [...new Set(planned.flatMap((o) => SKILLS[o.group]))];
  return rng.sample(pool, rng.int(1, 4)).map((skill) => ({ skill, timePeriod: rng.pick(SKILL_PERIODS) }));
}
