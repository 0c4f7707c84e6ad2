import type {
  CandidateCitizenshipDoc,
  CandidateVisaCheckDoc,
  CandidateVisaJobCheckDoc,
  DestinationDoc,
  YesNoUnsure,
} from 'candidate-documents';
import type { PlannedOccupation } from './candidate-occupations';
import type { DemoJobOpportunities, JobInfo } from './job-opportunities';
import type { DemoRandom } from './random';
import { DAY_MS, isoDate, yesNo, yesNoUnsure } from './values';
import { DESTINATIONS, POINTS_TEST_DESTINATION } from './vocabulary';

/** What a move abroad rests on: citizenships and passports, wished destinations, visa checks. */

export function makeCitizenships(
  rng: DemoRandom,
  nationality: string,
  host: string,
  bornInHost: boolean,
  created: number,
): CandidateCitizenshipDoc[] {
  const citizenship = (code: string): CandidateCitizenshipDoc => {
    const hasPassport = rng.weighted<NonNullable<CandidateCitizenshipDoc['hasPassport']>>([
      { value: 'VALID_PASSPORT', weight: 40 },
      { value: 'INVALID_PASSPORT', weight: 25 },
      { value: 'NO_PASSPORT', weight: 30 },
      { value: 'NO_RESPONSE', weight: 5 },
    ]);
    const entry: CandidateCitizenshipDoc = { hasPassport };
    if (hasPassport === 'VALID_PASSPORT') entry.passportExp = isoDate(created + rng.int(60, 3000) * DAY_MS);
    if (hasPassport === 'INVALID_PASSPORT') entry.passportExp = isoDate(created - rng.int(30, 2500) * DAY_MS);
    entry.nationalityIsoCode = code;
    return entry;
  };
  const result = [citizenship(nationality)];
  // Rarely, someone born in exile also holds the host country's citizenship.
  if (bornInHost && host !== nationality && rng.chance(0.1)) result.push(citizenship(host));
  return result;
}

export function makeDestinations(rng: DemoRandom): DestinationDoc[] {
  const count = rng.int(1, 3);
  const chosen: string[] = [];
  for (let attempt = 0; chosen.length < count && attempt < 10; attempt++) {
    const code = rng.weighted(DESTINATIONS);
    if (!chosen.includes(code)) chosen.push(code);
  }
  return chosen.map((countryIsoCode) => ({
    countryIsoCode,
    interest: rng.weighted<YesNoUnsure>([
      { value: 'YES', weight: 75 },
      { value: 'UNSURE', weight: 15 },
      { value: 'NO', weight: 5 },
      { value: 'NO_RESPONSE', weight: 5 },
    ]),
  }));
}

/** Visa checks for one or two of the destinations, each against job opportunities there (else anywhere). */
export function makeVisaChecks(
  rng: DemoRandom,
  jobs: DemoJobOpportunities,
  destinations: readonly DestinationDoc[],
  planned: readonly PlannedOccupation[],
  yearOfBirth: number,
  createdYear: number,
): CandidateVisaCheckDoc[] {
  const countries = destinations.map((d) => d.countryIsoCode).filter((c): c is string => c !== undefined);
  return rng.sample(countries, rng.int(1, 2)).map((countryIsoCode) => {
    const check: CandidateVisaCheckDoc = {
      countryIsoCode,
      protection: yesNo(rng, 0.5),
      englishThreshold: yesNo(rng, 0.6),
      healthAssessment: yesNo(rng, 0.9),
      characterAssessment: yesNo(rng, 0.95),
      securityRisk: yesNo(rng, 0.03),
      overallRisk: rng.weighted([
        { value: 'LOW', weight: 60 },
        { value: 'MEDIUM', weight: 25 },
        { value: 'HIGH', weight: 10 },
        { value: 'NO_RESPONSE', weight: 5 },
      ] as const),
      validTravelDocs: rng.pick(['VALID', 'EXPIRED', 'NONE', 'NO_RESPONSE'] as const),
      pathwayAssessment: yesNoUnsure(rng, 0.6),
      destinationFamily: rng.weighted([
        { value: 'NO_RELATION', weight: 70 },
        { value: 'SIBLING', weight: 8 },
        { value: 'COUSIN', weight: 7 },
        { value: 'AUNT_UNCLE', weight: 5 },
        { value: 'PARENT', weight: 3 },
        { value: 'CHILD', weight: 2 },
        { value: 'GRANDPARENT', weight: 1 },
        { value: 'OTHER', weight: 2 },
        { value: 'NO_RESPONSE', weight: 2 },
      ] as const),
    };
    const inCountry = jobs.byCountry.get(countryIsoCode) ?? [];
    const pool = inCountry.length > 0 ? inCountry : jobs.infos;
    check.candidateVisaJobChecks = rng
      .sample(pool, rng.int(1, 2))
      .map((job) => makeVisaJobCheck(rng, job, countryIsoCode, planned, yearOfBirth, createdYear));
    return check;
  });
}

function makeVisaJobCheck(
  rng: DemoRandom,
  job: JobInfo,
  countryIsoCode: string,
  planned: readonly PlannedOccupation[],
  yearOfBirth: number,
  createdYear: number,
): CandidateVisaJobCheckDoc {
  const qualified = planned.some((o) => o.code === job.occupationIsco08Code);
  const check: CandidateVisaJobCheckDoc = {
    jobOppPublicId: job.publicId,
    interest: yesNo(rng, 0.85),
    qualification: qualified ? 'YES' : yesNo(rng, 0.3),
    occupationIsco08Code: job.occupationIsco08Code,
  };
  if (countryIsoCode === POINTS_TEST_DESTINATION) check.salaryTsmit = yesNo(rng, 0.7);
  check.regional = yesNo(rng, 0.35);
  if (countryIsoCode === POINTS_TEST_DESTINATION) {
    check.eligible_494 = yesNo(rng, 0.6);
    check.eligible_186 = yesNo(rng, 0.4);
  }
  check.eligibleOther = rng.pick([
    'TEMP_SKILLED',
    'SPECIAL_HUM',
    'OTHER_HUM',
    'DIRECT_ENT',
    'POINTS_INDEP',
    'NO_RESPONSE',
  ] as const);
  check.putForward = rng.pick(['YES', 'YES_BUT', 'DISCUSS_FURTHER', 'SEEK_ADVICE', 'NO', 'NO_RESPONSE'] as const);
  check.platformEligibility = rng.pick(['PROCEED', 'DISCUSS', 'DONT_PROCEED', 'NO_RESPONSE'] as const);
  const age = createdYear - yearOfBirth;
  check.ageRequirement = age < 45 ? 'Meets the age requirement (under 45)' : 'Over 45: exemption needed';
  // languagesRequired (integer language ids) stays unset: languages are keyed by ISO 639-1
  // code and have no integer id that such a list could point at.
  check.languagesThresholdMet = yesNo(rng, 0.55);
  return check;
}
