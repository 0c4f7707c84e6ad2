/**
 * MongoDB document shapes of the `candidates`, `jobOpportunities`, `savedLists` and `offers`
 * collections. They mirror the read model of the contract (contract section 2.2) field for field,
 * except that every reference to reference data is stored as its code or id (resolved by
 * per-request loaders) and that nothing identifying is ever stored here: identity data lives
 * in `candidateIdentities` (see identity-document.ts).
 *
 * Conventions:
 * - calendar dates (contract "date") are ISO strings `YYYY-MM-DD`; date-times are BSON dates;
 * - country codes are ISO 3166-1 alpha-2 in upper case, ISCO-08 codes 4-digit strings,
 *   language codes ISO 639-1 in lower case;
 * - optional fields are absent rather than null.
 */

import { searchFieldsOf, type SearchFields } from './search-fields';

export type YesNo = 'NO_RESPONSE' | 'YES' | 'NO';
export type YesNoUnsure = 'NO_RESPONSE' | 'YES' | 'NO' | 'UNSURE';

export const CANDIDATE_STATUSES = [
  'ACTIVE',
  'AUTONOMOUS_EMPLOYMENT',
  'DELETED',
  'DRAFT',
  'EMPLOYED',
  'INCOMPLETE',
  'INELIGIBLE',
  'PENDING',
  'UNREACHABLE',
  'WITHDRAWN',
] as const;
export type CandidateStatus = (typeof CANDIDATE_STATUSES)[number];

export type Gender = 'MALE' | 'FEMALE' | 'OTHER';
export type EducationType = 'ASSOCIATE' | 'VOCATIONAL' | 'BACHELOR' | 'MASTERS' | 'DOCTORAL';

export interface CandidateCertificationDoc {
  name: string;
  institution: string;
  dateCompleted: string;
}

export interface CandidateCitizenshipDoc {
  hasPassport?: 'NO_RESPONSE' | 'VALID_PASSPORT' | 'INVALID_PASSPORT' | 'NO_PASSPORT';
  passportExp?: string;
  nationalityIsoCode?: string;
}

export interface DestinationDoc {
  countryIsoCode?: string;
  interest?: YesNoUnsure;
}

export interface CandidateEducationDoc {
  educationType?: EducationType;
  countryIsoCode?: string;
  /** id of an `educationMajors` entry */
  educationMajorId?: number;
  lengthOfCourseYears?: number;
  institution?: string;
  courseName?: string;
  yearCompleted?: number;
  incomplete?: boolean;
}

/** The exams a candidate may have taken (the `Exam` enum). */
export const EXAMS = [
  'NO_RESPONSE',
  'OET',
  'OET_READ',
  'OET_LIST',
  'OET_LANG',
  'IELTS_GEN',
  'IELTS_ACA',
  'TOEFL',
  'OTHER',
  'DET_OFFICIAL',
] as const;
export type Exam = (typeof EXAMS)[number];

export interface CandidateExamDoc {
  exam?: Exam;
  otherExam?: string;
  score?: string;
  year?: number;
}

export interface CandidateLanguageDoc {
  languageIsoCode?: string;
  /** `level` of a `languageLevels` entry */
  writtenLevel?: number;
  spokenLevel?: number;
}

export interface CandidateJobExperienceDoc {
  countryIsoCode?: string;
  companyName?: string;
  role?: string;
  startDate?: string;
  endDate?: string;
  fullTime?: boolean;
  paid?: boolean;
  description?: string;
}

export interface CandidateOccupationDoc {
  /**
   * Stored as a subdocument so that the searched path is exactly the contract's
   * `candidateOccupations.occupation.isco08Code` (multikey index).
   */
  occupation?: { isco08Code: string };
  yearsExperience?: number;
  candidateJobExperiences?: CandidateJobExperienceDoc[];
}

export interface CandidateSkillDoc {
  skill?: string;
  timePeriod?: string;
}

export interface DependantDoc {
  relation?:
    'NO_RESPONSE' | 'PARTNER' | 'CHILD' | 'PARENT' | 'SIBLING' | 'AUNT_UNCLE' | 'GRANDPARENT' | 'COUSIN' | 'OTHER';
  relationOther?: string;
  yearOfBirth?: number;
  gender?: Gender;
  registered?: 'NO_RESPONSE' | 'REFUGEE_AGENCY' | 'RELIEF_AGENCY' | 'NEITHER' | 'NA';
  healthConcern?: YesNo;
}

export interface CandidateVisaJobCheckDoc {
  /** publicId of a `jobOpportunities` entry */
  jobOppPublicId?: string;
  interest?: YesNo;
  qualification?: YesNo;
  occupationIsco08Code?: string;
  salaryTsmit?: YesNo;
  regional?: YesNo;
  eligible_494?: YesNo;
  eligible_186?: YesNo;
  eligibleOther?: 'NO_RESPONSE' | 'TEMP_SKILLED' | 'SPECIAL_HUM' | 'OTHER_HUM' | 'DIRECT_ENT' | 'POINTS_INDEP';
  putForward?: 'NO_RESPONSE' | 'YES' | 'YES_BUT' | 'DISCUSS_FURTHER' | 'SEEK_ADVICE' | 'NO';
  platformEligibility?: 'NO_RESPONSE' | 'PROCEED' | 'DISCUSS' | 'DONT_PROCEED';
  ageRequirement?: string;
  languagesRequired?: number[];
  languagesThresholdMet?: YesNo;
}

export interface CandidateVisaCheckDoc {
  countryIsoCode?: string;
  protection?: YesNo;
  englishThreshold?: YesNo;
  healthAssessment?: YesNo;
  characterAssessment?: YesNo;
  securityRisk?: YesNo;
  overallRisk?: 'NO_RESPONSE' | 'LOW' | 'MEDIUM' | 'HIGH';
  validTravelDocs?: 'NO_RESPONSE' | 'VALID' | 'EXPIRED' | 'NONE';
  pathwayAssessment?: YesNoUnsure;
  destinationFamily?:
    'NO_RESPONSE' | 'NO_RELATION' | 'CHILD' | 'PARENT' | 'SIBLING' | 'AUNT_UNCLE' | 'GRANDPARENT' | 'COUSIN' | 'OTHER';
  candidateVisaJobChecks?: CandidateVisaJobCheckDoc[];
}

export type HowHeardAboutUs =
  | 'ONLINE_SEARCH'
  | 'SOCIAL_NETWORK_1'
  | 'SOCIAL_NETWORK_2'
  | 'PROFESSIONAL_NETWORK'
  | 'SOCIAL_NETWORK_3'
  | 'MESSAGING_APP'
  | 'VIDEO_PLATFORM'
  | 'FRIEND_COLLEAGUE_REFERRAL'
  | 'UNIVERSITY_SCHOOL_REFERRAL'
  | 'EMPLOYER_REFERRAL'
  | 'EVENT_WEBINAR'
  | 'INFORMATION_SESSION'
  | 'COMMUNITY_CENTRE_POSTING_FLYERS'
  | 'OUTREACH_WORKER'
  | 'NGO'
  | 'REFUGEE_AGENCY'
  | 'PARTNER_ORG_1'
  | 'PARTNER_ORG_2'
  | 'PARTNER_ORG_3'
  | 'PARTNER_ORG_4'
  | 'OTHER';

/** Whether searches without includeEmployed show a candidate: every status but EMPLOYED (contract section 3). */
export function isListed(status: CandidateStatus): boolean {
  return status !== 'EMPLOYED';
}

/**
 * A candidate counts in at most this many values of a multi-valued statistics dimension
 * (OCCUPATION, LANGUAGE): this bounds what one person can change in a statistics answer, which
 * the noise is scaled to (src/statistics).
 */
export const MAX_VALUES_PER_CANDIDATE = 3;

/**
 * The distinct values of a list, in the list's order, at most MAX_VALUES_PER_CANDIDATE of
 * them (missing values skipped).
 */
function firstDistinct(values: readonly (string | undefined)[]): string[] {
  const kept: string[] = [];
  for (const value of values) {
    if (kept.length === MAX_VALUES_PER_CANDIDATE) break;
    if (value !== undefined && !kept.includes(value)) kept.push(value);
  }
  return kept;
}

/** The fields stored with a candidate that are derived from it, and never read back. */
export interface DerivedCandidateFields extends SearchFields {
  listed: boolean;
  statisticsOccupations: { isco08Code: string }[];
  statisticsLanguages: { languageIsoCode: string }[];
}

/**
 * A candidate as stored: the read model and fields derived from it, never read back (the
 * repository leaves them out of every candidate it returns). Written with every candidate
 * (toStoredCandidate), backfilled at start for older data (CandidateRepository.backfillListed,
 * backfillStatisticsLists).
 *
 * - `listed`, from its status (isListed), so that "not EMPLOYED" is one value of an indexed field
 *   (one key range per filter value, walked in search order) rather than nine statuses merged.
 * - `statisticsOccupations` and `statisticsLanguages`: the codes the candidate counts under in
 *   statistics, its first MAX_VALUES_PER_CANDIDATE distinct ones (bounded contribution). Stored
 *   rather than cut in each query so that the embedded store counts them from index entries
 *   (statistics-indexes.ts); subdocuments, as the store's covered counting unwinds an array of
 *   documents.
 * - the search fields (search-fields.ts): conditions on one entry of a list as exact index keys.
 */
export type StoredCandidateDoc = CandidateDoc & DerivedCandidateFields;

/** The statistics lists of a candidate (DerivedCandidateFields), from its occupations and languages. */
export function statisticsListsOf(
  candidate: Pick<CandidateDoc, 'candidateOccupations' | 'candidateLanguages'>,
): Pick<DerivedCandidateFields, 'statisticsOccupations' | 'statisticsLanguages'> {
  return {
    statisticsOccupations: firstDistinct(
      (candidate.candidateOccupations ?? []).map((item) => item.occupation?.isco08Code),
    ).map((isco08Code) => ({ isco08Code })),
    statisticsLanguages: firstDistinct((candidate.candidateLanguages ?? []).map((item) => item.languageIsoCode)).map(
      (languageIsoCode) => ({ languageIsoCode }),
    ),
  };
}

/**
 * The fields derived from a candidate, as toStoredCandidate stores them; `occupationName` gives
 * the names of occupation codes that the keyword search reads (searchFieldsOf).
 */
export function derivedFieldsOf(
  candidate: CandidateDoc,
  occupationName?: (isco08Code: string) => string | undefined,
): DerivedCandidateFields {
  return {
    listed: isListed(candidate.status),
    ...statisticsListsOf(candidate),
    ...searchFieldsOf(candidate, occupationName),
  };
}

/**
 * The document to store for a candidate (a copy: the driver adds `_id` to what it inserts): the
 * one place every write of a candidate goes through. Without the names of occupations
 * (storedCandidateWith), the keyword search finds no occupation name.
 */
export function toStoredCandidate(candidate: CandidateDoc): StoredCandidateDoc {
  return { ...candidate, ...derivedFieldsOf(candidate) };
}

/** toStoredCandidate with the names of occupation codes (the service passes its reference data's). */
export function storedCandidateWith(
  occupationName: (isco08Code: string) => string | undefined,
): (candidate: CandidateDoc) => StoredCandidateDoc {
  return (candidate) => ({ ...candidate, ...derivedFieldsOf(candidate, occupationName) });
}

/** One document of `candidates`: the anonymised read model. */
export interface CandidateDoc {
  /** 22-character base64url public id; unique. */
  publicId: string;
  /** Sort key of every search: (createdDate, publicId) gives a stable, total order. */
  createdDate: Date;
  status: CandidateStatus;
  /** Organisation that registered the candidate (registrarId of the register request). */
  registrarId?: string;

  gender?: Gender;
  yearOfBirth?: number;
  city?: string;
  countryIsoCode?: string;
  birthCountryIsoCode?: string;
  nationalityIsoCode?: string;
  maritalStatus?: 'NO_RESPONSE' | 'MARRIED' | 'ENGAGED' | 'DEFACTO' | 'SINGLE' | 'DIVORCED' | 'SEPARATED' | 'WIDOWER';
  candidateMessage?: string;
  yearOfArrival?: number;
  homeLocation?: string;
  hostChallenges?: string;
  hostEntryLegally?: YesNo;
  hostEntryYear?: number;
  residenceStatus?: 'NO_RESPONSE' | 'LEGAL_RES' | 'ILLEGAL_RES' | 'OTHER';
  mediaWillingness?: string;
  howHeardAboutUs?: HowHeardAboutUs;

  contactConsentPlatformPartners?: boolean;
  contactConsentRegistration?: boolean;
  refugeeAgencyConsent?: YesNo;
  monitoringEvaluationConsent?: YesNo;

  availDate?: string;
  availImmediate?: YesNo;
  availImmediateJobOps?: string;
  availImmediateReason?: 'FAMILY' | 'HEALTH' | 'CURRENT_WORK' | 'STUDIES' | 'OTHER';
  arrestImprison?: YesNoUnsure;
  asylumYear?: string;
  canDrive?: YesNo;
  conflict?: YesNo;
  crimeConvict?: YesNoUnsure;
  destLimit?: YesNo;
  drivingLicense?: 'NO_RESPONSE' | 'VALID' | 'EXPIRED' | 'NONE';
  drivingLicenseCountryIsoCode?: string;
  drivingLicenseExp?: string;
  familyMove?: YesNo;
  healthIssues?: YesNo;
  covidVaccinated?: YesNo;
  covidVaccinatedDate?: string;
  covidVaccineName?: string;
  covidVaccinatedStatus?: 'NO_RESPONSE' | 'FULL' | 'PARTIAL';
  militaryService?: YesNo;
  militaryWanted?: YesNoUnsure;
  militaryStart?: string;
  militaryEnd?: string;
  intRecruitReasons?: ('NO_RESPONSE' | 'CANT_RETURN_HOME' | 'CITIZENSHIP' | 'EXPERIENCE' | 'CHILDREN' | 'OTHER')[];
  intRecruitRural?: YesNoUnsure;
  leftHomeReasons?: ('NO_RESPONSE' | 'SAFETY' | 'JOB' | 'OTHER')[];
  returnedHome?: YesNoUnsure;
  returnHomeSafe?: YesNoUnsure;
  returnHomeFuture?: YesNoUnsure;
  resettleThird?: YesNo;
  visaIssues?: YesNoUnsure;
  visaReject?: YesNoUnsure;
  workAbroad?: YesNo;
  workPermit?: 'NO_RESPONSE' | 'YES_NOT_DESIRED' | 'YES_DESIRED' | 'NO';
  workPermitDesired?: YesNoUnsure;
  fullIntakeCompletedDate?: Date;
  miniIntakeCompletedDate?: Date;

  englishAssessmentScoreIelts?: string;
  ieltsScore?: number;
  frenchAssessmentScoreNclc?: number;

  refugeeAgencyRegistered?: YesNoUnsure;
  refugeeAgencyStatus?:
    | 'NO_RESPONSE'
    | 'MANDATE_REFUGEE'
    | 'REGISTERED_ASYLUM'
    | 'REGISTERED_STATELESS'
    | 'REGISTERED_STATUS_UNKNOWN'
    | 'NOT_REGISTERED'
    | 'UNSURE'
    | 'NA';
  refugeeAgencyNotRegStatus?: 'NO_RESPONSE' | 'WAS_REGISTERED' | 'NEVER_REGISTERED' | 'REGISTERING' | 'UNSURE' | 'NA';
  reliefAgencyRegistered?: YesNoUnsure;
  reliefAgencyNotRegStatus?: 'NO_RESPONSE' | 'WAS_REGISTERED' | 'NEVER_REGISTERED' | 'REGISTERING' | 'UNSURE' | 'NA';

  numberDependants?: number;
  partnerRegistered?: YesNoUnsure;
  partnerPublicId?: string;
  /** ISO 3166-1 numeric codes (760 = SY) of the partner's citizenships: the contract has integers here, and countries no other integer id. */
  partnerCitizenship?: number[];
  /** `level` of an `educationLevels` entry */
  partnerEduLevel?: number;
  partnerEnglish?: YesNo;
  /** `level` of a `languageLevels` entry */
  partnerEnglishLevel?: number;
  partnerIelts?: 'NO_RESPONSE' | 'YES_GENERAL' | 'YES_ACADEMIC' | 'NO' | 'UNSURE';
  partnerIeltsScore?: string;
  partnerIeltsYr?: number;
  partnerOccupationIsco08Code?: string;

  /** `level` of an `educationLevels` entry */
  maxEducationLevel?: number;
  candidateCertifications?: CandidateCertificationDoc[];
  candidateCitizenships?: CandidateCitizenshipDoc[];
  candidateDestinations?: DestinationDoc[];
  candidateEducations?: CandidateEducationDoc[];
  candidateExams?: CandidateExamDoc[];
  candidateLanguages?: CandidateLanguageDoc[];
  candidateOccupations?: CandidateOccupationDoc[];
  candidateSkills?: CandidateSkillDoc[];
  candidateDependants?: DependantDoc[];
  candidateVisaChecks?: CandidateVisaCheckDoc[];
}

export type JobOpportunityStage =
  | 'PROSPECT'
  | 'BRIEFING'
  | 'PITCHING'
  | 'MOU'
  | 'IDENTIFYING_ROLES'
  | 'CANDIDATE_SEARCH'
  | 'VISA_ELIGIBILITY'
  | 'CV_PREPARATION'
  | 'CV_REVIEW'
  | 'RECRUITMENT_PROCESS'
  | 'JOB_OFFER'
  | 'TRAINING'
  | 'VISA_PREPARATION'
  | 'POST_HIRE_ENGAGEMENT'
  | 'HIRING_COMPLETED'
  | 'INELIGIBLE_EMPLOYER'
  | 'INELIGIBLE_OCCUPATION'
  | 'INELIGIBLE_REGION'
  | 'NO_INTEREST'
  | 'NO_JOB_OFFER'
  | 'NO_PR_PATHWAY'
  | 'NO_SUITABLE_CANDIDATES'
  | 'NO_VISA'
  | 'TOO_EXPENSIVE'
  | 'TOO_HIGH_WAGE'
  | 'TOO_LONG'
  | 'MOU_ISSUE'
  | 'TRAINING_NOT_COMPLETED';

/** One document of `jobOpportunities` (anonymised: the employer is only a country and a flag). */
export interface JobOpportunityDoc {
  publicId: string;
  countryIsoCode?: string;
  employerEntity?: { countryIsoCode?: string; hasHiredInternationally?: boolean };
  evergreen?: boolean;
  publishedDate?: Date;
  stage?: JobOpportunityStage;
  submissionDueDate?: string;
  hiringCommitment?: number;
  employerHiredInternationally?: string;
}

/** One document of `savedLists`: candidates in list order. */
export interface SavedListDoc {
  publicId: string;
  name: string;
  candidatePublicIds: string[];
  createdDate: Date;
  /** the API key that made the list (a partner's own list); absent: loaded with the data, read-only, readable by every key */
  ownerKeyId?: string;
  /** when a partner's list last changed */
  updatedDate?: Date;
}

export type OfferReason =
  | 'JOB_OPPORTUNITY'
  | 'EDUCATION_SERVICE'
  | 'MIGRATION_SERVICE'
  | 'FINANCIAL_SUPPORT_SERVICE'
  | 'SETTLEMENT_SERVICE'
  | 'OTHER';

/** One document of `offers`: a job match (kind JOB_MATCH, reason JOB_OPPORTUNITY) or an offer to assist. */
export interface OfferDoc {
  publicId: string;
  kind: 'JOB_MATCH' | 'OFFER_TO_ASSIST';
  reason: OfferReason;
  candidates: { publicId: string; couponCode?: string }[];
  additionalNotes?: string;
  /** id of the API key that made the request: the caller is the key, never the body. */
  apiKeyId: string;
  createdDate: Date;
}
