import type { QueryResolvers } from '../generated/resolvers-types';

export const CandidateChangesQuery: Pick<QueryResolvers, 'candidateChanges' | 'candidateChangesPosition'> = {
  candidateChanges: (_parent, args, { apiKey, services }) => services.candidateChanges.list(apiKey, args),
  candidateChangesPosition: (_parent, _args, { apiKey, services }) => services.candidateChanges.position(apiKey),
};
