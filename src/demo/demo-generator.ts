import { alpha2ToNumeric } from 'i18n-iso-countries';
import type {
  CandidateCertificationDoc,
  CandidateCitizenshipDoc,
  CandidateDoc,
  CandidateEducationDoc,
  CandidateExamDoc,
  CandidateJobExperienceDoc,
  CandidateLanguageDoc,
  CandidateOccupationDoc,
  CandidateSkillDoc,
  CandidateStatus,
  CandidateVisaCheckDoc,
  CandidateVisaJobCheckDoc,
  DependantDoc,
  DestinationDoc,
  EducationType,
  Gender,
  HowHeardAboutUs,
  JobOpportunityDoc,
  JobOpportunityStage,
  SavedListDoc,
  YesNo,
  YesNoUnsure,
} from '../candidates/candidate-document';
import { CANDIDATE_STATUSES } from '../candidates/candidate-document';
import {
  countries,
  educationLevels,
  educationMajors,
  languageLevels,
  languages,
  occupations,
} from '../reference/reference-data';
import { DemoRandom } from './demo-random';
import {
  AVAIL_IMMEDIATE_JOB_OPS,
  CANDIDATE_MESSAGES,
  CERTIFICATIONS,
  COMMON_OCCUPATIONS,
  COMPANY_PATTERNS,
  COVID_VACCINES,
  DESTINATIONS,
  GROUP_MAJORS,
  HOST_CHALLENGES,
  HOSTS,
  INSTITUTION_PATTERNS,
  JOB_DESCRIPTIONS,
  MEDIA_WILLINGNESS,
  ORIGINS,
  OTHER_EXAMS,
  OTHER_RELATIONS,
  POINTS_TEST_DESTINATION,
  REGISTRAR_IDS,
  SAVED_LIST_NAMES,
  SAVED_LIST_SIZES,
  SKILL_PERIODS,
  SKILLS,
  occupationGroupOf,
  type OccupationGroup,
  type Weighted,
} from './demo-vocabulary';

/**
 * Deterministic demo data: the same seed and size always give the same documents, down to
 * publicIds and dates. Every random choice comes from seeded PRNG streams (one per kind of
 * document, so that e.g. the job opportunities do not change with the number of candidates
 * drawn after them); no clock and no crypto is read. All dates fall in a fixed window
 * (candidates created 2019-01-01 to 2025-06-30), so the data does not age with the calendar.
 *
 * Nothing identifying is produced: no names, e-mail addresses, phone numbers or dates of
 * birth; free texts come from fixed phrases (demo-vocabulary.ts).
 */

const DAY_MS = 86_400_000;
const CREATED_FROM = Date.UTC(2019, 0, 1);
const CREATED_TO = Date.UTC(2025, 5, 30);
const JOBS_FROM = Date.UTC(2023, 0, 1);
const LISTS_FROM = Date.UTC(2025, 6, 1);

/** PRNG streams of one seed. Never renumber: that would change every seeded data set. */
const STREAM = { candidateIds: 1, jobs: 2, candidates: 3, savedLists: 4 } as const;

/** The reference data the generator draws codes from (real codes only). */
export interface DemoReference {
  readonly countryCodes: ReadonlySet<string>;
  readonly languageCodes: ReadonlySet<string>;
  /** language levels a speaker can have (level 0, "no knowledge", left out), ascending */
  readonly languageLevels: readonly number[];
  readonly occupationCodes: readonly string[];
  readonly occupationNames: ReadonlyMap<string, string>;
  /** ascending by level */
  readonly educationLevels: readonly { level: number; educationType: EducationType | null }[];
  readonly educationMajors: ReadonlyMap<number, string>;
}

/** The demo reference built from the shipped reference data. */
export function shippedDemoReference(): DemoReference {
  const occupationDocs = occupations();
  return {
    countryCodes: new Set(countries().map((c) => c.isoCode)),
    languageCodes: new Set(languages().map((l) => l.isoCode)),
    languageLevels: languageLevels()
      .map((l) => l.level)
      .filter((level) => level > 0)
      .sort((a, b) => a - b),
    occupationCodes: occupationDocs.map((o) => o.isco08Code),
    occupationNames: new Map(occupationDocs.map((o) => [o.isco08Code, o.name])),
    educationLevels: educationLevels()
      .map(({ level, educationType }) => ({ level, educationType }))
      .sort((a, b) => a.level - b.level),
    educationMajors: new Map(educationMajors().map((m) => [m.id, m.name])),
  };
}

/** Seeds are 32-bit: the PRNG reduces larger numbers modulo 2^32, so two seeds would give one data set. */
export const MAX_DEMO_SEED = 0xffff_ffff;

export function isDemoSeed(seed: number): boolean {
  return Number.isInteger(seed) && seed >= 0 && seed <= MAX_DEMO_SEED;
}

export interface DemoDataOptions {
  /** number of candidates */
  candidates: number;
  seed: number;
  reference?: DemoReference;
}

export interface DemoData {
  jobOpportunities: JobOpportunityDoc[];
  candidates: CandidateDoc[];
  savedLists: SavedListDoc[];
}

/** The whole demo data set in memory (for tests and small sets; seeding streams instead). */
export function generateDemoData(options: DemoDataOptions): DemoData {
  const generator = new DemoGenerator(options);
  return {
    jobOpportunities: generator.jobOpportunities(),
    candidates: [...generator.candidates()],
    savedLists: generator.savedLists(),
  };
}

interface JobInfo {
  publicId: string;
  countryIsoCode: string;
  occupationIsco08Code: string;
}

interface PlannedOccupation {
  code: string;
  group: OccupationGroup;
  role: string;
  major: number | undefined;
}

/** Context a partner candidate takes over from the first of a pair. */
interface PairContext {
  partner: CandidateDoc;
  partnerOccupation: string;
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

const JOB_STAGES: readonly JobOpportunityStage[] = [
  'PROSPECT', 'BRIEFING', 'PITCHING', 'MOU', 'IDENTIFYING_ROLES', 'CANDIDATE_SEARCH', 'VISA_ELIGIBILITY',
  'CV_PREPARATION', 'CV_REVIEW', 'RECRUITMENT_PROCESS', 'JOB_OFFER', 'TRAINING', 'VISA_PREPARATION',
  'POST_HIRE_ENGAGEMENT', 'HIRING_COMPLETED', 'INELIGIBLE_EMPLOYER', 'INELIGIBLE_OCCUPATION', 'INELIGIBLE_REGION',
  'NO_INTEREST', 'NO_JOB_OFFER', 'NO_PR_PATHWAY', 'NO_SUITABLE_CANDIDATES', 'NO_VISA', 'TOO_EXPENSIVE',
  'TOO_HIGH_WAGE', 'TOO_LONG', 'MOU_ISSUE', 'TRAINING_NOT_COMPLETED',
];

const PARTNERED = new Set(['MARRIED', 'ENGAGED', 'DEFACTO']);

/**
 * Generates one demo data set. Candidates are produced lazily and in a fixed order, so a
 * million of them can be written in batches without holding them all in memory.
 */
export class DemoGenerator {
  readonly size: number;
  readonly seed: number;
  private readonly reference: DemoReference;
  /** publicIds of every candidate, drawn up front so that partners and lists can point at them */
  private readonly candidateIds: readonly string[];
  private readonly jobs: readonly JobOpportunityDoc[];
  private readonly jobInfos: readonly JobInfo[];
  private readonly jobsByCountry: ReadonlyMap<string, readonly JobInfo[]>;
  private readonly commonOccupations: readonly Weighted<PlannedOccupation>[];
  private readonly origins: readonly Weighted<string>[];

  constructor(options: DemoDataOptions) {
    if (!Number.isSafeInteger(options.candidates) || options.candidates < 0) {
      throw new RangeError('candidates must be a non-negative integer');
    }
    if (!isDemoSeed(options.seed)) throw new RangeError(`seed must be an integer from 0 to ${MAX_DEMO_SEED}`);
    this.size = options.candidates;
    this.seed = options.seed;
    this.reference = options.reference ?? shippedDemoReference();

    const known = new Set(this.reference.occupationCodes);
    this.commonOccupations = COMMON_OCCUPATIONS.filter((o) => known.has(o.code)).map((o) => ({
      value: { code: o.code, group: o.group, role: o.role, major: o.major },
      weight: o.weight,
    }));
    this.origins = Object.entries(ORIGINS).map(([code, origin]) => ({ value: code, weight: origin.weight }));

    const ids = new DemoRandom(this.seed, STREAM.candidateIds);
    const candidateIds: string[] = new Array<string>(this.size);
    for (let i = 0; i < this.size; i++) candidateIds[i] = ids.publicId();
    this.candidateIds = candidateIds;

    const { docs, infos } = this.makeJobs();
    this.jobs = docs;
    this.jobInfos = infos;
    const byCountry = new Map<string, JobInfo[]>();
    for (const info of infos) {
      const list = byCountry.get(info.countryIsoCode) ?? [];
      list.push(info);
      byCountry.set(info.countryIsoCode, list);
    }
    this.jobsByCountry = byCountry;
  }

  /**
   * The publicIds of the candidates in generation order. A prefix does not depend on the
   * size: the first ids of a seed are the same in a set of 10 and of a million.
   */
  candidatePublicIds(): readonly string[] {
    return this.candidateIds;
  }

  /** The job opportunities the candidates' visa job checks point at. */
  jobOpportunities(): JobOpportunityDoc[] {
    return this.jobs.map((job) => structuredClone(job));
  }

  /** Every candidate, in generation order; each call starts the same sequence again. */
  *candidates(): Generator<CandidateDoc> {
    const rng = new DemoRandom(this.seed, STREAM.candidates);
    // The first ten candidates take every status once, so even a small set holds them all.
    const firstStatuses = rng.sample(CANDIDATE_STATUSES, CANDIDATE_STATUSES.length);
    const statusOf = (index: number): CandidateStatus => firstStatuses[index] ?? rng.weighted(STATUS_WEIGHTS);

    let index = 0;
    while (index < this.size) {
      if (index + 1 < this.size && rng.chance(0.06)) {
        // A couple who both registered: each points at the other.
        const first = this.makeCandidate(rng, index, statusOf(index), null, true);
        const firstOccupation = first.candidateOccupations?.[0]?.occupation?.isco08Code ?? '';
        const second = this.makeCandidate(rng, index + 1, statusOf(index + 1), {
          partner: first,
          partnerOccupation: firstOccupation,
        }, true);
        first.partnerPublicId = second.publicId;
        first.partnerRegistered = 'YES';
        const secondOccupation = second.candidateOccupations?.[0]?.occupation?.isco08Code;
        if (secondOccupation) first.partnerOccupationIsco08Code = secondOccupation;
        yield first;
        yield second;
        index += 2;
      } else {
        const candidate = this.makeCandidate(rng, index, statusOf(index), null, false);
        // Some partners registered earlier, the link recorded on one side only.
        if (index > 0 && PARTNERED.has(candidate.maritalStatus ?? '') && rng.chance(0.05)) {
          candidate.partnerPublicId = this.candidateIds[rng.int(0, index - 1)];
          candidate.partnerRegistered = 'YES';
        }
        yield candidate;
        index += 1;
      }
    }
  }

  /** Saved lists of varied sizes (one above the page limit of 100), in their saved order. */
  savedLists(): SavedListDoc[] {
    const rng = new DemoRandom(this.seed, STREAM.savedLists);
    const sizes = SAVED_LIST_SIZES.filter((size) => size <= this.size);
    if (sizes.length === 0 && this.size > 0) sizes.push(this.size);
    return sizes.map((size, i) => ({
      publicId: rng.publicId(),
      name: SAVED_LIST_NAMES[i % SAVED_LIST_NAMES.length],
      candidatePublicIds: rng.sample(this.candidateIds, size),
      createdDate: new Date(LISTS_FROM + rng.int(0, 90) * DAY_MS + rng.int(0, 86_399) * 1000),
    }));
  }

  private makeJobs(): { docs: JobOpportunityDoc[]; infos: JobInfo[] } {
    const rng = new DemoRandom(this.seed, STREAM.jobs);
    const count = Math.min(500, Math.max(12, Math.ceil(this.size / 200)));
    const docs: JobOpportunityDoc[] = [];
    const infos: JobInfo[] = [];
    for (let i = 0; i < count; i++) {
      const publicId = rng.publicId();
      const countryIsoCode = rng.weighted(DESTINATIONS);
      const occupation = rng.weighted(this.commonOccupations);
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
    return { docs, infos };
  }

  private makeCandidate(
    rng: DemoRandom,
    index: number,
    status: CandidateStatus,
    pair: PairContext | null,
    coupled: boolean,
  ): CandidateDoc {
    const ref = this.reference;
    const partner = pair?.partner;
    const created = partner
      ? Math.min(CREATED_TO - 1000, partner.createdDate.getTime() + rng.int(0, 30 * 86_400) * 1000)
      : CREATED_FROM + rng.int(0, (CREATED_TO - CREATED_FROM) / 1000 - 1) * 1000;
    const createdYear = new Date(created).getUTCFullYear();

    const nationality = partner?.nationalityIsoCode ?? rng.weighted(this.origins);
    const origin = ORIGINS[nationality] ?? ORIGINS.SY;
    const host = partner?.countryIsoCode ?? rng.weighted(origin.hosts);
    const hostInfo = HOSTS[host] ?? { cities: [], languages: [] };
    const city = partner?.city ?? (hostInfo.cities.length > 0 ? rng.pick(hostInfo.cities) : undefined);
    const homeCity = partner?.homeLocation ?? rng.pick(origin.homeCities);

    const age = rng.weighted<[number, number]>([
      { value: [19, 24], weight: 15 },
      { value: [25, 34], weight: 45 },
      { value: [35, 44], weight: 28 },
      { value: [45, 58], weight: 12 },
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

    const occupationsPlanned = this.planOccupations(rng);
    const primary = occupationsPlanned[0];
    const workingYears = Math.max(1, createdYear - yearOfBirth - 18);

    const doc: CandidateDoc = {
      publicId: this.candidateIds[index],
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
    const license = canDrive === 'YES' ? rng.pick(['VALID', 'EXPIRED'] as const) : rng.pick(['NONE', 'NO_RESPONSE'] as const);
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
    doc.intRecruitReasons = rng.sample(['CANT_RETURN_HOME', 'CITIZENSHIP', 'EXPERIENCE', 'CHILDREN', 'OTHER'] as const, rng.int(1, 3));
    doc.intRecruitRural = yesNoUnsure(rng, 0.5);
    doc.leftHomeReasons = rng.chance(0.85) ? (rng.chance(0.3) ? ['SAFETY', 'JOB'] : ['SAFETY']) : [rng.pick(['JOB', 'OTHER'] as const)];
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
    const candidateLanguages = this.makeLanguages(rng, origin.languages, hostInfo.languages, host === nationality);
    const englishLevel = candidateLanguages.find((l) => l.languageIsoCode === 'en')?.spokenLevel ?? 0;
    const frenchLevel = candidateLanguages.find((l) => l.languageIsoCode === 'fr')?.spokenLevel ?? 0;
    const exams = sparse ? [] : this.makeExams(rng, englishLevel, createdYear);
    const ielts = exams.find((e) => e.exam === 'IELTS_GEN' || e.exam === 'IELTS_ACA');
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
    const dependants = this.makeDependants(rng, maritalStatus, yearOfBirth, createdYear, gender, pair);
    doc.numberDependants = dependants.length;
    if (PARTNERED.has(maritalStatus)) {
      doc.partnerRegistered = pair ? 'YES' : yesNoUnsure(rng, 0.15);
      if (pair) doc.partnerPublicId = pair.partner.publicId;
      doc.partnerCitizenship = [numericCountry(partner?.nationalityIsoCode ?? nationality)];
      doc.partnerEduLevel = rng.pick(ref.educationLevels).level;
      const partnerEnglish = yesNo(rng, 0.4);
      doc.partnerEnglish = partnerEnglish;
      if (partnerEnglish === 'YES') doc.partnerEnglishLevel = rng.pick(ref.languageLevels);
      const partnerIelts = partnerEnglish === 'YES' ? rng.pick(['YES_GENERAL', 'YES_ACADEMIC', 'NO', 'UNSURE'] as const) : 'NO';
      doc.partnerIelts = partnerIelts;
      if (partnerIelts === 'YES_GENERAL' || partnerIelts === 'YES_ACADEMIC') {
        doc.partnerIeltsScore = (rng.int(8, 16) / 2).toFixed(1);
        doc.partnerIeltsYr = rng.int(Math.max(2015, createdYear - 5), createdYear);
      }
      doc.partnerOccupationIsco08Code = pair?.partnerOccupation || this.planOccupations(rng)[0]?.code || primary.code;
    }

    // nested lists
    const maxEducation = this.pickEducationLevel(rng, primary.group);
    doc.maxEducationLevel = maxEducation.level;
    doc.candidateCertifications = sparse ? [] : this.makeCertifications(rng, primary.group, created);
    doc.candidateCitizenships = this.makeCitizenships(rng, nationality, host, bornInHost, created);
    const destinations = this.makeDestinations(rng);
    doc.candidateDestinations = destinations;
    doc.candidateEducations = this.makeEducations(rng, maxEducation, primary, nationality, host, homeCity, city, yearOfBirth, createdYear);
    doc.candidateExams = exams;
    doc.candidateLanguages = candidateLanguages;
    doc.candidateOccupations = occupationsPlanned.map((occupation, i) =>
      this.makeOccupation(rng, occupation, i, workingYears, yearOfArrival, createdYear, nationality, host, homeCity, city),
    );
    doc.candidateSkills = this.makeSkills(rng, occupationsPlanned);
    doc.candidateDependants = dependants;
    doc.candidateVisaChecks =
      sparse || rng.chance(0.35) ? [] : this.makeVisaChecks(rng, destinations, occupationsPlanned, yearOfBirth, createdYear);
    return doc;
  }

  private planOccupations(rng: DemoRandom): PlannedOccupation[] {
    const count = rng.weighted([
      { value: 1, weight: 55 },
      { value: 2, weight: 35 },
      { value: 3, weight: 10 },
    ]);
    const planned: PlannedOccupation[] = [];
    const seen = new Set<string>();
    for (let attempt = 0; planned.length < count && attempt < 10; attempt++) {
      let next: PlannedOccupation;
      if (rng.chance(0.75) && this.commonOccupations.length > 0) {
        next = rng.weighted(this.commonOccupations);
      } else {
        const code = rng.pick(this.reference.occupationCodes);
        next = {
          code,
          group: occupationGroupOf(code),
          role: this.reference.occupationNames.get(code) ?? code,
          major: undefined,
        };
      }
      if (seen.has(next.code)) continue;
      seen.add(next.code);
      planned.push(next);
    }
    return planned;
  }

  private makeOccupation(
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
    const jobCount = rank === 0 ? rng.weighted([
      { value: 0, weight: 10 },
      { value: 1, weight: 55 },
      { value: 2, weight: 35 },
    ]) : rng.int(0, 1);
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

  private makeSkills(rng: DemoRandom, planned: readonly PlannedOccupation[]): CandidateSkillDoc[] {
    const pool = [...new Set(planned.flatMap((o) => SKILLS[o.group]))];
    return rng.sample(pool, rng.int(1, 4)).map((skill) => ({ skill, timePeriod: rng.pick(SKILL_PERIODS) }));
  }

  private makeLanguages(
    rng: DemoRandom,
    mother: readonly string[],
    hostLanguages: readonly string[],
    livesAtHome: boolean,
  ): CandidateLanguageDoc[] {
    const levels = this.reference.languageLevels;
    const top = levels.length - 1;
    const known = this.reference.languageCodes;
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

  private makeExams(rng: DemoRandom, englishLevel: number, createdYear: number): CandidateExamDoc[] {
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

  private pickEducationLevel(rng: DemoRandom, group: OccupationGroup): { level: number; educationType: EducationType | null } {
    const levels = this.reference.educationLevels;
    const professional = group === 'health' || group === 'it' || group === 'engineering' || group === 'education';
    const wanted: readonly (EducationType | null)[] = professional
      ? rng.weighted<readonly EducationType[]>([
          { value: ['BACHELOR'], weight: 65 },
          { value: ['MASTERS'], weight: 25 },
          { value: ['DOCTORAL'], weight: 5 },
          { value: ['ASSOCIATE'], weight: 5 },
        ])
      : rng.weighted<readonly (EducationType | null)[]>([
          { value: [null], weight: 40 },
          { value: ['VOCATIONAL'], weight: 35 },
          { value: ['ASSOCIATE'], weight: 10 },
          { value: ['BACHELOR'], weight: 15 },
        ]);
    let candidates = levels.filter((l) => wanted.includes(l.educationType));
    // Below tertiary: mostly upper or lower secondary, never "less than primary" for skilled workers.
    if (wanted.includes(null)) candidates = candidates.filter((l) => l.level >= 2);
    return candidates.length > 0 ? rng.pick(candidates) : rng.pick(levels);
  }

  private makeEducations(
    rng: DemoRandom,
    max: { level: number; educationType: EducationType | null },
    primary: PlannedOccupation,
    nationality: string,
    host: string,
    homeCity: string,
    hostCity: string | undefined,
    yearOfBirth: number,
    createdYear: number,
  ): CandidateEducationDoc[] {
    if (max.educationType === null) return [];
    const majors = this.reference.educationMajors;
    const groupMajors = GROUP_MAJORS[primary.group].filter((id) => majors.has(id));
    const majorId =
      primary.major !== undefined && majors.has(primary.major) && rng.chance(0.8)
        ? primary.major
        : groupMajors.length > 0
          ? rng.pick(groupMajors)
          : undefined;
    const entries: CandidateEducationDoc[] = [];
    const add = (educationType: EducationType, length: number, finishedAt: number): void => {
      const abroad = rng.chance(0.15) && hostCity !== undefined;
      const entry: CandidateEducationDoc = { educationType, countryIsoCode: abroad ? host : nationality };
      if (majorId !== undefined) entry.educationMajorId = majorId;
      entry.lengthOfCourseYears = length;
      const kind = educationType === 'VOCATIONAL' || educationType === 'ASSOCIATE' ? 'vocational' : 'tertiary';
      entry.institution = rng.pick(INSTITUTION_PATTERNS[kind]).replace('{city}', abroad ? hostCity : homeCity);
      if (majorId !== undefined) entry.courseName = majors.get(majorId);
      const incomplete = rng.chance(0.08);
      if (!incomplete) entry.yearCompleted = Math.min(createdYear, finishedAt);
      entry.incomplete = incomplete;
      entries.push(entry);
    };
    const bachelorLength = primary.group === 'health' && (primary.major === 912 || primary.major === 911) ? 6 : rng.int(4, 5);
    const bachelorEnd = yearOfBirth + 18 + bachelorLength + rng.int(0, 3);
    switch (max.educationType) {
      case 'VOCATIONAL':
        add('VOCATIONAL', rng.int(1, 2), yearOfBirth + 19 + rng.int(0, 4));
        break;
      case 'ASSOCIATE':
        add('ASSOCIATE', 2, yearOfBirth + 20 + rng.int(0, 3));
        break;
      case 'BACHELOR':
        add('BACHELOR', bachelorLength, bachelorEnd);
        break;
      case 'MASTERS':
        add('BACHELOR', bachelorLength, bachelorEnd);
        add('MASTERS', 2, bachelorEnd + 2 + rng.int(0, 3));
        break;
      case 'DOCTORAL':
        add('BACHELOR', bachelorLength, bachelorEnd);
        add('MASTERS', 2, bachelorEnd + 2);
        add('DOCTORAL', rng.int(3, 5), bachelorEnd + 6 + rng.int(0, 3));
        break;
    }
    return entries;
  }

  private makeCertifications(rng: DemoRandom, group: OccupationGroup, created: number): CandidateCertificationDoc[] {
    const count = rng.weighted([
      { value: 0, weight: 45 },
      { value: 1, weight: 40 },
      { value: 2, weight: 15 },
    ]);
    return rng.sample(CERTIFICATIONS[group], count).map((c) => ({
      name: c.name,
      institution: c.institution,
      dateCompleted: isoDate(created - rng.int(30, 3650) * DAY_MS),
    }));
  }

  private makeCitizenships(
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

  private makeDestinations(rng: DemoRandom): DestinationDoc[] {
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

  private makeDependants(
    rng: DemoRandom,
    maritalStatus: string,
    yearOfBirth: number,
    createdYear: number,
    gender: Gender,
    pair: PairContext | null,
  ): DependantDoc[] {
    if (pair) {
      // A partner who also registered shares the children; the partner is the one registered.
      return (pair.partner.candidateDependants ?? []).map((d) =>
        d.relation === 'PARTNER' ? { ...d, yearOfBirth: pair.partner.yearOfBirth, gender: pair.partner.gender } : { ...d },
      );
    }
    const result: DependantDoc[] = [];
    const registered = (): NonNullable<DependantDoc['registered']> =>
      rng.weighted([
        { value: 'REFUGEE_AGENCY', weight: 55 },
        { value: 'NEITHER', weight: 20 },
        { value: 'RELIEF_AGENCY', weight: 5 },
        { value: 'NA', weight: 10 },
        { value: 'NO_RESPONSE', weight: 10 },
      ] as const);
    if (PARTNERED.has(maritalStatus)) {
      result.push({
        relation: 'PARTNER',
        yearOfBirth: Math.min(createdYear - 19, yearOfBirth + rng.int(-6, 6)),
        gender: gender === 'MALE' ? 'FEMALE' : 'MALE',
        registered: registered(),
        healthConcern: yesNo(rng, 0.08),
      });
    }
    const hasChildren = maritalStatus !== 'SINGLE' && maritalStatus !== 'ENGAGED';
    const children = hasChildren ? rng.int(0, Math.min(5, Math.max(0, createdYear - yearOfBirth - 20))) : 0;
    for (let i = 0; i < children; i++) {
      result.push({
        relation: 'CHILD',
        yearOfBirth: rng.int(Math.min(createdYear, yearOfBirth + 20), createdYear),
        gender: rng.chance(0.5) ? 'MALE' : 'FEMALE',
        registered: registered(),
        healthConcern: yesNo(rng, 0.06),
      });
    }
    if (rng.chance(0.12)) {
      result.push({
        relation: 'PARENT',
        yearOfBirth: yearOfBirth - rng.int(20, 35),
        gender: rng.chance(0.5) ? 'MALE' : 'FEMALE',
        registered: registered(),
        healthConcern: yesNo(rng, 0.35),
      });
    }
    if (rng.chance(0.03)) {
      result.push({
        relation: 'OTHER',
        relationOther: rng.pick(OTHER_RELATIONS),
        yearOfBirth: rng.int(Math.max(yearOfBirth, createdYear - 17), createdYear),
        gender: rng.chance(0.5) ? 'MALE' : 'FEMALE',
        registered: registered(),
        healthConcern: yesNo(rng, 0.06),
      });
    }
    return result;
  }

  private makeVisaChecks(
    rng: DemoRandom,
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
      const jobs = this.jobsByCountry.get(countryIsoCode) ?? [];
      const pool = jobs.length > 0 ? jobs : this.jobInfos;
      check.candidateVisaJobChecks = rng
        .sample(pool, rng.int(1, 2))
        .map((job) => this.makeVisaJobCheck(rng, job, countryIsoCode, planned, yearOfBirth, createdYear));
      return check;
    });
  }

  private makeVisaJobCheck(
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
    check.eligibleOther = rng.pick(['TEMP_SKILLED', 'SPECIAL_HUM', 'OTHER_HUM', 'DIRECT_ENT', 'POINTS_INDEP', 'NO_RESPONSE'] as const);
    check.putForward = rng.pick(['YES', 'YES_BUT', 'DISCUSS_FURTHER', 'SEEK_ADVICE', 'NO', 'NO_RESPONSE'] as const);
    check.platformEligibility = rng.pick(['PROCEED', 'DISCUSS', 'DONT_PROCEED', 'NO_RESPONSE'] as const);
    const age = createdYear - yearOfBirth;
    check.ageRequirement = age < 45 ? 'Meets the age requirement (under 45)' : 'Over 45: exemption needed';
    // languagesRequired (integer language ids) stays unset: languages are keyed by ISO 639-1
    // code and have no integer id that such a list could point at.
    check.languagesThresholdMet = yesNo(rng, 0.55);
    return check;
  }
}

function yesNo(rng: DemoRandom, yes: number): YesNo {
  const r = rng.next();
  if (r < yes) return 'YES';
  return r < yes + (1 - yes) * 0.9 ? 'NO' : 'NO_RESPONSE';
}

function yesNoUnsure(rng: DemoRandom, yes: number): YesNoUnsure {
  const r = rng.next();
  if (r < yes) return 'YES';
  const rest = 1 - yes;
  if (r < yes + rest * 0.75) return 'NO';
  return r < yes + rest * 0.9 ? 'UNSURE' : 'NO_RESPONSE';
}

/** The IELTS band that roughly matches a language level index (1 = beginner … 6 = proficient). */
function ieltsBand(level: number): number {
  return Math.min(9, 3 + level * 0.5 + (level >= 4 ? 1 : 0));
}

/** ISO 3166-1 numeric code: the integer form of a country, as partnerCitizenship holds. */
function numericCountry(isoCode: string): number {
  return Number(alpha2ToNumeric(isoCode) ?? 0);
}

/** `YYYY-MM-DD` of a UTC time (toISOString is several times slower, and this runs millions of times). */
function isoDate(ms: number): string {
  const date = new Date(ms);
  const month = date.getUTCMonth() + 1;
  const day = date.getUTCDate();
  return `${date.getUTCFullYear()}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}
