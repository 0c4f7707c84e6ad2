import { CANDIDATE_STATUSES, MAX_VALUES_PER_CANDIDATE } from 'candidate-documents';
import type { ReferenceCache } from '../reference/reference-cache';

/** The dimensions statistics count by (the CandidateDimension enum of schema/statistics.graphql). */
export const DIMENSIONS = [
  'LOCATION',
  'NATIONALITY',
  'OCCUPATION',
  'STATUS',
  'GENDER',
  'EDUCATION_LEVEL',
  'LANGUAGE',
  'YEAR_OF_ARRIVAL',
  'REGISTRATION_YEAR',
  'AGE_BAND',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The code of a candidate without a value in a dimension (missing field, empty list). */
export const UNKNOWN_CODE = 'UNKNOWN';
const UNKNOWN_LABEL = 'Unknown';

/**
 * What the store groups by for a dimension: a stored field of the candidate document
 * (candidate-documents), reached through a top-level array for the multi-valued ones: the
 * candidate's stored statistics lists, which hold at most MAX_VALUES_PER_CANDIDATE distinct
 * values (bounded contribution, decided when the candidate is written).
 */
export interface StoredKey {
  /** dotted path of the stored value */
  readonly path: string;
  /** the top-level array the path runs through: one value per distinct element value */
  readonly array?: string;
  /** group by the UTC year of a date, not the date */
  readonly year?: boolean;
}

interface DimensionRule {
  readonly stored: StoredKey;
  /**
   * Every code the dimension can have, UNKNOWN excepted, whatever the data: cells are released
   * over this domain so that which cells exist tells nothing about who is counted.
   */
  domain(reference: ReferenceCache, now: Date): string[];
  /** the code of a stored value (never null: a missing value has been mapped to UNKNOWN before) */
  code(value: unknown, now: Date): string;
  label(code: string, reference: ReferenceCache): string;
}

const asString = (value: unknown): string => String(value);

/** `AUTONOMOUS_EMPLOYMENT` → `Autonomous employment`: statuses and genders have no reference names. */
function readable(code: string): string {
  const words = code.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The 10-year band of the age reached in the year of `now` (UTC). */
function ageBand(yearOfBirth: unknown, now: Date): string {
  if (typeof yearOfBirth !== 'number' || !Number.isFinite(yearOfBirth)) return UNKNOWN_CODE;
  const age = now.getUTCFullYear() - Math.trunc(yearOfBirth);
  if (age < 0) return UNKNOWN_CODE;
  const low = Math.floor(age / 10) * 10;
  return `${low}-${low + 9}`;
}

/** The years from `first` to the year of `now` (UTC), as codes. */
function years(first: number, now: Date): string[] {
  const last = now.getUTCFullYear();
  return Array.from({ length: Math.max(0, last - first + 1) }, (_v, i) => String(first + i));
}

/** First year of arrival and of registration in the domains: earlier ones count under UNKNOWN. */
export const FIRST_YEAR_OF_ARRIVAL = 1950;
export const FIRST_REGISTRATION_YEAR = 2000;
/** Age bands from 0-9 to 100-109; an older age counts under UNKNOWN. */
const AGE_BANDS = Array.from({ length: 11 }, (_v, i) => `${i * 10}-${i * 10 + 9}`);

const RULES: Record<Dimension, DimensionRule> = {
  LOCATION: {
    domain: (reference) => reference.keys('countries').map(String),
    stored: { path: 'countryIsoCode' },
    code: asString,
    label: (code, reference) => reference.find('countries', code)?.name ?? code,
  },
  NATIONALITY: {
    domain: (reference) => reference.keys('countries').map(String),
    stored: { path: 'nationalityIsoCode' },
    code: asString,
    label: (code, reference) => reference.find('countries', code)?.name ?? code,
  },
  OCCUPATION: {
    domain: (reference) => reference.keys('occupations').map(String),
    stored: { path: 'statisticsOccupations.isco08Code', array: 'statisticsOccupations' },
    code: asString,
    label: (code, reference) => reference.find('occupations', code)?.name ?? code,
  },
  STATUS: { domain: () => [...CANDIDATE_STATUSES], stored: { path: 'status' }, code: asString, label: readable },
  GENDER: { domain: () => ['MALE', 'FEMALE', 'OTHER'], stored: { path: 'gender' }, code: asString, label: readable },
  EDUCATION_LEVEL: {
    domain: (reference) => reference.keys('educationLevels').map(String),
    stored: { path: 'maxEducationLevel' },
    code: asString,
    label: (code, reference) => reference.find('educationLevels', Number(code))?.name ?? code,
  },
  LANGUAGE: {
    domain: (reference) => reference.keys('languages').map(String),
    stored: { path: 'statisticsLanguages.languageIsoCode', array: 'statisticsLanguages' },
    code: asString,
    label: (code, reference) => reference.find('languages', code)?.name ?? code,
  },
  YEAR_OF_ARRIVAL: {
    domain: (_reference, now) => years(FIRST_YEAR_OF_ARRIVAL, now),
    stored: { path: 'yearOfArrival' },
    code: asString,
    label: (code) => code,
  },
  REGISTRATION_YEAR: {
    domain: (_reference, now) => years(FIRST_REGISTRATION_YEAR, now),
    stored: { path: 'createdDate', year: true },
    code: asString,
    label: (code) => code,
  },
  // Grouped by year of birth in the store; the bands depend on the query's date, so they are formed here.
  AGE_BAND: { domain: () => [...AGE_BANDS], stored: { path: 'yearOfBirth' }, code: ageBand, label: (code) => code },
};

export function storedKeyOf(dimension: Dimension): StoredKey {
  return RULES[dimension].stored;
}

/** The code of a value the store grouped by; null (no value) is UNKNOWN. */
export function codeOf(dimension: Dimension, value: unknown, now: Date): string {
  if (value === null || value === undefined) return UNKNOWN_CODE;
  return RULES[dimension].code(value, now);
}

export function labelOf(dimension: Dimension, code: string, reference: ReferenceCache): string {
  return code === UNKNOWN_CODE ? UNKNOWN_LABEL : RULES[dimension].label(code, reference);
}

/**
 * The codes a dimension is released over, UNKNOWN last; a value outside them (a year before the
 * first, a code missing from the reference data) counts under UNKNOWN.
 */
export function domainOf(dimension: Dimension, reference: ReferenceCache, now: Date): string[] {
  return [...RULES[dimension].domain(reference, now), UNKNOWN_CODE];
}

/** How many cells of one dimension a candidate counts in at most (the stored statistics lists are capped). */
export function cellsPerCandidate(dimension: Dimension): number {
  return RULES[dimension].stored.array ? MAX_VALUES_PER_CANDIDATE : 1;
}

export { MAX_VALUES_PER_CANDIDATE };
