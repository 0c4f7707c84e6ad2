import type { EducationType } from '../candidates/candidate-document';
import {
  countries,
  educationLevels,
  educationMajors,
  languageLevels,
  languages,
  occupations,
} from '../reference/reference-data';

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
