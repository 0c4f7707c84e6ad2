import type { EducationType } from 'candidate-documents';

/**
 * The reference data the generator draws codes from (real codes only). The package ships none:
 * the service builds this from the reference data it serves, so every generated code resolves.
 */
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
