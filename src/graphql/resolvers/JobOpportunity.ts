import type { JobOpportunityResolvers } from '../generated/resolvers-types';

export const JobOpportunity: JobOpportunityResolvers = {
  country: (job, _args, { reference }) => reference.find('countries', job.countryIsoCode),
};
