import { isEnumType, type GraphQLSchema } from 'graphql';
import { z } from 'zod';
import { isPublicId, PUBLIC_ID_RULE } from 'candidate-documents';
import {
  COUPON_PATTERN,
  COUPON_RULE,
  MAX_CANDIDATES_PER_OFFER,
  MAX_COUPON_LENGTH,
  MAX_NOTES_LENGTH,
} from '../candidates/offer-service';
import { hasRefusedCharacter, TEXT_RULES } from '../candidates/text-input';
import type { OperationName, VariablesOf } from './persisted-operations';
import { PROBLEM_TYPES } from '../http/problem-types';
import { RestProblem } from '../http/problem';
import { withoutNulls } from './shape';

/**
 * The bodies of the three POSTs: their shape checked strictly (types, enums, required and
 * unknown fields, sizes) before anything runs, and turned into the input of the GraphQL
 * mutation. The rules of the product (references that must exist, e-mail form and uniqueness,
 * text lengths of a registration, candidates that must exist) stay in the services. The bounds
 * checked here come from their one source: the offer rules from offer-service.ts, the form of
 * a public id from candidate-documents (public-id.ts), enum values from the GraphQL schema.
 *
 * Optional fields may be absent or null (null counts as absent: many JSON serialisers write
 * nulls); unknown fields are refused, so a misspelt field is not silently dropped.
 */

/** The persisted mutations, each behind one POST. */
export type MutationName = Extract<OperationName, 'JobMatch' | 'OfferToAssist' | 'RegisterCandidate'>;

/** The body of each POST checked and turned into the variables of its mutation (`{ input }`). */
export type RequestBodies = { readonly [N in MutationName]: z.ZodType<VariablesOf<N>> };

/**
 * The body schemas; enum values come from the GraphQL schema, so the two transports never
 * disagree. Being read from the schema at start, their values are not known to the compiler:
 * hence the one cast to the generated input types, which GraphQL checks again on execution.
 */
export function createRequestBodies(schema: GraphQLSchema): RequestBodies {
  const enumOf = (name: string) => {
    const type = schema.getType(name);
    if (!isEnumType(type)) throw new Error(`${name} is not an enum of the schema`);
    const values = type.getValues().map((value) => value.value as string);
    return z.enum(values as [string, ...string[]]);
  };
  const optional = <T extends z.ZodType>(type: T) => type.nullish();
  const text = z.string();
  const date = z.iso.date({ error: 'a calendar date (YYYY-MM-DD)' });
  const int = z.int32();
  const long = z.int();
  const status = enumOf('Status');
  const publicId = z.string().refine(isPublicId, { error: `a public id of ${PUBLIC_ID_RULE}` });

  // References are sent shaped like the read model's objects (contract 2.4: "as in 2.2"); only
  // the key is read, the other fields are checked for type and ignored.
  const country = z
    .strictObject({ isoCode: text, name: optional(text), status: optional(status) })
    .transform(({ isoCode }) => ({ isoCode }));
  const occupation = z
    .strictObject({ isco08Code: text, name: optional(text), status: optional(status) })
    .transform(({ isco08Code }) => ({ isco08Code }));
  const language = z
    .strictObject({ isoCode: text, name: optional(text), status: optional(status) })
    .transform(({ isoCode }) => ({ isoCode }));
  const languageLevel = z
    .strictObject({ level: int, name: optional(text), cefrLevel: optional(enumOf('CefrLevel')) })
    .transform(({ level }) => ({ level }));
  const educationLevel = z
    .strictObject({
      level: int,
      status: optional(status),
      educationType: optional(enumOf('EducationType')),
      name: optional(text),
    })
    .transform(({ level }) => ({ level }));
  const educationMajor = z
    .strictObject({ id: long, iscedCode: optional(text), name: optional(text), status: optional(status) })
    .transform(({ id }) => ({ id }));

  const notes = optional(
    text
      .max(MAX_NOTES_LENGTH)
      .refine((value) => !hasRefusedCharacter(value, 'multiline'), { error: TEXT_RULES.multiline }),
  );
  const candidates = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(MAX_CANDIDATES_PER_OFFER);

  const jobMatch = z.strictObject({
    candidates: candidates(z.strictObject({ publicId })),
    additionalNotes: notes,
  });

  const offerToAssist = z.strictObject({
    candidates: candidates(
      z.strictObject({
        publicId,
        couponCode: optional(text.max(MAX_COUPON_LENGTH).regex(COUPON_PATTERN, { error: COUPON_RULE })),
      }),
    ),
    reason: enumOf('OfferReason'),
    additionalNotes: notes,
  });

  const jobExperience = z.strictObject({
    country: optional(country),
    companyName: optional(text),
    role: optional(text),
    startDate: optional(date),
    endDate: optional(date),
    fullTime: optional(z.boolean()),
    paid: optional(z.boolean()),
    description: optional(text),
  });

  const registrationData = z.strictObject({
    identity: z.strictObject({ firstName: optional(text), lastName: optional(text), email: text }),
    dob: optional(date),
    professionalNetworkLink: optional(text),
    phone: optional(text),
    refugeeAgencyNumber: optional(text),
    reliefAgencyNumber: optional(text),
    messagingAppNumber: optional(text),
    candidateCertifications: optional(z.array(z.strictObject({ name: text, institution: text, dateCompleted: date }))),
    candidateCitizenships: optional(
      z.array(
        z.strictObject({
          hasPassport: optional(enumOf('PassportStatus')),
          passportExp: optional(date),
          nationality: optional(country),
        }),
      ),
    ),
    candidateDestinations: optional(
      z.array(z.strictObject({ country: optional(country), interest: optional(enumOf('YesNoUnsure')) })),
    ),
    candidateEducations: optional(
      z.array(
        z.strictObject({
          educationType: optional(enumOf('EducationType')),
          country: optional(country),
          educationMajor: optional(educationMajor),
          lengthOfCourseYears: optional(int),
          institution: optional(text),
          courseName: optional(text),
          yearCompleted: optional(int),
          incomplete: optional(z.boolean()),
        }),
      ),
    ),
    candidateExams: optional(
      z.array(
        z.strictObject({
          exam: optional(enumOf('Exam')),
          otherExam: optional(text),
          score: optional(text),
          year: optional(long),
        }),
      ),
    ),
    candidateLanguages: optional(
      z.array(
        z.strictObject({
          language: optional(language),
          writtenLevel: optional(languageLevel),
          spokenLevel: optional(languageLevel),
        }),
      ),
    ),
    candidateOccupations: optional(
      z.array(
        z.strictObject({
          occupation: optional(occupation),
          yearsExperience: optional(int),
          candidateJobExperiences: optional(z.array(jobExperience)),
        }),
      ),
    ),
    candidateSkills: optional(z.array(z.strictObject({ skill: optional(text), timePeriod: optional(text) }))),
    candidateMessage: optional(text),
    city: optional(text),
    contactConsentPlatformPartners: optional(z.boolean()),
    contactConsentRegistration: optional(z.boolean()),
    country: optional(country),
    gender: optional(enumOf('Gender')),
    maxEducationLevel: optional(educationLevel),
    nationality: optional(country),
    howHeardAboutUs: optional(enumOf('HowHeardAboutUs')),
    refugeeAgencyConsent: optional(enumOf('YesNo')),
    yearOfArrival: optional(int),
  });

  const registerCandidate = z.strictObject({ registrarId: optional(text), registrationData });

  // Null counts as absent: every nullable field of the input types is optional.
  const variables = (body: z.ZodType) => body.transform((input) => ({ input: withoutNulls(input) }));
  return {
    JobMatch: variables(jobMatch),
    OfferToAssist: variables(offerToAssist),
    RegisterCandidate: variables(registerCandidate),
  } as RequestBodies;
}

/**
 * The body as the mutation's variables, or a 400 naming every offending field and its rule.
 * The details never quote a value: a registration body is identity data.
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => describe(issue, body));
  throw new RestProblem(PROBLEM_TYPES.invalidBody, `Invalid body: ${[...new Set(problems)].join('; ')}.`);
}

type Issue = z.core.$ZodIssue;

function describe(issue: Issue, body: unknown): string[] {
  const where = pathOf(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => `${pathOf([...issue.path, shownKey(key)])} is not a field of this body`);
    case 'invalid_type':
      if (isMissing(body, issue.path)) return [`${where} is required`];
      return [`${where} must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`];
    case 'invalid_value':
      if (isMissing(body, issue.path)) return [`${where} is required`];
      return [`${where} must be one of ${issue.values.map(String).join(', ')}`];
    case 'too_small':
    case 'too_big': {
      const bound =
        issue.code === 'too_small' ? `at least ${String(issue.minimum)}` : `at most ${String(issue.maximum)}`;
      if (issue.origin === 'string') return [`${where} must have ${bound} characters`];
      if (issue.origin === 'array') return [`${where} must have ${bound} items`];
      return [`${where} must be ${bound}`];
    }
    case 'invalid_format':
    case 'custom':
      return [`${where} must be ${issue.message}`];
    default:
      return [`${where} is invalid`];
  }
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

/** `candidates[0].publicId`; the body itself is `body`. */
function pathOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'body';
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

/** An unknown field's name is the caller's free text: echoed only when it looks like a field name. */
function shownKey(key: string): string {
  return /^[A-Za-z0-9_]{1,50}$/.test(key) ? key : '(a field with an unexpected name)';
}

function isMissing(body: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return body === undefined;
  let parent: unknown = body;
  for (const part of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[part];
  }
  return parent !== null && typeof parent === 'object' && !Object.hasOwn(parent, path[path.length - 1]);
}
