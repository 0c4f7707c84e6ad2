import type { InputIssue } from '../errors';
import { EXAMS, isPublicId, PUBLIC_ID_RULE } from 'candidate-documents';
import { CEFR_ORDER, MAX_LIMIT, MIN_LIMIT, MIN_PAGE } from '../candidates/search-input';
import type { CandidateFilter, CandidateOrder, CefrLevel, Exam } from '../graphql/generated/schema-types';
import { PROBLEM_TYPES } from '../http/problem-types';
import { RestProblem } from '../http/problem';

/**
 * The syntax of /v1 parameters: strings to the values the GraphQL operations take. Bounds and
 * codes are the services' rules (search-input.ts) and are checked there, for both transports;
 * here only what cannot be handed over (a page that is not an integer, a flag that is neither
 * `true` nor `false`, a parameter given twice or not at all part of the operation).
 */

/** A GraphQL `Int` is 32-bit; larger numbers cannot even be handed to the service. */
const INT32_MAX = 2 ** 31 - 1;

type Parameter =
  | { kind: 'integer'; rule: string }
  /** a decimal number (digits, an optional fraction); its bounds are the service's */
  | { kind: 'number'; rule: string }
  | { kind: 'boolean' }
  /** comma-separated codes: split here, trimmed, normalised and checked by the service */
  | { kind: 'codes' }
  /** comma-separated names out of a fixed list (an enum of the schema): a name outside it is refused here, a repeat by the service */
  | { kind: 'names'; names: readonly string[]; rule: string }
  /** comma-separated `language:spoken:written` (levels A1 to C2, either empty or left off) */
  | { kind: 'languages' }
  /** comma-separated `EXAM:minimumScore` (the score may be left off) */
  | { kind: 'exams' }
  /** free text, checked by the service */
  | { kind: 'text' }
  /** `created` or `relevance` */
  | { kind: 'order' };

export type ParameterSpec = Readonly<Record<string, Parameter>>;

/** The value a parameter of this kind is handed over as. */
type ValueOf<P extends Parameter> = P extends { kind: 'integer' | 'number' }
  ? number
  : P extends { kind: 'boolean' }
    ? boolean
    : P extends { kind: 'names'; names: readonly (infer N)[] }
      ? N[]
      : P extends { kind: 'languages' }
        ? LanguageRequirementValue[]
        : P extends { kind: 'exams' }
          ? ExamRequirementValue[]
          : P extends { kind: 'text' }
            ? string
            : P extends { kind: 'order' }
              ? CandidateOrder
              : string[];

/** A language requirement as the `languages` parameter gives it (GraphQL `LanguageRequirement`). */
export interface LanguageRequirementValue {
  language: string;
  minSpokenLevel?: CefrLevel;
  minWrittenLevel?: CefrLevel;
}

/** An exam requirement as the `exams` parameter gives it (GraphQL `ExamRequirement`). */
export interface ExamRequirementValue {
  exam: Exam;
  minScore?: number;
}

/** The values of the parameters of `S` that were given. */
export type ParameterValues<S extends ParameterSpec> = { -readonly [K in keyof S]?: ValueOf<S[K]> };

export const PAGE = { kind: 'integer', rule: `an integer >= ${MIN_PAGE}` } as const satisfies Parameter;
export const LIMIT = {
  kind: 'integer',
  rule: `an integer from ${MIN_LIMIT} to ${MAX_LIMIT}`,
} as const satisfies Parameter;
export const FLAG = { kind: 'boolean' } as const satisfies Parameter;
export const CODES = { kind: 'codes' } as const satisfies Parameter;
const INTEGER = { kind: 'integer', rule: 'an integer' } as const satisfies Parameter;

/**
 * The query parameters of a candidate filter (GraphQL `CandidateFilter`, field for field): GET
 * /v1/candidates takes them, and any other route that selects candidates the same way.
 */
export const FILTER_PARAMETERS = {
  location: CODES,
  nationality: CODES,
  occupation: CODES,
  languages: { kind: 'languages' },
  minYearsExperience: INTEGER,
  maxYearsExperience: INTEGER,
  minEducationLevel: INTEGER,
  maxEducationLevel: INTEGER,
  minAge: INTEGER,
  maxAge: INTEGER,
  exams: { kind: 'exams' },
  keyword: { kind: 'text' },
  inSavedLists: CODES,
  notInSavedLists: CODES,
} as const satisfies ParameterSpec;

/** `sort` of a search: `created` (the default) or `relevance` (with a keyword). */
export const ORDER = { kind: 'order' } as const satisfies Parameter;

/** The `CandidateFilter` of the filter parameters given; undefined when none is. */
export function candidateFilterOf(values: ParameterValues<typeof FILTER_PARAMETERS>): CandidateFilter | undefined {
  // The parameters are the filter's fields, each parsed to the field's type (ValueOf).
  const given = Object.entries(values).filter(([, value]) => value !== undefined);
  return given.length > 0 ? Object.fromEntries(given) : undefined;
}

const CEFR_RULE = `A1, A2, B1, B2, C1 or C2`;
const LANGUAGES_RULE = `comma-separated language:minimum spoken level:minimum written level, each level ${CEFR_RULE} or empty (en:B2:B1, fr:A2, ar::B1)`;
const EXAMS_RULE = `comma-separated exam:minimum score, the exam one of ${EXAMS.join(', ')} and the score a decimal number or left off (IELTS_GEN:6.5, TOEFL)`;

/** Comma-separated names out of `names` (none: an empty list). */
export function namesParameter<N extends string>(
  names: readonly N[],
): { kind: 'names'; names: readonly N[]; rule: string } {
  return { kind: 'names', names, rule: `comma-separated names out of ${names.join(', ')}` };
}

/** A decimal number. */
export function numberParameter(rule: string): { kind: 'number'; rule: string } {
  return { kind: 'number', rule };
}

/**
 * The query parameters of `url` (path and query, as received) by `spec`. An unknown parameter
 * is an error, not ignored, so that a typo (`limt=5`) does not silently give another result;
 * a repeated one too, since which value counts would be a guess.
 */
export function parseQuery<S extends ParameterSpec>(url: string, spec: S): ParameterValues<S> {
  const query = new URL(url, 'http://localhost').searchParams;
  const issues: InputIssue[] = [];
  const unknown = [...new Set(query.keys())].filter((name) => !Object.hasOwn(spec, name));
  for (const name of unknown) issues.push({ parameter: shown(name), rule: 'not a parameter of this operation' });

  const values: Record<string, number | boolean | string | string[] | object[]> = {};
  for (const [name, parameter] of Object.entries(spec)) {
    const given = query.getAll(name);
    if (given.length === 0) continue;
    if (given.length > 1) {
      issues.push({
        parameter: name,
        rule:
          parameter.kind === 'codes'
            ? 'given once (separate codes with commas)'
            : parameter.kind === 'languages' || parameter.kind === 'exams'
              ? 'given once (separate requirements with commas)'
              : 'given once',
      });
      continue;
    }
    const raw = given[0];
    switch (parameter.kind) {
      case 'integer': {
        if (!/^-?\d+$/.test(raw)) issues.push({ parameter: name, rule: parameter.rule });
        else if (Math.abs(Number(raw)) > INT32_MAX)
          issues.push({ parameter: name, rule: `${parameter.rule} and at most ${INT32_MAX}` });
        else values[name] = Number(raw);
        break;
      }
      case 'number':
        if (/^\d{1,9}(?:\.\d{1,9})?$/.test(raw)) values[name] = Number(raw);
        else issues.push({ parameter: name, rule: parameter.rule });
        break;
      case 'boolean':
        if (raw === 'true' || raw === 'false') values[name] = raw === 'true';
        else issues.push({ parameter: name, rule: '`true` or `false`' });
        break;
      case 'codes':
        values[name] = raw.split(',');
        break;
      case 'names': {
        const names = raw === '' ? [] : raw.split(',').map((entry) => entry.trim());
        if (names.every((entry) => parameter.names.includes(entry))) values[name] = names;
        else issues.push({ parameter: name, rule: parameter.rule });
        break;
      }
      case 'languages': {
        const requirements = languageRequirements(raw);
        if (requirements === undefined) issues.push({ parameter: name, rule: LANGUAGES_RULE });
        else values[name] = requirements;
        break;
      }
      case 'exams': {
        const requirements = examRequirements(raw);
        if (requirements === undefined) issues.push({ parameter: name, rule: EXAMS_RULE });
        else values[name] = requirements;
        break;
      }
      case 'text':
        values[name] = raw;
        break;
      case 'order': {
        const order = raw.toLowerCase();
        if (order === 'created' || order === 'relevance') values[name] = order.toUpperCase();
        else issues.push({ parameter: name, rule: '`created` or `relevance`' });
        break;
      }
    }
  }
  throwIfInvalid(issues);
  // Each value was made by its parameter's kind above.
  return values as ParameterValues<S>;
}

/** Items of a comma-separated list, blank ones dropped (as for codes). */
function items(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** `en:B2:B1,fr:A2,ar::B1`: the language is checked by the service, the levels here (case-insensitive). */
function languageRequirements(raw: string): LanguageRequirementValue[] | undefined {
  const requirements: LanguageRequirementValue[] = [];
  for (const item of items(raw)) {
    const [language, spoken = '', written = '', ...rest] = item.split(':').map((part) => part.trim());
    const levels = [spoken, written].map((level) => level.toUpperCase());
    if (rest.length > 0 || levels.some((level) => level !== '' && !(CEFR_ORDER as readonly string[]).includes(level)))
      return undefined;
    requirements.push({
      language,
      // Each level is empty or one of CEFR_ORDER (checked above).
      ...(levels[0] !== '' ? { minSpokenLevel: levels[0] as CefrLevel } : {}),
      ...(levels[1] !== '' ? { minWrittenLevel: levels[1] as CefrLevel } : {}),
    });
  }
  return requirements;
}

/** `IELTS_GEN:6.5,TOEFL`: exams of the `Exam` enum (case-insensitive), scores decimal numbers. */
function examRequirements(raw: string): ExamRequirementValue[] | undefined {
  const requirements: ExamRequirementValue[] = [];
  for (const item of items(raw)) {
    const [name, score, ...rest] = item.split(':').map((part) => part.trim());
    const exam = name.toUpperCase();
    if (rest.length > 0 || !(EXAMS as readonly string[]).includes(exam)) return undefined;
    if (score !== undefined && !/^(\d+(\.\d*)?|\.\d+)$/.test(score)) return undefined;
    // One of EXAMS (checked above), the names of the `Exam` enum.
    requirements.push({ exam: exam as Exam, ...(score !== undefined ? { minScore: Number(score) } : {}) });
  }
  return requirements;
}

/**
 * The page size a request asks for (`limit`), read before the parameters are checked (the rate
 * limit comes first): the number when `limit` is given once as an integer, else undefined.
 */
export function pageSizeGiven(url: string): number | undefined {
  const given = new URL(url, 'http://localhost').searchParams.getAll('limit');
  return given.length === 1 && /^\d{1,9}$/.test(given[0]) ? Number(given[0]) : undefined;
}

/** A public id in a path segment: 22 characters of base64url. */
export function parsePublicIdParameter(value: string, name: string): string {
  if (!isPublicId(value)) throwIfInvalid([{ parameter: name, rule: `a public id of ${PUBLIC_ID_RULE}` }]);
  return value;
}

/** A caller's parameter name, echoed only when it looks like one (it is the caller's free text). */
function shown(name: string): string {
  return /^[A-Za-z0-9_.[\]-]{1,50}$/.test(name) ? name : '(a parameter with an unexpected name)';
}

function throwIfInvalid(issues: readonly InputIssue[]): void {
  if (issues.length === 0) return;
  const detail = issues
    .map((issue) =>
      issue.rule === 'not a parameter of this operation'
        ? `${issue.parameter} is ${issue.rule}`
        : `${issue.parameter} must be ${issue.rule}`,
    )
    .join('; ');
  throw new RestProblem(PROBLEM_TYPES.invalidParameter, `Invalid parameter: ${detail}.`);
}
