import type { QueryResolvers } from '../generated/resolvers-types';

export const CandidateChangesQuery: Pick<QueryResolvers, 'candidateChanges'> = {
  candidateChanges: (_parent, args, { apiKey, services }) => services.candidateChanges.list(apiKey, args),
};
