import type { CandidateVisaJobCheckResolvers } from '../generated/resolvers-types';
import { joinedJobOpportunity, referenceField } from './field-source';

export const CandidateVisaJobCheck: CandidateVisaJobCheckResolvers = {
  jobOpp: joinedJobOpportunity('jobOppPublicId'),
  occupation: referenceField('occupations', 'occupationIsco08Code'),
};
