import type { MutationResolvers } from '../generated/resolvers-types';

// The audit trail records the candidates a mutation names (even when it then fails: an attempt
// on unknown ids is worth seeing too) and the one a registration creates.
export const Mutation: MutationResolvers = {
  createJobMatch: (_parent, { input }, { apiKey, services, audit }) => {
    audit.addCandidates(input.candidates.map((candidate) => candidate.publicId));
    return services.offers.createJobMatch(apiKey, input);
  },
  offerToAssist: (_parent, { input }, { apiKey, services, audit }) => {
    audit.addCandidates(input.candidates.map((candidate) => candidate.publicId));
    return services.offers.offerToAssist(apiKey, input);
  },
  registerCandidate: async (_parent, { input }, { apiKey, services, audit, retryToken }) => {
    const result = await services.registration.register(apiKey, input, retryToken);
    audit.addCandidates([result.publicId]);
    return result;
  },
};
