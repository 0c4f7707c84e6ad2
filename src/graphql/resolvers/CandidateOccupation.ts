import type { CandidateOccupationResolvers } from '../generated/resolvers-types';

export const CandidateOccupation: CandidateOccupationResolvers = {
  occupation: (item, _args, { reference }) => reference.find('occupations', item.occupation?.isco08Code),
};
