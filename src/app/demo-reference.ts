import type { DemoReference } from 'demo-data';
import {
  countries,
  educationLevels,
  educationMajors,
  languageLevels,
  languages,
  occupations,
} from '../reference/reference-data';

/** The reference the demo data draws its codes from: the reference data the service serves. */
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
