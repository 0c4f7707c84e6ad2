import type { CandidateCitizenshipResolvers } from '../generated/resolvers-types';
import { referenceField } from './field-source';

export const CandidateCitizenship: CandidateCitizenshipResolvers = {
  nationality: referenceField('countries', 'nationalityIsoCode'),
};
