import type { CandidateOccupationResolvers } from '../generated/resolvers-types';
import { referenceField } from './field-source';

export const CandidateOccupation: CandidateOccupationResolvers = {
  occupation: referenceField('occupations', 'occupation', 'isco08Code'),
};
