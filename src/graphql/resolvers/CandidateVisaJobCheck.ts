import type { CandidateVisaJobCheckResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const CandidateVisaJobCheck: CandidateVisaJobCheckResolvers = {
  jobOpp: (item, _args, { loaders }) => loadOptional(loaders.jobOpportunities, item.jobOppPublicId),
  occupation: (item, _args, { reference }) => reference.find('occupations', item.occupationIsco08Code),
};
