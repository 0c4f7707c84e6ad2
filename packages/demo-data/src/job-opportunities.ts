import type { JobOpportunityDoc, JobOpportunityStage } from 'candidate-documents';
import type { PlannedOccupation } from './candidate-occupations';
import type { DemoRandom } from './random';
import { DAY_MS, isoDate } from './values';
import { DESTINATIONS, type Weighted } from './vocabulary';

const JOBS_FROM = Date.UTC(2023, 0, 1);

const JOB_STAGES: readonly JobOpportunityStage[] = [
  'PROSPECT',
  'BRIEFING',
  'PITCHING',
  'MOU',
  'IDENTIFYING_ROLES',
  'CANDIDATE_SEARCH',
  'VISA_ELIGIBILITY',
  'CV_PREPARATION',
  'CV_REVIEW',
  'RECRUITMENT_PROCESS',
  'JOB_OFFER',
  'TRAINING',
  'VISA_PREPARATION',
  'POST_HIRE_ENGAGEMENT',
  'HIRING_COMPLETED',
  'INELIGIBLE_EMPLOYER',
  'INELIGIBLE_OCCUPATION',
  'INELIGIBLE_REGION',
  'NO_INTEREST',
  'NO_JOB_OFFER',
  'NO_PR_PATHWAY',
  'NO_SUITABLE_CANDIDATES',
  'NO_VISA',
  'TOO_EXPENSIVE',
  'TOO_HIGH_WAGE',
  'TOO_LONG',
  'MOU_ISSUE',
  'TRAINING_NOT_COMPLETED',
];

/** What a candidate's visa job check takes from the job opportunity it points at. */
export interface JobInfo {
  publicId: string;
  countryIsoCode: string;
  occupationIsco08Code: string;
}

export interface DemoJobOpportunities {
  readonly docs: readonly JobOpportunityDoc[];
  readonly infos: readonly JobInfo[];
  readonly byCountry: ReadonlyMap<string, readonly JobInfo[]>;
}

/**
 * The job opportunities of a data set of `size` candidates (one per 200, at least 12, at most
 * 500), each for one of the common occupations in a destination country.
 */
export function makeJobOpportunities(
  rng: DemoRandom,
  size: number,
  commonOccupations: readonly Weighted<PlannedOccupation>[],
): DemoJobOpportunities {
  const count = Math.min(500, Math.max(12, Math.ceil(size / 200)));
  const docs: JobOpportunityDoc[] = [];
  const infos: JobInfo[] = [];
  for (let i = 0; i < count; i++) {
    const publicId = rng.publicId();
    const countryIsoCode = rng.weighted(DESTINATIONS);
    const occupation = rng.weighted(commonOccupations);
    const published = JOBS_FROM + rng.int(0, 900) * DAY_MS + rng.int(0, 86_399) * 1000;
    const hasHiredInternationally = rng.chance(0.6);
    docs.push({
      publicId,
      countryIsoCode,
      employerEntity: { countryIsoCode, hasHiredInternationally },
      evergreen: rng.chance(0.15),
      publishedDate: new Date(published),
      stage: rng.pick(JOB_STAGES),
      submissionDueDate: isoDate(published + rng.int(30, 120) * DAY_MS),
      hiringCommitment: rng.int(1, 20),
      employerHiredInternationally: hasHiredInternationally ? rng.pick(['Yes', 'Yes, several times']) : 'No',
    });
    infos.push({ publicId, countryIsoCode, occupationIsco08Code: occupation.code });
  }
  const byCountry = new Map<string, JobInfo[]>();
  for (const info of infos) {
    const list = byCountry.get(info.countryIsoCode) ?? [];
    list.push(info);
    byCountry.set(info.countryIsoCode, list);
  }
  return { docs, infos, byCountry };
}
