export {
  DemoGenerator,
  generateDemoData,
  isDemoSeed,
  MAX_DEMO_SEED,
  type DemoData,
  type DemoDataOptions,
} from './generator';
export type { DemoReference } from './reference';
export {
  CANDIDATE_MESSAGES,
  CERTIFICATIONS,
  COMMON_OCCUPATIONS,
  HOST_CHALLENGES,
  HOSTS,
  JOB_DESCRIPTIONS,
  ORIGINS,
  SKILLS,
} from './vocabulary';
export { PROFESSIONS, type Profession } from './professions';
