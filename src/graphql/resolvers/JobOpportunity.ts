import type { JobOpportunityResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';

export const JobOpportunity: JobOpportunityResolvers = {
  id: (job) => toGlobalId('JobOpportunity', job.publicId),
  country: (job, _args, { reference }) => reference.find('countries', job.countryIsoCode),
};
