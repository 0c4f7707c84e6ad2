import type { IndexSpec } from '../store/indexes';

/**
 * Names of the reference collections, by their key in REFERENCE_COLLECTIONS (reference-data.ts).
 * Part of the operator contract, like every collection name.
 */
export const REFERENCE_DATA_COLLECTIONS = {
  countries: 'countries',
  languages: 'languages',
  languageLevels: 'languageLevels',
  occupations: 'occupations',
  educationLevels: 'educationLevels',
  educationMajors: 'educationMajors',
} as const;

/** Reference data: one unique key each. */
export const referenceIndexes: readonly IndexSpec[] = [
  {
    collection: REFERENCE_DATA_COLLECTIONS.countries,
    key: { isoCode: 1 },
    options: { name: 'countries_isoCode_unique', unique: true },
  },
  {
    collection: REFERENCE_DATA_COLLECTIONS.languages,
    key: { isoCode: 1 },
    options: { name: 'languages_isoCode_unique', unique: true },
  },
  {
    collection: REFERENCE_DATA_COLLECTIONS.languageLevels,
    key: { level: 1 },
    options: { name: 'languageLevels_level_unique', unique: true },
  },
  {
    collection: REFERENCE_DATA_COLLECTIONS.occupations,
    key: { isco08Code: 1 },
    options: { name: 'occupations_isco08Code_unique', unique: true },
  },
  {
    collection: REFERENCE_DATA_COLLECTIONS.educationLevels,
    key: { level: 1 },
    options: { name: 'educationLevels_level_unique', unique: true },
  },
  {
    collection: REFERENCE_DATA_COLLECTIONS.educationMajors,
    key: { id: 1 },
    options: { name: 'educationMajors_id_unique', unique: true },
  },
];
