import type { CandidateOccupationResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const CandidateOccupation: CandidateOccupationResolvers = {
  occupation: (item, _args, { loaders }) => loadOptional(loaders.occupations, item.occupation?.isco08Code),
};
