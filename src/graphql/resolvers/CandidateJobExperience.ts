import type { CandidateJobExperienceResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const CandidateJobExperience: CandidateJobExperienceResolvers = {
  country: (item, _args, { loaders }) => loadOptional(loaders.countries, item.countryIsoCode),
};
