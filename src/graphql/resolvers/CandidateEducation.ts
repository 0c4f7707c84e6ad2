import type { CandidateEducationResolvers } from '../generated/resolvers-types';
import { referenceField } from './field-source';

export const CandidateEducation: CandidateEducationResolvers = {
  country: referenceField('countries', 'countryIsoCode'),
  educationMajor: referenceField('educationMajors', 'educationMajorId'),
};
