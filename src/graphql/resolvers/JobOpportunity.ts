import type { JobOpportunityResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const JobOpportunity: JobOpportunityResolvers = {
  country: (job, _args, { loaders }) => loadOptional(loaders.countries, job.countryIsoCode),
};
