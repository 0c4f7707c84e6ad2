import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { newPublicId } from 'candidate-documents';
import type { InputIssue } from '../errors';
import type { RegisterCandidateInput, RegistrationDataInput } from '../graphql/generated/schema-types';
import type { ReferenceCache } from '../reference/reference-cache';
import type { ReferenceCollection, ReferenceKey } from '../reference/reference-repository';
import type { CandidateDoc } from 'candidate-documents';
import type { CandidateIdentity } from './identity-document';
import type { RegistrationRepository } from './registration-repository';
import { throwIfAny } from './search-input';
import { emailIdentityKey, hasRefusedCharacter, TEXT_RULES, type TextKind } from './text-input';
import { systemClock, type Clock } from '../common/clock';
import { PLAIN_WRITE, type WriteRequest } from '../store/write-transaction';

export const MAX_LIST_ITEMS = 50;
export const MAX_TEXT_LENGTH = 2000;
export const MAX_SHORT_TEXT_LENGTH = 200;
const MAX_EMAIL_LENGTH = 254;
// Deliberately permissive: the form of an address, not RFC 5322; delivery proves the rest.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

type Ref = { collection: ReferenceCollection; key: string | number; parameter: string };

/**
 * The reference data a registration's codes are checked against: the snapshot loaded at start
 * (the reference collections do not change while the process runs), so checking them sends no
 * store command.
 */
export type ReferenceLookup = Pick<ReferenceCache, 'find'>;

/**
 * Registration of a new candidate. Identity data goes to `candidateIdentities` only; the
 * anonymised profile to `candidates`. Everything is validated before anything is written, and
 * the two documents are written together (RegistrationRepository): both or neither, also across
 * a crash, and a registration a crash cut short never blocks the person's next attempt.
 */
export class RegistrationService {
  constructor(
    private readonly registrations: RegistrationRepository,
    private readonly reference: ReferenceLookup,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * `write.retryToken`: identifies the request when it may be a retry (see GraphQLContext.retryToken);
   * a retry of a registration that was stored gets it back (the same publicId) instead of a 409.
   * `write.companions`: what is stored with the registration (its audit event, its kept answer).
   */
  async register(
    caller: ApiKeyRecord,
    input: RegisterCandidateInput,
    write: WriteRequest = PLAIN_WRITE,
  ): Promise<{ message: string; publicId: string }> {
    const { retryToken } = write;
    authorize(caller, 'REGISTER_CANDIDATES');
    const data = input.registrationData;
    const issues: InputIssue[] = [];
    const refs: Ref[] = [];
    const text = (
      value: string | null | undefined,
      parameter: string,
      max = MAX_TEXT_LENGTH,
      kind: TextKind = 'line',
    ): string | undefined => checkText(value, parameter, max, kind, issues);

    // Kept in NFKC (the form mail can be delivered to), compared by emailIdentityKey.
    const email = data.identity.email.normalize('NFKC').trim();
    if (hasRefusedCharacter(data.identity.email, 'identifier')) {
      issues.push({ parameter: 'registrationData.identity.email', rule: TEXT_RULES.identifier });
    } else if (email.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(email)) {
      issues.push({ parameter: 'registrationData.identity.email', rule: 'an e-mail address' });
    }
    const registrarId = text(input.registrarId, 'registrarId', MAX_SHORT_TEXT_LENGTH, 'identifier');
    const publicId = newPublicId();
    const createdDate = this.clock.now();
    const candidate = toCandidate(data, { publicId, createdDate, registrarId }, { issues, refs, text });
    const identity: CandidateIdentity = {
      candidatePublicId: publicId,
      email,
      emailKey: emailIdentityKey(email),
      createdDate,
      ...defined({
        firstName: text(data.identity.firstName, 'registrationData.identity.firstName', MAX_SHORT_TEXT_LENGTH),
        lastName: text(data.identity.lastName, 'registrationData.identity.lastName', MAX_SHORT_TEXT_LENGTH),
        dob: data.dob ?? undefined,
        professionalNetworkLink: text(
          data.professionalNetworkLink,
          'registrationData.professionalNetworkLink',
          MAX_SHORT_TEXT_LENGTH,
          'identifier',
        ),
        phone: text(data.phone, 'registrationData.phone', MAX_SHORT_TEXT_LENGTH, 'identifier'),
        refugeeAgencyNumber: text(
          data.refugeeAgencyNumber,
          'registrationData.refugeeAgencyNumber',
          MAX_SHORT_TEXT_LENGTH,
          'identifier',
        ),
        reliefAgencyNumber: text(
          data.reliefAgencyNumber,
          'registrationData.reliefAgencyNumber',
          MAX_SHORT_TEXT_LENGTH,
          'identifier',
        ),
        messagingAppNumber: text(
          data.messagingAppNumber,
          'registrationData.messagingAppNumber',
          MAX_SHORT_TEXT_LENGTH,
          'identifier',
        ),
        registrarId,
        retryToken,
      }),
    };
    throwIfAny(issues);
    throwIfAny(this.unknownReferences(refs));

    const message = `Candidate registered with status ${candidate.status}.`;
    const companions = write.companions({ candidatePublicIds: [publicId], result: { message, publicId } });
    const registered = await this.registrations.insert(identity, candidate, companions, caller.id);
    return { message, publicId: registered };
  }

  private unknownReferences(refs: readonly Ref[]): InputIssue[] {
    const issues = refs
      .filter((ref) => this.reference.find(ref.collection, ref.key as ReferenceKey<ReferenceCollection>) === null)
      .map((ref) => ({ parameter: ref.parameter, rule: `a known ${RULE_NAMES[ref.collection]}` }));
    return issues.sort((a, b) => a.parameter.localeCompare(b.parameter));
  }
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
  refs: Ref[];
  text: (value: string | null | undefined, parameter: string, max?: number, kind?: TextKind) => string | undefined;
}

/** The anonymised profile: every reference kept as its key, to be checked and resolved by loaders. */
function toCandidate(
  data: RegistrationDataInput,
  base: { publicId: string; createdDate: Date; registrarId?: string },
  { issues, refs, text }: Collectors,
): CandidateDoc {
  const root = 'registrationData';
  const country = (value: { isoCode: string } | null | undefined, parameter: string) =>
    ref(refs, 'countries', value?.isoCode?.trim().toUpperCase(), parameter);
  const list = <T, R extends object>(
    items: readonly T[] | null | undefined,
    name: string,
    map: (item: T, path: string) => R,
  ): R[] | undefined => {
    if (items == null) return undefined;
    if (items.length > MAX_LIST_ITEMS)
      issues.push({ parameter: `${root}.${name}`, rule: `at most ${MAX_LIST_ITEMS} items` });
    return items.slice(0, MAX_LIST_ITEMS).map((item, index) => defined(map(item, `${root}.${name}[${index}]`)));
  };
  const year = (value: number | null | undefined, parameter: string) =>
    checkRange(value, parameter, 1900, 2100, issues);

  const occupations = list(data.candidateOccupations, 'candidateOccupations', (item, path) => {
    const code = ref(refs, 'occupations', item.occupation?.isco08Code?.trim(), `${path}.occupation.isco08Code`);
    return {
      occupation: code === undefined ? undefined : { isco08Code: code },
      yearsExperience: checkRange(item.yearsExperience, `${path}.yearsExperience`, 0, 80, issues),
      candidateJobExperiences: list(
        item.candidateJobExperiences,
        `${path.slice(root.length + 1)}.candidateJobExperiences`,
        (job, jobPath) => ({
          countryIsoCode: country(job.country, `${jobPath}.country.isoCode`),
          companyName: text(job.companyName, `${jobPath}.companyName`, MAX_SHORT_TEXT_LENGTH),
          role: text(job.role, `${jobPath}.role`, MAX_SHORT_TEXT_LENGTH),
          startDate: job.startDate ?? undefined,
          endDate: job.endDate ?? undefined,
          fullTime: job.fullTime ?? undefined,
          paid: job.paid ?? undefined,
          description: text(job.description, `${jobPath}.description`, MAX_TEXT_LENGTH, 'multiline'),
        }),
      ),
    };
  });

  return defined({
    ...base,
    status: occupations !== undefined && occupations.length > 0 ? 'PENDING' : 'INCOMPLETE',
    gender: data.gender ?? undefined,
    // The read model carries the year of birth (contract 2.2); the full date stays with the identity.
    yearOfBirth: data.dob ? Number(data.dob.slice(0, 4)) : undefined,
    city: text(data.city, `${root}.city`, MAX_SHORT_TEXT_LENGTH),
    countryIsoCode: country(data.country, `${root}.country.isoCode`),
    nationalityIsoCode: country(data.nationality, `${root}.nationality.isoCode`),
    candidateMessage: text(data.candidateMessage, `${root}.candidateMessage`, MAX_TEXT_LENGTH, 'multiline'),
    yearOfArrival: year(data.yearOfArrival, `${root}.yearOfArrival`),
    howHeardAboutUs: data.howHeardAboutUs ?? undefined,
    contactConsentPlatformPartners: data.contactConsentPlatformPartners ?? undefined,
    contactConsentRegistration: data.contactConsentRegistration ?? undefined,
    refugeeAgencyConsent: data.refugeeAgencyConsent ?? undefined,
    maxEducationLevel: ref(refs, 'educationLevels', data.maxEducationLevel?.level, `${root}.maxEducationLevel.level`),
    candidateOccupations: occupations,
    candidateCertifications: list(data.candidateCertifications, 'candidateCertifications', (item, path) => ({
      name: text(item.name, `${path}.name`, MAX_SHORT_TEXT_LENGTH) ?? '',
      institution: text(item.institution, `${path}.institution`, MAX_SHORT_TEXT_LENGTH) ?? '',
      dateCompleted: item.dateCompleted,
    })),
    candidateCitizenships: list(data.candidateCitizenships, 'candidateCitizenships', (item, path) => ({
      hasPassport: item.hasPassport ?? undefined,
      passportExp: item.passportExp ?? undefined,
      nationalityIsoCode: country(item.nationality, `${path}.nationality.isoCode`),
    })),
    candidateDestinations: list(data.candidateDestinations, 'candidateDestinations', (item, path) => ({
      countryIsoCode: country(item.country, `${path}.country.isoCode`),
      interest: item.interest ?? undefined,
    })),
    candidateEducations: list(data.candidateEducations, 'candidateEducations', (item, path) => ({
      educationType: item.educationType ?? undefined,
      countryIsoCode: country(item.country, `${path}.country.isoCode`),
      educationMajorId: ref(refs, 'educationMajors', item.educationMajor?.id, `${path}.educationMajor.id`),
      lengthOfCourseYears: checkRange(item.lengthOfCourseYears, `${path}.lengthOfCourseYears`, 0, 20, issues),
      institution: text(item.institution, `${path}.institution`, MAX_SHORT_TEXT_LENGTH),
      courseName: text(item.courseName, `${path}.courseName`, MAX_SHORT_TEXT_LENGTH),
      yearCompleted: year(item.yearCompleted, `${path}.yearCompleted`),
      incomplete: item.incomplete ?? undefined,
    })),
    candidateExams: list(data.candidateExams, 'candidateExams', (item, path) => ({
      exam: item.exam ?? undefined,
      otherExam: text(item.otherExam, `${path}.otherExam`, MAX_SHORT_TEXT_LENGTH),
      score: text(item.score, `${path}.score`, MAX_SHORT_TEXT_LENGTH),
      year: year(item.year, `${path}.year`),
    })),
    candidateLanguages: list(data.candidateLanguages, 'candidateLanguages', (item, path) => ({
      languageIsoCode: ref(refs, 'languages', item.language?.isoCode?.trim().toLowerCase(), `${path}.language.isoCode`),
      writtenLevel: ref(refs, 'languageLevels', item.writtenLevel?.level, `${path}.writtenLevel.level`),
      spokenLevel: ref(refs, 'languageLevels', item.spokenLevel?.level, `${path}.spokenLevel.level`),
    })),
    candidateSkills: list(data.candidateSkills, 'candidateSkills', (item, path) => ({
      skill: text(item.skill, `${path}.skill`, MAX_SHORT_TEXT_LENGTH),
      timePeriod: text(item.timePeriod, `${path}.timePeriod`, MAX_SHORT_TEXT_LENGTH),
    })),
  });
}

function ref<K extends string | number>(
  refs: Ref[],
  collection: ReferenceCollection,
  key: K | undefined,
  parameter: string,
): K | undefined {
  if (key === undefined || key === '') return undefined;
  refs.push({ collection, key, parameter });
  return key;
}

function checkText(
  value: string | null | undefined,
  parameter: string,
  max: number,
  kind: TextKind,
  issues: InputIssue[],
): string | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (hasRefusedCharacter(value, kind)) issues.push({ parameter, rule: TEXT_RULES[kind] });
  else if (trimmed.length > max) issues.push({ parameter, rule: `at most ${max} characters` });
  return trimmed === '' ? undefined : trimmed;
}

function checkRange(
  value: number | null | undefined,
  parameter: string,
  min: number,
  max: number,
  issues: InputIssue[],
): number | undefined {
  if (value == null) return undefined;
  if (!Number.isSafeInteger(value) || value < min || value > max)
    issues.push({ parameter, rule: `an integer from ${min} to ${max}` });
  return value;
}

/** The object without its undefined fields: documents keep absent fields absent. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
