import type { CandidateVisaCheckResolvers } from '../generated/resolvers-types';
import { referenceField } from './field-source';

export const CandidateVisaCheck: CandidateVisaCheckResolvers = {
  country: referenceField('countries', 'countryIsoCode'),
};
