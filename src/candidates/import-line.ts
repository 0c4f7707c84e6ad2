import { isPublicId, PUBLIC_ID_RULE } from 'candidate-documents';
import { isCalendarDate, isDateTime } from '../common/calendar-date';
import type { InputIssue } from '../errors';
import type { ReferenceCollection, ReferenceKey } from '../reference/reference-repository';
import type { ReferenceLookup } from './registration-service';
import { MAX_LIST_ITEMS, MAX_SHORT_TEXT_LENGTH, MAX_TEXT_LENGTH } from './registration-service';
import { CANDIDATE_STATUSES, EXAMS, type CandidateDoc, type JobOpportunityDoc } from 'candidate-documents';
import { hasRefusedCharacter, TEXT_RULES, type TextKind } from './text-input';

/**
 * One line of an import file read as a candidate: the contract's Candidate JSON (the shape
 * `GET /v1/candidates/{publicId}` answers) turned into the document stored for it, with every
 * rule the API applies to the same fields (text rules and bounds of registration, the contract's
 * enums, known reference data). Reasons name the field and the rule, never the value: an import
 * file comes from a system that also holds identity data.
 */

/** Fields of the identifiable candidate (registration input): never accepted by the import. */
export const IDENTITY_FIELDS = [
  'identity',
  'firstName',
  'lastName',
  'email',
  'dob',
  'phone',
  'professionalNetworkLink',
  'refugeeAgencyNumber',
  'reliefAgencyNumber',
  'messagingAppNumber',
] as const;

/** A candidate read from a line: `createdDate` absent when the line has none (kept, or now). */
export type ImportedCandidate = Omit<CandidateDoc, 'createdDate'> & { createdDate?: Date };

export type LineReading = { ok: true; candidate: ImportedCandidate } | { ok: false; reason: string };

/** Finds the job opportunity a visa job check's `jobOpp` object describes (it has no id in the contract). */
export interface JobOpportunityLookup {
  /** publicId of a stored job opportunity answered exactly as `jobOpp`, null when none is */
  find(jobOpp: Record<string, unknown>): string | null;
}

const YNR = ['NO_RESPONSE', 'YES', 'NO'] as const;
const YNUR = ['NO_RESPONSE', 'YES', 'NO', 'UNSURE'] as const;
const GENDERS = ['MALE', 'FEMALE', 'OTHER'] as const;
const EDUCATION_TYPES = ['ASSOCIATE', 'VOCATIONAL', 'BACHELOR', 'MASTERS', 'DOCTORAL'] as const;
const AGENCY_NOT_REG = ['NO_RESPONSE', 'WAS_REGISTERED', 'NEVER_REGISTERED', 'REGISTERING', 'UNSURE', 'NA'] as const;
const FAMILY = ['NO_RESPONSE', 'CHILD', 'PARENT', 'SIBLING', 'AUNT_UNCLE', 'GRANDPARENT', 'COUSIN', 'OTHER'] as const;

type Spec =
  | { t: 'enum'; values: readonly string[] }
  | { t: 'enumList'; values: readonly string[] }
  | { t: 'text'; max: number; kind: TextKind }
  | { t: 'int'; min: number; max: number }
  | { t: 'intList'; min: number; max: number }
  | { t: 'number'; min: number; max: number }
  | { t: 'bool' }
  | { t: 'date' }
  | { t: 'dateTime' }
  | { t: 'publicId' }
  /** a reference object: its key field names an entry of the collection */
  | { t: 'ref'; collection: ReferenceCollection; key: string; fields: readonly string[] }
  | { t: 'jobOpp' }
  | { t: 'list'; of: Fields }
  | { t: 'object'; of: Fields };

/** A field of the JSON: its rule and, when it differs, the field of the document it fills. */
type Field = { spec: Spec; to?: string; wrap?: (key: unknown) => unknown; required?: boolean };
type Fields = Readonly<Record<string, Field>>;

const f = (spec: Spec, to?: string): Field => ({ spec, to });
const en = (values: readonly string[]): Field => f({ t: 'enum', values });
const line = (max = MAX_SHORT_TEXT_LENGTH): Field => f({ t: 'text', max, kind: 'line' });
const multiline = (): Field => f({ t: 'text', max: MAX_TEXT_LENGTH, kind: 'multiline' });
const int = (min: number, max: number): Field => f({ t: 'int', min, max });
const year = (): Field => int(1900, 2100);
const bool = (): Field => f({ t: 'bool' });
const date = (): Field => f({ t: 'date' });
const dateTime = (): Field => f({ t: 'dateTime' });
const list = (of: Fields): Field => f({ t: 'list', of });
const country = (to: string): Field =>
  f({ t: 'ref', collection: 'countries', key: 'isoCode', fields: ['isoCode', 'name', 'status'] }, to);
const occupation = (to: string): Field =>
  f({ t: 'ref', collection: 'occupations', key: 'isco08Code', fields: ['isco08Code', 'name', 'status'] }, to);
const languageLevel = (to: string): Field =>
  f({ t: 'ref', collection: 'languageLevels', key: 'level', fields: ['level', 'name', 'cefrLevel'] }, to);
const educationLevel = (to: string): Field =>
  f({ t: 'ref', collection: 'educationLevels', key: 'level', fields: ['level', 'status', 'educationType'] }, to);

const JOB_EXPERIENCE: Fields = {
  country: country('countryIsoCode'),
  companyName: line(),
  role: line(),
  startDate: date(),
  endDate: date(),
  fullTime: bool(),
  paid: bool(),
  description: multiline(),
};

const VISA_JOB_CHECK: Fields = {
  jobOpp: f({ t: 'jobOpp' }, 'jobOppPublicId'),
  interest: en(YNR),
  qualification: en(YNR),
  occupation: occupation('occupationIsco08Code'),
  salaryTsmit: en(YNR),
  regional: en(YNR),
  eligible_494: en(YNR),
  eligible_186: en(YNR),
  eligibleOther: en(['NO_RESPONSE', 'TEMP_SKILLED', 'SPECIAL_HUM', 'OTHER_HUM', 'DIRECT_ENT', 'POINTS_INDEP']),
  putForward: en(['NO_RESPONSE', 'YES', 'YES_BUT', 'DISCUSS_FURTHER', 'SEEK_ADVICE', 'NO']),
  platformEligibility: en(['NO_RESPONSE', 'PROCEED', 'DISCUSS', 'DONT_PROCEED']),
  ageRequirement: line(),
  languagesRequired: f({ t: 'intList', min: 1, max: Number.MAX_SAFE_INTEGER }),
  languagesThresholdMet: en(YNR),
};

/** Every field of the contract's Candidate (section 2.2), as GET /v1/candidates/{publicId} answers it. */
const CANDIDATE: Fields = {
  publicId: f({ t: 'publicId' }),
  createdDate: dateTime(),
  status: en(CANDIDATE_STATUSES),
  gender: en(GENDERS),
  yearOfBirth: year(),
  city: line(),
  country: country('countryIsoCode'),
  birthCountry: country('birthCountryIsoCode'),
  nationality: country('nationalityIsoCode'),
  maritalStatus: en(['NO_RESPONSE', 'MARRIED', 'ENGAGED', 'DEFACTO', 'SINGLE', 'DIVORCED', 'SEPARATED', 'WIDOWER']),
  candidateMessage: multiline(),
  yearOfArrival: year(),
  homeLocation: line(),
  hostChallenges: multiline(),
  hostEntryLegally: en(YNR),
  hostEntryYear: year(),
  residenceStatus: en(['NO_RESPONSE', 'LEGAL_RES', 'ILLEGAL_RES', 'OTHER']),
  mediaWillingness: multiline(),
  howHeardAboutUs: en([
    'ONLINE_SEARCH',
    'SOCIAL_NETWORK_1',
    'SOCIAL_NETWORK_2',
    'PROFESSIONAL_NETWORK',
    'SOCIAL_NETWORK_3',
    'MESSAGING_APP',
    'VIDEO_PLATFORM',
    'FRIEND_COLLEAGUE_REFERRAL',
    'UNIVERSITY_SCHOOL_REFERRAL',
    'EMPLOYER_REFERRAL',
    'EVENT_WEBINAR',
    'INFORMATION_SESSION',
    'COMMUNITY_CENTRE_POSTING_FLYERS',
    'OUTREACH_WORKER',
    'NGO',
    'REFUGEE_AGENCY',
    'PARTNER_ORG_1',
    'PARTNER_ORG_2',
    'PARTNER_ORG_3',
    'PARTNER_ORG_4',
    'OTHER',
  ]),
  contactConsentPlatformPartners: bool(),
  contactConsentRegistration: bool(),
  refugeeAgencyConsent: en(YNR),
  monitoringEvaluationConsent: en(YNR),
  availDate: date(),
  availImmediate: en(YNR),
  availImmediateJobOps: multiline(),
  availImmediateReason: en(['FAMILY', 'HEALTH', 'CURRENT_WORK', 'STUDIES', 'OTHER']),
  arrestImprison: en(YNUR),
  asylumYear: date(),
  canDrive: en(YNR),
  conflict: en(YNR),
  crimeConvict: en(YNUR),
  destLimit: en(YNR),
  drivingLicense: en(['NO_RESPONSE', 'VALID', 'EXPIRED', 'NONE']),
  drivingLicenseCountry: country('drivingLicenseCountryIsoCode'),
  drivingLicenseExp: date(),
  familyMove: en(YNR),
  healthIssues: en(YNR),
  covidVaccinated: en(YNR),
  covidVaccinatedDate: date(),
  covidVaccineName: line(),
  covidVaccinatedStatus: en(['NO_RESPONSE', 'FULL', 'PARTIAL']),
  militaryService: en(YNR),
  militaryWanted: en(YNUR),
  militaryStart: date(),
  militaryEnd: date(),
  intRecruitReasons: f({
    t: 'enumList',
    values: ['NO_RESPONSE', 'CANT_RETURN_HOME', 'CITIZENSHIP', 'EXPERIENCE', 'CHILDREN', 'OTHER'],
  }),
  intRecruitRural: en(YNUR),
  leftHomeReasons: f({ t: 'enumList', values: ['NO_RESPONSE', 'SAFETY', 'JOB', 'OTHER'] }),
  returnedHome: en(YNUR),
  returnHomeSafe: en(YNUR),
  returnHomeFuture: en(YNUR),
  resettleThird: en(YNR),
  visaIssues: en(YNUR),
  visaReject: en(YNUR),
  workAbroad: en(YNR),
  workPermit: en(['NO_RESPONSE', 'YES_NOT_DESIRED', 'YES_DESIRED', 'NO']),
  workPermitDesired: en(YNUR),
  fullIntakeCompletedDate: dateTime(),
  miniIntakeCompletedDate: dateTime(),
  englishAssessmentScoreIelts: line(),
  ieltsScore: f({ t: 'number', min: 0, max: 9 }),
  frenchAssessmentScoreNclc: int(0, 12),
  refugeeAgencyRegistered: en(YNUR),
  refugeeAgencyStatus: en([
    'NO_RESPONSE',
    'MANDATE_REFUGEE',
    'REGISTERED_ASYLUM',
    'REGISTERED_STATELESS',
    'REGISTERED_STATUS_UNKNOWN',
    'NOT_REGISTERED',
    'UNSURE',
    'NA',
  ]),
  refugeeAgencyNotRegStatus: en(AGENCY_NOT_REG),
  reliefAgencyRegistered: en(YNUR),
  reliefAgencyNotRegStatus: en(AGENCY_NOT_REG),
  numberDependants: int(0, MAX_LIST_ITEMS),
  partnerRegistered: en(YNUR),
  partnerPublicId: f({ t: 'publicId' }),
  // ISO 3166-1 numeric codes
  partnerCitizenship: f({ t: 'intList', min: 1, max: 999 }),
  partnerEduLevel: educationLevel('partnerEduLevel'),
  partnerEnglish: en(YNR),
  partnerEnglishLevel: languageLevel('partnerEnglishLevel'),
  partnerIelts: en(['NO_RESPONSE', 'YES_GENERAL', 'YES_ACADEMIC', 'NO', 'UNSURE']),
  partnerIeltsScore: line(),
  partnerIeltsYr: year(),
  partnerOccupation: occupation('partnerOccupationIsco08Code'),
  maxEducationLevel: educationLevel('maxEducationLevel'),
  // Non-null in the schema: a certification without them could not be read.
  candidateCertifications: list({
    name: { ...line(), required: true },
    institution: { ...line(), required: true },
    dateCompleted: { ...date(), required: true },
  }),
  candidateCitizenships: list({
    hasPassport: en(['NO_RESPONSE', 'VALID_PASSPORT', 'INVALID_PASSPORT', 'NO_PASSPORT']),
    passportExp: date(),
    nationality: country('nationalityIsoCode'),
  }),
  candidateDestinations: list({ country: country('countryIsoCode'), interest: en(YNUR) }),
  candidateEducations: list({
    educationType: en(EDUCATION_TYPES),
    country: country('countryIsoCode'),
    educationMajor: f(
      { t: 'ref', collection: 'educationMajors', key: 'id', fields: ['id', 'iscedCode', 'name', 'status'] },
      'educationMajorId',
    ),
    lengthOfCourseYears: int(0, 20),
    institution: line(),
    courseName: line(),
    yearCompleted: year(),
    incomplete: bool(),
  }),
  candidateExams: list({
    exam: en(EXAMS),
    otherExam: line(),
    score: line(),
    year: year(),
  }),
  candidateLanguages: list({
    language: f(
      { t: 'ref', collection: 'languages', key: 'isoCode', fields: ['isoCode', 'name', 'status'] },
      'languageIsoCode',
    ),
    writtenLevel: languageLevel('writtenLevel'),
    spokenLevel: languageLevel('spokenLevel'),
  }),
  candidateOccupations: list({
    occupation: { ...occupation('occupation'), wrap: (key) => ({ isco08Code: key }) },
    yearsExperience: int(0, 80),
    candidateJobExperiences: list(JOB_EXPERIENCE),
  }),
  candidateSkills: list({ skill: line(), timePeriod: line() }),
  candidateDependants: list({
    relation: en(['NO_RESPONSE', 'PARTNER', ...FAMILY.slice(1)]),
    relationOther: line(),
    yearOfBirth: year(),
    gender: en(GENDERS),
    registered: en(['NO_RESPONSE', 'REFUGEE_AGENCY', 'RELIEF_AGENCY', 'NEITHER', 'NA']),
    healthConcern: en(YNR),
  }),
  candidateVisaChecks: list({
    country: country('countryIsoCode'),
    protection: en(YNR),
    englishThreshold: en(YNR),
    healthAssessment: en(YNR),
    characterAssessment: en(YNR),
    securityRisk: en(YNR),
    overallRisk: en(['NO_RESPONSE', 'LOW', 'MEDIUM', 'HIGH']),
    validTravelDocs: en(['NO_RESPONSE', 'VALID', 'EXPIRED', 'NONE']),
    pathwayAssessment: en(YNUR),
    destinationFamily: en(['NO_RESPONSE', 'NO_RELATION', ...FAMILY.slice(1)]),
    candidateVisaJobChecks: list(VISA_JOB_CHECK),
  }),
};

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const IDENTITY = new Set<string>(IDENTITY_FIELDS);

/**
 * Reads one non-blank line. `reference`: the store's reference data; `jobs`: its job
 * opportunities. The reason of a refusal lists every issue found, field by field.
 */
export function readImportLine(text: string, reference: ReferenceLookup, jobs: JobOpportunityLookup): LineReading {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the error: it could be identity data.
    return { ok: false, reason: 'not valid JSON' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, reason: 'not a JSON object (one candidate per line)' };
  }
  const identity = Object.keys(json).filter((key) => IDENTITY.has(key));
  if (identity.length > 0) {
    return {
      ok: false,
      reason: `holds identity data (${identity.join(', ')}): the import takes the anonymised candidate only`,
    };
  }
  const issues: InputIssue[] = [];
  const refs: { collection: ReferenceCollection; key: string | number; parameter: string }[] = [];
  const doc = readObject(json as Record<string, unknown>, CANDIDATE, '', { issues, refs, jobs });
  const given = json as Record<string, unknown>;
  if (given.publicId == null) issues.push({ parameter: 'publicId', rule: `required, ${PUBLIC_ID_RULE}` });
  if (given.status == null)
    issues.push({ parameter: 'status', rule: `required, one of ${CANDIDATE_STATUSES.join(', ')}` });
  for (const ref of refs) {
    if (reference.find(ref.collection, ref.key as ReferenceKey<ReferenceCollection>) === null)
      issues.push({ parameter: ref.parameter, rule: `a known ${RULE_NAMES[ref.collection]}` });
  }
  if (issues.length > 0) {
    return { ok: false, reason: issues.map((issue) => `${issue.parameter}: ${issue.rule}`).join('; ') };
  }
  return { ok: true, candidate: doc as unknown as ImportedCandidate };
}

const RULE_NAMES: Record<ReferenceCollection, string> = {
  countries: 'ISO 3166-1 alpha-2 country code',
  languages: 'ISO 639-1 language code',
  languageLevels: 'language level',
  occupations: 'ISCO-08 occupation code',
  educationLevels: 'education level',
  educationMajors: 'education major id',
};

interface Collectors {
  issues: InputIssue[];
  refs: { collection: ReferenceCollection; key: string | number; parameter: string }[];
  jobs: JobOpportunityLookup;
}

function readObject(
  json: Record<string, unknown>,
  fields: Fields,
  path: string,
  collectors: Collectors,
): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(json)) {
    const parameter = path === '' ? name : `${path}.${name}`;
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (field === undefined) {
      collectors.issues.push({
        parameter: FIELD_NAME.test(name) ? parameter : `${path || 'candidate'}`,
        rule: FIELD_NAME.test(name) ? 'not a field of the Candidate' : 'a field with an unexpected name',
      });
      continue;
    }
    // null is "not recorded", as the contract's JSON leaves the field out.
    if (value === null) continue;
    const read = readValue(value, field.spec, parameter, collectors);
    if (read !== undefined) doc[field.to ?? name] = field.wrap ? field.wrap(read) : read;
    // A required text left blank stays blank, as registration stores it.
    else if (field.required && typeof value === 'string' && value.trim() === '') doc[field.to ?? name] = '';
  }
  for (const [name, field] of Object.entries(fields)) {
    if (field.required && json[name] == null)
      collectors.issues.push({ parameter: path === '' ? name : `${path}.${name}`, rule: 'required' });
  }
  return doc;
}

function readValue(value: unknown, spec: Spec, parameter: string, collectors: Collectors): unknown {
  const { issues } = collectors;
  const refuse = (rule: string): undefined => {
    issues.push({ parameter, rule });
    return undefined;
  };
  switch (spec.t) {
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value)
        ? value
        : refuse(`one of ${spec.values.join(', ')}`);
    case 'enumList':
      return readList(value, parameter, issues, (item, itemPath) =>
        typeof item === 'string' && spec.values.includes(item)
          ? item
          : void issues.push({ parameter: itemPath, rule: `one of ${spec.values.join(', ')}` }),
      );
    case 'text': {
      if (typeof value !== 'string') return refuse('a string');
      const trimmed = value.trim();
      if (hasRefusedCharacter(value, spec.kind)) return refuse(TEXT_RULES[spec.kind]);
      if (trimmed.length > spec.max) return refuse(`at most ${spec.max} characters`);
      return trimmed === '' ? undefined : trimmed;
    }
    case 'int':
      return Number.isSafeInteger(value) && (value as number) >= spec.min && (value as number) <= spec.max
        ? value
        : refuse(`an integer from ${spec.min} to ${spec.max}`);
    case 'intList':
      return readList(value, parameter, issues, (item, itemPath) =>
        Number.isSafeInteger(item) && (item as number) >= spec.min && (item as number) <= spec.max
          ? item
          : void issues.push({ parameter: itemPath, rule: `an integer from ${spec.min} to ${spec.max}` }),
      );
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= spec.min && value <= spec.max
        ? value
        : refuse(`a number from ${spec.min} to ${spec.max}`);
    case 'bool':
      return typeof value === 'boolean' ? value : refuse('true or false');
    case 'date':
      return typeof value === 'string' && isCalendarDate(value)
        ? value
        : refuse('an ISO 8601 calendar date (YYYY-MM-DD)');
    case 'dateTime':
      return typeof value === 'string' && isDateTime(value)
        ? new Date(value)
        : refuse('an ISO 8601 date-time with zone');
    case 'publicId':
      return isPublicId(value) ? value : refuse(PUBLIC_ID_RULE);
    case 'ref':
      return readRef(value, spec, parameter, collectors);
    case 'jobOpp': {
      if (!isPlainObject(value)) return refuse('an object');
      return collectors.jobs.find(value) ?? refuse('a job opportunity of the directory (matched on all its fields)');
    }
    case 'list':
      return readList(value, parameter, issues, (item, itemPath) =>
        isPlainObject(item)
          ? readObject(item, spec.of, itemPath, collectors)
          : void issues.push({ parameter: itemPath, rule: 'an object' }),
      );
    case 'object':
      return isPlainObject(value) ? readObject(value, spec.of, parameter, collectors) : refuse('an object');
  }
}

function readList(
  value: unknown,
  parameter: string,
  issues: InputIssue[],
  item: (item: unknown, path: string) => unknown,
): unknown[] | undefined {
  if (!Array.isArray(value)) {
    issues.push({ parameter, rule: 'an array' });
    return undefined;
  }
  if (value.length > MAX_LIST_ITEMS) {
    issues.push({ parameter, rule: `at most ${MAX_LIST_ITEMS} items` });
    return undefined;
  }
  return value.map((entry, index) => item(entry, `${parameter}[${index}]`));
}

function readRef(
  value: unknown,
  spec: Extract<Spec, { t: 'ref' }>,
  parameter: string,
  { issues, refs }: Collectors,
): string | number | undefined {
  if (!isPlainObject(value)) {
    issues.push({ parameter, rule: `an object with ${spec.key}` });
    return undefined;
  }
  for (const name of Object.keys(value)) {
    if (!spec.fields.includes(name))
      issues.push({
        parameter: FIELD_NAME.test(name) ? `${parameter}.${name}` : parameter,
        rule: `not a field of the reference (${spec.fields.join(', ')})`,
      });
  }
  const raw = value[spec.key];
  const keyPath = `${parameter}.${spec.key}`;
  let key: string | number | undefined;
  if (spec.collection === 'countries' && typeof raw === 'string') key = raw.trim().toUpperCase();
  else if (spec.collection === 'languages' && typeof raw === 'string') key = raw.trim().toLowerCase();
  else if (spec.collection === 'occupations' && typeof raw === 'string') key = raw.trim();
  else if (typeof raw === 'number' && Number.isSafeInteger(raw)) key = raw;
  if (key === undefined || key === '') {
    issues.push({ parameter: keyPath, rule: `required, a known ${RULE_NAMES[spec.collection]}` });
    return undefined;
  }
  refs.push({ collection: spec.collection, key, parameter: keyPath });
  return key;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The job opportunities of the store, found by what the contract shows of them: every field a
 * visa job check's `jobOpp` answers (nothing of it is an id). Two stored ones that answer the
 * same are interchangeable for every read; the first by publicId is taken.
 */
export class JobOpportunityIndex implements JobOpportunityLookup {
  private readonly byShape = new Map<string, string>();

  constructor(jobs: readonly JobOpportunityDoc[]) {
    const sorted = [...jobs].sort((a, b) => (a.publicId < b.publicId ? -1 : a.publicId > b.publicId ? 1 : 0));
    for (const job of sorted) {
      const shape = JSON.stringify([
        job.countryIsoCode ?? null,
        job.employerEntity === undefined
          ? null
          : [job.employerEntity.countryIsoCode ?? null, job.employerEntity.hasHiredInternationally ?? null],
        job.evergreen ?? null,
        job.publishedDate?.getTime() ?? null,
        job.stage ?? null,
        job.submissionDueDate ?? null,
        job.hiringCommitment ?? null,
        job.employerHiredInternationally ?? null,
      ]);
      if (!this.byShape.has(shape)) this.byShape.set(shape, job.publicId);
    }
  }

  find(jobOpp: Record<string, unknown>): string | null {
    const isoCode = (value: unknown) =>
      isPlainObject(value) && typeof value.isoCode === 'string' ? value.isoCode : null;
    const employer = jobOpp.employerEntity;
    const published = jobOpp.publishedDate;
    const shape = JSON.stringify([
      isoCode(jobOpp.country),
      isPlainObject(employer) ? [isoCode(employer.country), employer.hasHiredInternationally ?? null] : null,
      jobOpp.evergreen ?? null,
      typeof published === 'string' && isDateTime(published) ? new Date(published).getTime() : (published ?? null),
      jobOpp.stage ?? null,
      jobOpp.submissionDueDate ?? null,
      jobOpp.hiringCommitment ?? null,
      jobOpp.employerHiredInternationally ?? null,
    ]);
    return this.byShape.get(shape) ?? null;
  }
}

/** What the import accepts of one field: its enum values, or its own fields (lists of objects). */
export interface ImportFieldShape {
  enumValues?: readonly string[];
  fields?: Readonly<Record<string, ImportFieldShape>>;
}

/** The fields the import accepts, as a tree (held against the SDL's Candidate by a test). */
export function importShape(fields: Fields = CANDIDATE): Record<string, ImportFieldShape> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, { spec }]) => {
      if (spec.t === 'enum' || spec.t === 'enumList') return [name, { enumValues: spec.values }];
      if (spec.t === 'list' || spec.t === 'object') return [name, { fields: importShape(spec.of) }];
      return [name, {}];
    }),
  );
}
