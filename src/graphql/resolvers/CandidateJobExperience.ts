import type { CandidateJobExperienceResolvers } from '../generated/resolvers-types';
import { referenceField } from './field-source';

export const CandidateJobExperience: CandidateJobExperienceResolvers = {
  country: referenceField('countries', 'countryIsoCode'),
};
