import { getNames as countryNames } from 'i18n-iso-countries';
import ISO6391 from 'iso-639-1';
import iscedF2013 from './data/isced-f-2013.json';
import iscedF2013Groups from './data/isced-f-2013-groups.json';
import isco08 from './data/isco-08.json';
import isco08Groups from './data/isco-08-groups.json';

/**
 * The reference data the service ships: the documents of the reference collections, as
 * plain objects. Every function builds new objects on each call, so a caller that mutates
 * what it gets cannot change what the next caller sees. Where each list comes from and
 * why it looks the way it does: `data/SOURCES.md`.
 */

export type ReferenceStatus = 'ACTIVE' | 'INACTIVE' | 'DELETED';
export const REFERENCE_STATUSES: readonly ReferenceStatus[] = ['ACTIVE', 'INACTIVE', 'DELETED'];

export type CefrLevel = 'A1' | 'A2' | 'B1' | 'B2' | 'C1' | 'C2';
export const CEFR_LEVELS: readonly CefrLevel[] = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'];

export type EducationType = 'ASSOCIATE' | 'VOCATIONAL' | 'BACHELOR' | 'MASTERS' | 'DOCTORAL';
export const EDUCATION_TYPES: readonly EducationType[] = ['ASSOCIATE', 'VOCATIONAL', 'BACHELOR', 'MASTERS', 'DOCTORAL'];

export interface CountryDoc {
  isoCode: string;
  name: string;
  status: ReferenceStatus;
}
export interface LanguageDoc {
  isoCode: string;
  name: string;
  status: ReferenceStatus;
}
export interface LanguageLevelDoc {
  level: number;
  name: string;
  cefrLevel: CefrLevel | null;
  status: ReferenceStatus;
}
export interface OccupationDoc {
  isco08Code: string;
  name: string;
  status: ReferenceStatus;
}
export interface EducationLevelDoc {
  level: number;
  name: string;
  educationType: EducationType | null;
  status: ReferenceStatus;
}
export interface EducationMajorDoc {
  id: number;
  iscedCode: string;
  name: string;
  status: ReferenceStatus;
}

/** A grouping level of ISCO-08 above the unit groups (which are the occupations). */
export interface Isco08Group {
  code: string;
  level: 'major' | 'subMajor' | 'minor';
  title: string;
}
/** A grouping level of ISCED-F 2013 above the detailed fields (which are the majors). */
export interface IscedFGroup {
  code: string;
  level: 'broad' | 'narrow';
  name: string;
}

/**
 * Codes that i18n-iso-countries lists but ISO 3166-1 does not officially assign. XK
 * (Kosovo) is a user-assigned code; the contract's Country is "ISO 3166-1 alpha-2", and
 * the product keeps exactly the 249 officially assigned codes.
 */
const NOT_OFFICIALLY_ASSIGNED = new Set(['XK']);

/**
 * Levels follow ISCED 2011 attainment levels 0 to 8, so that `level` orders qualifications
 * and "at least a bachelor's degree" is `level >= 6`. The contract's educationType has five
 * values, all at ISCED 4 and above; the levels below carry none. ISCED 4 (post-secondary
 * non-tertiary) is where vocational certificates and diplomas sit in most countries.
 */
const EDUCATION_LEVELS: readonly Omit<EducationLevelDoc, 'status'>[] = [
  { level: 0, name: 'Less than primary education', educationType: null },
  { level: 1, name: 'Primary education', educationType: null },
  { level: 2, name: 'Lower secondary education', educationType: null },
  { level: 3, name: 'Upper secondary education', educationType: null },
  { level: 4, name: 'Post-secondary non-tertiary education', educationType: 'VOCATIONAL' },
  { level: 5, name: 'Short-cycle tertiary education', educationType: 'ASSOCIATE' },
  { level: 6, name: "Bachelor's or equivalent level", educationType: 'BACHELOR' },
  { level: 7, name: "Master's or equivalent level", educationType: 'MASTERS' },
  { level: 8, name: 'Doctoral or equivalent level', educationType: 'DOCTORAL' },
];

/**
 * One level per CEFR level, numbered in CEFR order, plus level 0 for no knowledge of the
 * language (no CEFR level describes it). Native speakers take the top level: native
 * command is not a CEFR level, and filters such as "C1 or better" must include them.
 */
const LANGUAGE_LEVELS: readonly Omit<LanguageLevelDoc, 'status'>[] = [
  { level: 0, name: 'No knowledge', cefrLevel: null },
  { level: 1, name: 'Beginner', cefrLevel: 'A1' },
  { level: 2, name: 'Elementary', cefrLevel: 'A2' },
  { level: 3, name: 'Intermediate', cefrLevel: 'B1' },
  { level: 4, name: 'Upper intermediate', cefrLevel: 'B2' },
  { level: 5, name: 'Advanced', cefrLevel: 'C1' },
  { level: 6, name: 'Proficient or native', cefrLevel: 'C2' },
];

// Nothing in the shipped sources is withdrawn or deprecated, so every entry is ACTIVE.
const SHIPPED_STATUS: ReferenceStatus = 'ACTIVE';

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The ISO 3166-1 officially assigned alpha-2 codes, upper case, with English names. */
export function countries(): CountryDoc[] {
  return Object.entries(countryNames('en'))
    .filter(([isoCode]) => !NOT_OFFICIALLY_ASSIGNED.has(isoCode))
    .map(([isoCode, name]) => ({ isoCode, name, status: SHIPPED_STATUS }))
    .sort((a, b) => byText(a.isoCode, b.isoCode));
}

/** The ISO 639-1 languages, with their two-letter lower-case codes and English names. */
export function languages(): LanguageDoc[] {
  return ISO6391.getAllCodes()
    .map((isoCode) => ({ isoCode, name: ISO6391.getName(isoCode), status: SHIPPED_STATUS }))
    .sort((a, b) => byText(a.isoCode, b.isoCode));
}

export function languageLevels(): LanguageLevelDoc[] {
  return LANGUAGE_LEVELS.map((entry) => ({ ...entry, status: SHIPPED_STATUS }));
}

/** The 436 ISCO-08 unit groups with their ILO English titles. */
export function occupations(): OccupationDoc[] {
  return isco08
    .map(({ code, title }) => ({ isco08Code: code, name: title, status: SHIPPED_STATUS }))
    .sort((a, b) => byText(a.isco08Code, b.isco08Code));
}

export function educationLevels(): EducationLevelDoc[] {
  return EDUCATION_LEVELS.map((entry) => ({ ...entry, status: SHIPPED_STATUS }));
}

/**
 * The ISCED-F 2013 detailed fields (4-digit codes), including the "not further defined",
 * "not elsewhere classified" and inter-disciplinary codes of the classification's coding
 * scheme. `id` is the numeric value of the code ("0613" is 613), so it never changes.
 */
export function educationMajors(): EducationMajorDoc[] {
  return iscedF2013
    .map(({ id, iscedCode, name }) => ({ id, iscedCode, name, status: SHIPPED_STATUS }))
    .sort((a, b) => byText(a.iscedCode, b.iscedCode));
}

/** ISCO-08 major, sub-major and minor groups, for grouping occupations by code prefix. */
export function occupationGroups(): Isco08Group[] {
  return isco08Groups.map(({ code, level, title }) => ({ code, level: level as Isco08Group['level'], title }));
}

/** ISCED-F 2013 broad and narrow fields, for grouping majors by code prefix. */
export function educationFieldGroups(): IscedFGroup[] {
  return iscedF2013Groups.map(({ code, level, name }) => ({ code, level: level as IscedFGroup['level'], name }));
}

interface CollectionSpec<D> {
  readonly keyField: keyof D & string;
  readonly load: () => D[];
}

/**
 * The reference collections by name, each with its key field and the loader of its
 * documents. The names are part of the operator contract: keep exactly these.
 */
export const REFERENCE_COLLECTIONS = {
  countries: { keyField: 'isoCode', load: countries },
  languages: { keyField: 'isoCode', load: languages },
  languageLevels: { keyField: 'level', load: languageLevels },
  occupations: { keyField: 'isco08Code', load: occupations },
  educationLevels: { keyField: 'level', load: educationLevels },
  educationMajors: { keyField: 'id', load: educationMajors },
} as const satisfies {
  readonly countries: CollectionSpec<CountryDoc>;
  readonly languages: CollectionSpec<LanguageDoc>;
  readonly languageLevels: CollectionSpec<LanguageLevelDoc>;
  readonly occupations: CollectionSpec<OccupationDoc>;
  readonly educationLevels: CollectionSpec<EducationLevelDoc>;
  readonly educationMajors: CollectionSpec<EducationMajorDoc>;
};
export type ReferenceCollectionName = keyof typeof REFERENCE_COLLECTIONS;
