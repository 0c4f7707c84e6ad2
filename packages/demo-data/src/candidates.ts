import { alpha2ToNumeric } from 'i18n-iso-countries';
import type { CandidateDoc, CandidateStatus, Gender, HowHeardAboutUs, YesNoUnsure } from 'candidate-documents';
import { CANDIDATE_STATUSES } from 'candidate-documents';
import { makeCertifications, makeEducations, pickEducationLevel } from './candidate-education';
import { makeDependants, PARTNERED, type PairContext } from './candidate-family';
import { ieltsBand, makeExams, makeLanguages } from './candidate-languages';
import { makeOccupation, makeSkills, planOccupations, type DemoOccupations } from './candidate-occupations';
import { makeCitizenships, makeDestinations, makeVisaChecks } from './candidate-visas';
import type { DemoJobOpportunities } from './job-opportunities';
import type { DemoRandom } from './random';
import type { DemoReference } from './reference';
import { DAY_MS, isoDate, yesNo, yesNoUnsure } from './values';
import {
  AVAIL_IMMEDIATE_JOB_OPS,
  CANDIDATE_MESSAGES,
  COVID_VACCINES,
  HOST_CHALLENGES,
  HOSTS,
  MEDIA_WILLINGNESS,
  ORIGINS,
  REGISTRAR_IDS,
  type Weighted,
} from './vocabulary';

const CREATED_FROM = Date.UTC(2019, 0, 1);
const CREATED_TO = Date.UTC(2025, 5, 30);

/** What the candidates of one data set draw from besides their PRNG stream. */
export interface CandidateSources {
  readonly reference: DemoReference;
  /** publicIds of every candidate, drawn up front so that partners can point at them */
  readonly candidateIds: readonly string[];
  readonly occupations: DemoOccupations;
  /** the job opportunities the visa job checks point at */
  readonly jobs: DemoJobOpportunities;
}

const STATUS_WEIGHTS: readonly Weighted<CandidateStatus>[] = [
  { value: 'ACTIVE', weight: 45 },
  { value: 'PENDING', weight: 20 },
  { value: 'INCOMPLETE', weight: 8 },
  { value: 'EMPLOYED', weight: 6 },
  { value: 'DRAFT', weight: 5 },
  { value: 'UNREACHABLE', weight: 4 },
  { value: 'WITHDRAWN', weight: 4 },
  { value: 'INELIGIBLE', weight: 3 },
  { value: 'AUTONOMOUS_EMPLOYMENT', weight: 3 },
  { value: 'DELETED', weight: 2 },
];

const HOW_HEARD: readonly Weighted<HowHeardAboutUs>[] = [
  { value: 'FRIEND_COLLEAGUE_REFERRAL', weight: 20 },
  { value: 'SOCIAL_NETWORK_1', weight: 15 },
  { value: 'NGO', weight: 12 },
  { value: 'REFUGEE_AGENCY', weight: 8 },
  { value: 'ONLINE_SEARCH', weight: 8 },
  { value: 'MESSAGING_APP', weight: 7 },
  { value: 'SOCIAL_NETWORK_2', weight: 5 },
  { value: 'PROFESSIONAL_NETWORK', weight: 4 },
  { value: 'INFORMATION_SESSION', weight: 3 },
  { value: 'OUTREACH_WORKER', weight: 3 },
  { value: 'COMMUNITY_CENTRE_POSTING_FLYERS', weight: 2 },
  { value: 'UNIVERSITY_SCHOOL_REFERRAL', weight: 2 },
  { value: 'EVENT_WEBINAR', weight: 2 },
  { value: 'VIDEO_PLATFORM', weight: 2 },
  { value: 'SOCIAL_NETWORK_3', weight: 1 },
  { value: 'EMPLOYER_REFERRAL', weight: 1 },
  { value: 'PARTNER_ORG_1', weight: 1 },
  { value: 'PARTNER_ORG_2', weight: 1 },
  { value: 'PARTNER_ORG_3', weight: 1 },
  { value: 'PARTNER_ORG_4', weight: 1 },
  { value: 'OTHER', weight: 2 },
];

/** An IELTS band as a number: `6.5`. */
const BAND = /^\d(\.\d)?$/;

const ORIGIN_WEIGHTS: readonly Weighted<string>[] = Object.entries(ORIGINS).map(([code, origin]) => ({
  value: code,
  weight: origin.weight,
}));

/**
 * Every candidate of `sources.candidateIds`, in generation order, drawn from `rng`. Some come in
 * couples who both registered and point at each other.
 */
export function* generateCandidates(sources: CandidateSources, rng: DemoRandom): Generator<CandidateDoc> {
  const size = sources.candidateIds.length;
  // The first ten candidates take every status once, so even a small set holds them all.
  const firstStatuses = rng.sample(CANDIDATE_STATUSES, CANDIDATE_STATUSES.length);
  const statusOf = (index: number): CandidateStatus => firstStatuses[index] ?? rng.weighted(STATUS_WEIGHTS);

  let index = 0;
  while (index < size) {
    if (index + 1 < size && rng.chance(0.06)) {
      // A couple who both registered: each points at the other.
      const first = makeCandidate(sources, rng, index, statusOf(index), null, true);
      const firstOccupation = first.candidateOccupations?.[0]?.occupation?.isco08Code ?? '';
      const second = makeCandidate(
        sources,
        rng,
        index + 1,
        statusOf(index + 1),
        {
          partner: first,
          partnerOccupation: firstOccupation,
        },
        true,
      );
      first.partnerPublicId = second.publicId;
      first.partnerRegistered = 'YES';
      const secondOccupation = second.candidateOccupations?.[0]?.occupation?.isco08Code;
      if (secondOccupation) first.partnerOccupationIsco08Code = secondOccupation;
      yield first;
      yield second;
      index += 2;
    } else {
      const candidate = makeCandidate(sources, rng, index, statusOf(index), null, false);
      // Some partners registered earlier, the link recorded on one side only.
      if (index > 0 && PARTNERED.has(candidate.maritalStatus ?? '') && rng.chance(0.05)) {
        candidate.partnerPublicId = sources.candidateIds[rng.int(0, index - 1)];
        candidate.partnerRegistered = 'YES';
      }
      yield candidate;
      index += 1;
    }
  }
}

/**
 * One candidate, its nested lists from the candidate-*.ts files. The order of the draws from
 * `rng` is part of the data: moving a draw changes this candidate and every later one.
 */
function makeCandidate(
  sources: CandidateSources,
  rng: DemoRandom,
  index: number,
  status: CandidateStatus,
  pair: PairContext | null,
  coupled: boolean,
): CandidateDoc {
  const ref = sources.reference;
  const partner = pair?.partner;
  const created = partner
    ? Math.min(CREATED_TO - 1000, partner.createdDate.getTime() + rng.int(0, 30 * 86_400) * 1000)
    : CREATED_FROM + rng.int(0, (CREATED_TO - CREATED_FROM) / 1000 - 1) * 1000;
  const createdYear = new Date(created).getUTCFullYear();

  const nationality = partner?.nationalityIsoCode ?? rng.weighted(ORIGIN_WEIGHTS);
  const origin = ORIGINS[nationality] ?? ORIGINS.SY;
  const host = partner?.countryIsoCode ?? rng.weighted(origin.hosts);
  const hostInfo = HOSTS[host] ?? { cities: [], languages: [] };
  const city = partner?.city ?? (hostInfo.cities.length > 0 ? rng.pick(hostInfo.cities) : undefined);
  const homeCity = partner?.homeLocation ?? rng.pick(origin.homeCities);

  const age = rng.weighted<[number, number]>([
    { value: [18, 24], weight: 14 },
    { value: [25, 34], weight: 43 },
    { value: [35, 44], weight: 28 },
    { value: [45, 54], weight: 12 },
    { value: [55, 59], weight: 3 },
  ]);
  const describedByPartner = partner?.candidateDependants?.find((d) => d.relation === 'PARTNER')?.yearOfBirth;
  const yearOfBirth = describedByPartner ?? createdYear - rng.int(age[0], age[1]);
  const gender: Gender = partner
    ? partner.gender === 'MALE'
      ? 'FEMALE'
      : 'MALE'
    : rng.weighted<Gender>([
        { value: 'MALE', weight: 55 },
        { value: 'FEMALE', weight: 43 },
        { value: 'OTHER', weight: 2 },
      ]);
  const maritalStatus: NonNullable<CandidateDoc['maritalStatus']> = coupled
    ? 'MARRIED'
    : rng.weighted<NonNullable<CandidateDoc['maritalStatus']>>([
        { value: 'MARRIED', weight: 45 },
        { value: 'SINGLE', weight: 30 },
        { value: 'ENGAGED', weight: 5 },
        { value: 'DEFACTO', weight: 3 },
        { value: 'DIVORCED', weight: 5 },
        { value: 'SEPARATED', weight: 4 },
        { value: 'WIDOWER', weight: 4 },
        { value: 'NO_RESPONSE', weight: 4 },
      ]);
  const earliestArrival = Math.min(createdYear, Math.max(origin.displacedSince, yearOfBirth + 16));
  const yearOfArrival = partner?.yearOfArrival ?? rng.int(earliestArrival, createdYear);
  const bornInHost = origin.displacedSince <= yearOfBirth && rng.chance(0.3);
  const sparse = status === 'DRAFT' || status === 'INCOMPLETE';

  const occupationsPlanned = planOccupations(rng, sources.occupations, ref);
  const primary = occupationsPlanned[0];
  const workingYears = Math.max(1, createdYear - yearOfBirth - 18);

  const doc: CandidateDoc = {
    publicId: sources.candidateIds[index],
    createdDate: new Date(created),
    status,
  };
  if (rng.chance(0.3)) doc.registrarId = rng.pick(REGISTRAR_IDS);
  doc.gender = gender;
  doc.yearOfBirth = yearOfBirth;
  if (city) doc.city = city;
  doc.countryIsoCode = host;
  doc.birthCountryIsoCode = bornInHost ? host : nationality;
  doc.nationalityIsoCode = nationality;
  doc.maritalStatus = maritalStatus;
  doc.candidateMessage = rng.sample(CANDIDATE_MESSAGES, rng.int(1, 2)).join(' ');
  doc.yearOfArrival = yearOfArrival;
  doc.homeLocation = homeCity;
  doc.hostChallenges = rng.sample(HOST_CHALLENGES, rng.int(1, 2)).join(' ');
  doc.hostEntryLegally = yesNo(rng, 0.75);
  doc.hostEntryYear = yearOfArrival;
  doc.residenceStatus = rng.weighted<NonNullable<CandidateDoc['residenceStatus']>>([
    { value: 'LEGAL_RES', weight: 60 },
    { value: 'ILLEGAL_RES', weight: 15 },
    { value: 'OTHER', weight: 15 },
    { value: 'NO_RESPONSE', weight: 10 },
  ]);
  doc.mediaWillingness = rng.weighted(MEDIA_WILLINGNESS);
  doc.howHeardAboutUs = rng.weighted(HOW_HEARD);

  doc.contactConsentPlatformPartners = rng.chance(0.8);
  doc.contactConsentRegistration = rng.chance(0.9);
  doc.refugeeAgencyConsent = yesNo(rng, 0.65);
  doc.monitoringEvaluationConsent = yesNo(rng, 0.7);

  const availImmediate = yesNo(rng, 0.6);
  doc.availDate = isoDate(created + rng.int(14, 365) * DAY_MS);
  doc.availImmediate = availImmediate;
  doc.availImmediateJobOps = rng.pick(AVAIL_IMMEDIATE_JOB_OPS);
  if (availImmediate === 'NO') {
    doc.availImmediateReason = rng.pick(['FAMILY', 'HEALTH', 'CURRENT_WORK', 'STUDIES', 'OTHER'] as const);
  }
  doc.arrestImprison = yesNoUnsure(rng, 0.04);
  doc.asylumYear = isoDate(Date.UTC(yearOfArrival, rng.int(0, 11), rng.int(1, 28)));
  const canDrive = yesNo(rng, 0.55);
  doc.canDrive = canDrive;
  doc.conflict = yesNo(rng, 0.5);
  doc.crimeConvict = yesNoUnsure(rng, 0.02);
  doc.destLimit = yesNo(rng, 0.2);
  const license =
    canDrive === 'YES' ? rng.pick(['VALID', 'EXPIRED'] as const) : rng.pick(['NONE', 'NO_RESPONSE'] as const);
  doc.drivingLicense = license;
  if (license === 'VALID' || license === 'EXPIRED') {
    doc.drivingLicenseCountryIsoCode = rng.chance(0.7) ? nationality : host;
    const expiry = license === 'VALID' ? created + rng.int(60, 3000) * DAY_MS : created - rng.int(30, 2000) * DAY_MS;
    doc.drivingLicenseExp = isoDate(expiry);
  }
  doc.familyMove = yesNo(rng, 0.7);
  doc.healthIssues = yesNo(rng, 0.1);
  const vaccinated = createdYear >= 2021 ? yesNo(rng, 0.7) : 'NO_RESPONSE';
  doc.covidVaccinated = vaccinated;
  if (vaccinated === 'YES') {
    doc.covidVaccinatedDate = isoDate(Date.UTC(2021, 3, 1) + rng.int(0, 600) * DAY_MS);
    doc.covidVaccineName = rng.pick(COVID_VACCINES);
    doc.covidVaccinatedStatus = rng.chance(0.8) ? 'FULL' : 'PARTIAL';
  } else {
    doc.covidVaccinatedStatus = 'NO_RESPONSE';
  }
  const military = gender === 'MALE' ? yesNo(rng, 0.45) : yesNo(rng, 0.03);
  doc.militaryService = military;
  doc.militaryWanted = military === 'YES' ? yesNoUnsure(rng, 0.3) : 'NO';
  if (military === 'YES') {
    const start = Date.UTC(Math.min(yearOfBirth + 18 + rng.int(0, 4), yearOfArrival), rng.int(0, 11), rng.int(1, 28));
    doc.militaryStart = isoDate(start);
    doc.militaryEnd = isoDate(start + rng.int(365, 900) * DAY_MS);
  }
  doc.intRecruitReasons = rng.sample(
    ['CANT_RETURN_HOME', 'CITIZENSHIP', 'EXPERIENCE', 'CHILDREN', 'OTHER'] as const,
    rng.int(1, 3),
  );
  doc.intRecruitRural = yesNoUnsure(rng, 0.5);
  doc.leftHomeReasons = rng.chance(0.85)
    ? rng.chance(0.3)
      ? ['SAFETY', 'JOB']
      : ['SAFETY']
    : [rng.pick(['JOB', 'OTHER'] as const)];
  const returnedHome = yesNoUnsure(rng, 0.1);
  doc.returnedHome = returnedHome;
  doc.returnHomeSafe = yesNoUnsure(rng, 0.1);
  doc.returnHomeFuture = yesNoUnsure(rng, 0.2);
  doc.resettleThird = yesNo(rng, 0.8);
  doc.visaIssues = yesNoUnsure(rng, 0.15);
  doc.visaReject = yesNoUnsure(rng, 0.1);
  doc.workAbroad = yesNo(rng, 0.85);
  doc.workPermit = rng.weighted<NonNullable<CandidateDoc['workPermit']>>([
    { value: 'NO', weight: 50 },
    { value: 'YES_DESIRED', weight: 25 },
    { value: 'YES_NOT_DESIRED', weight: 15 },
    { value: 'NO_RESPONSE', weight: 10 },
  ]);
  doc.workPermitDesired = yesNoUnsure(rng, 0.6);
  if (status !== 'DRAFT' && rng.chance(0.9)) {
    const mini = created + rng.int(1, 45) * DAY_MS + rng.int(0, 86_399) * 1000;
    doc.miniIntakeCompletedDate = new Date(mini);
    if (!sparse && rng.chance(0.7)) doc.fullIntakeCompletedDate = new Date(mini + rng.int(7, 200) * DAY_MS);
  }

  // languages and scores
  const candidateLanguages = makeLanguages(
    rng,
    ref,
    origin.languages,
    hostInfo.languages,
    host === nationality,
    primary.group,
  );
  const englishLevel = candidateLanguages.find((l) => l.languageIsoCode === 'en')?.spokenLevel ?? 0;
  const frenchLevel = candidateLanguages.find((l) => l.languageIsoCode === 'fr')?.spokenLevel ?? 0;
  const exams = sparse ? [] : makeExams(rng, englishLevel, createdYear, primary.group);
  // The latest IELTS whose score is a band (not "Awaiting results").
  const ielts = exams.find((e) => (e.exam === 'IELTS_GEN' || e.exam === 'IELTS_ACA') && BAND.test(e.score ?? ''));
  if (englishLevel > 0) doc.englishAssessmentScoreIelts = ielts?.score ?? ieltsBand(englishLevel).toFixed(1);
  if (ielts?.score) doc.ieltsScore = Number(ielts.score);
  if (frenchLevel > 0) doc.frenchAssessmentScoreNclc = Math.min(12, frenchLevel * 2 - rng.int(0, 1));

  // refugee-agency and relief-agency registration
  const registered = rng.weighted<YesNoUnsure>([
    { value: 'YES', weight: 65 },
    { value: 'NO', weight: 25 },
    { value: 'UNSURE', weight: 5 },
    { value: 'NO_RESPONSE', weight: 5 },
  ]);
  doc.refugeeAgencyRegistered = registered;
  doc.refugeeAgencyStatus =
    registered === 'YES'
      ? rng.pick(['MANDATE_REFUGEE', 'REGISTERED_ASYLUM', 'REGISTERED_STATELESS', 'REGISTERED_STATUS_UNKNOWN'] as const)
      : registered === 'NO'
        ? 'NOT_REGISTERED'
        : rng.pick(['UNSURE', 'NO_RESPONSE'] as const);
  doc.refugeeAgencyNotRegStatus =
    registered === 'YES' ? 'NA' : rng.pick(['WAS_REGISTERED', 'NEVER_REGISTERED', 'REGISTERING', 'UNSURE'] as const);
  // Only Palestine refugees register with the relief agency.
  const relief: YesNoUnsure = nationality === 'PS' ? (rng.chance(0.85) ? 'YES' : 'NO') : 'NO';
  doc.reliefAgencyRegistered = relief;
  doc.reliefAgencyNotRegStatus = relief === 'YES' ? 'NA' : nationality === 'PS' ? 'NEVER_REGISTERED' : 'NA';

  // family
  const dependants = makeDependants(rng, maritalStatus, yearOfBirth, createdYear, gender, pair);
  doc.numberDependants = dependants.length;
  if (PARTNERED.has(maritalStatus)) {
    doc.partnerRegistered = pair ? 'YES' : yesNoUnsure(rng, 0.15);
    if (pair) doc.partnerPublicId = pair.partner.publicId;
    doc.partnerCitizenship = [numericCountry(partner?.nationalityIsoCode ?? nationality)];
    doc.partnerEduLevel = rng.pick(ref.educationLevels).level;
    const partnerEnglish = yesNo(rng, 0.4);
    doc.partnerEnglish = partnerEnglish;
    if (partnerEnglish === 'YES') doc.partnerEnglishLevel = rng.pick(ref.languageLevels);
    const partnerIelts =
      partnerEnglish === 'YES' ? rng.pick(['YES_GENERAL', 'YES_ACADEMIC', 'NO', 'UNSURE'] as const) : 'NO';
    doc.partnerIelts = partnerIelts;
    if (partnerIelts === 'YES_GENERAL' || partnerIelts === 'YES_ACADEMIC') {
      doc.partnerIeltsScore = (rng.int(8, 16) / 2).toFixed(1);
      doc.partnerIeltsYr = rng.int(Math.max(2015, createdYear - 5), createdYear);
    }
    doc.partnerOccupationIsco08Code =
      pair?.partnerOccupation || planOccupations(rng, sources.occupations, ref)[0]?.code || primary.code;
  }

  // nested lists
  const maxEducation = pickEducationLevel(rng, ref, primary.group);
  doc.maxEducationLevel = maxEducation.level;
  doc.candidateCertifications = sparse ? [] : makeCertifications(rng, primary, created);
  doc.candidateCitizenships = makeCitizenships(rng, nationality, host, bornInHost, created);
  const destinations = makeDestinations(rng);
  doc.candidateDestinations = destinations;
  doc.candidateEducations = makeEducations(
    rng,
    ref,
    maxEducation,
    primary,
    nationality,
    host,
    homeCity,
    city,
    yearOfBirth,
    createdYear,
  );
  doc.candidateExams = exams;
  doc.candidateLanguages = candidateLanguages;
  doc.candidateOccupations = occupationsPlanned.map((occupation, i) =>
    makeOccupation(rng, occupation, i, workingYears, yearOfArrival, createdYear, nationality, host, homeCity, city),
  );
  doc.candidateSkills = makeSkills(rng, occupationsPlanned);
  doc.candidateDependants = dependants;
  doc.candidateVisaChecks =
    sparse || rng.chance(0.35)
      ? []
      : makeVisaChecks(rng, sources.jobs, destinations, occupationsPlanned, yearOfBirth, createdYear);
  return doc;
}

/** ISO 3166-1 numeric code: the integer form of a country, as partnerCitizenship holds. */
function numericCountry(isoCode: string): number {
  return Number(alpha2ToNumeric(isoCode) ?? 0);
}
