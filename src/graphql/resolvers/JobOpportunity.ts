import type { JobOpportunityResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';
import { referenceField } from './field-source';

export const JobOpportunity: JobOpportunityResolvers = {
  id: (job) => toGlobalId('JobOpportunity', job.publicId),
  country: referenceField('countries', 'countryIsoCode'),
};
