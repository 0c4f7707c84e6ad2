import type { CandidateEducationResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const CandidateEducation: CandidateEducationResolvers = {
  country: (item, _args, { loaders }) => loadOptional(loaders.countries, item.countryIsoCode),
  educationMajor: (item, _args, { loaders }) => loadOptional(loaders.educationMajors, item.educationMajorId),
};
