import type { CandidateVisaCheckResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const CandidateVisaCheck: CandidateVisaCheckResolvers = {
  country: (item, _args, { loaders }) => loadOptional(loaders.countries, item.countryIsoCode),
};
