export {
  DemoGenerator,
  generateDemoData,
  isDemoSeed,
  MAX_DEMO_SEED,
  type DemoData,
  type DemoDataOptions,
} from './generator';
export type { DemoReference } from './reference';
export { CANDIDATE_MESSAGES, COMMON_OCCUPATIONS, HOST_CHALLENGES, HOSTS, ORIGINS } from './vocabulary';
