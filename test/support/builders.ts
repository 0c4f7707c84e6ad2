import { randomBytes } from 'node:crypto';
import type { CandidateDoc, JobOpportunityDoc, OfferDoc, SavedListDoc } from 'candidate-documents';
import type { CandidateIdentity } from '../../src/candidates/identity-document';
import { newPublicId } from 'candidate-documents';
import { emailIdentityKey } from '../../src/candidates/text-input';

/**
 * Shared test data builders: each returns a valid document with plausible defaults, and
 * takes overrides for what a test is about. Ids are fresh on every call, so tests never
 * collide; times are fixed, never the clock.
 */

let sequence = 0;
const next = (): number => ++sequence;

/** A database name of its own for one test (MongoDB allows 63 characters). */
export function testDatabaseName(label = 'test'): string {
  const safe = label.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 40);
  return `t_${safe}_${randomBytes(6).toString('hex')}`;
}

/** A time `minutes` after a fixed instant: readable, ordered test dates. */
export function at(minutes: number): Date {
  return new Date(Date.UTC(2024, 0, 1) + minutes * 60_000);
}

export function aCandidate(overrides: Partial<CandidateDoc> = {}): CandidateDoc {
  const n = next();
  return {
    publicId: newPublicId(),
    createdDate: at(n),
    status: 'ACTIVE',
    gender: 'FEMALE',
    yearOfBirth: 1990,
    city: 'Amman',
    countryIsoCode: 'JO',
    birthCountryIsoCode: 'SY',
    nationalityIsoCode: 'SY',
    maritalStatus: 'SINGLE',
    candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 5, candidateJobExperiences: [] }],
    candidateLanguages: [{ languageIsoCode: 'ar', writtenLevel: 6, spokenLevel: 6 }],
    ...overrides,
  };
}

/** Identity data: test-only values, in the domain reserved for examples. */
export function anIdentity(overrides: Partial<CandidateIdentity> = {}): CandidateIdentity {
  const n = next();
  const email = overrides.email ?? `candidate-${n}@example.org`;
  return {
    candidatePublicId: newPublicId(),
    firstName: 'Test',
    lastName: `Candidate ${n}`,
    email,
    emailKey: emailIdentityKey(email),
    createdDate: at(n),
    ...overrides,
  };
}

export function aJobOpportunity(overrides: Partial<JobOpportunityDoc> = {}): JobOpportunityDoc {
  const n = next();
  return {
    publicId: newPublicId(),
    countryIsoCode: 'CA',
    employerEntity: { countryIsoCode: 'CA', hasHiredInternationally: true },
    evergreen: false,
    publishedDate: at(n),
    stage: 'CANDIDATE_SEARCH',
    submissionDueDate: '2024-03-01',
    hiringCommitment: 3,
    ...overrides,
  };
}

export function aSavedList(overrides: Partial<SavedListDoc> = {}): SavedListDoc {
  const n = next();
  return {
    publicId: newPublicId(),
    name: `Saved list ${n}`,
    candidatePublicIds: [],
    createdDate: at(n),
    ...overrides,
  };
}

export function anOffer(overrides: Partial<OfferDoc> = {}): OfferDoc {
  const n = next();
  return {
    publicId: newPublicId(),
    kind: 'OFFER_TO_ASSIST',
    reason: 'EDUCATION_SERVICE',
    candidates: [{ publicId: newPublicId() }],
    apiKeyId: 'key_testtesttest',
    createdDate: at(n),
    ...overrides,
  };
}

/**
 * Where a document holds identity data: keys named like identity fields, and strings that
 * look like an e-mail address or a phone number. Returns the paths found (empty: none).
 * Used to check that nothing identifying ever reaches `candidates`.
 */
export function findIdentityData(value: unknown, path = '$'): string[] {
  const found: string[] = [];
  if (typeof value === 'string') {
    if (EMAIL.test(value) || PHONE.some((pattern) => pattern.test(value))) found.push(`${path}: ${value}`);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => found.push(...findIdentityData(item, `${path}[${i}]`)));
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, item] of Object.entries(value)) {
      if (IDENTITY_KEYS.some((pattern) => pattern.test(key))) found.push(`${path}.${key} (key)`);
      found.push(...findIdentityData(item, `${path}.${key}`));
    }
  }
  return found;
}

const IDENTITY_KEYS: readonly RegExp[] = [
  /^(first|last|middle|given|family|full|sur|maiden|nick)_?name$/i,
  /e-?mail/i,
  /phone|mobile|whatsapp|telegram/i,
  /^dob$|date_?of_?birth|birth_?date|birthday/i,
  /agencyNumber|messagingApp|professionalNetwork|linkedin|candidateNumber/i,
  /address|street|postcode|zip_?code/i,
  /passportNumber|nationalId|idNumber/i,
];
const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]+/;
const PHONE: readonly RegExp[] = [/\+\d[\d ().-]{6,}\d/, /\b\d{3}[ .-]?\d{3}[ .-]?\d{3,4}\b/, /\b0\d{9,}\b/];
