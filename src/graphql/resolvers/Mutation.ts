import type { MutationResolvers } from '../generated/resolvers-types';
import { writeRequestOf } from '../context';

// The audit trail records the candidates a mutation names (even when it then fails: an attempt
// on unknown ids is worth seeing too) and the one a registration creates. A write that succeeds
// stores its audit event with it (writeRequestOf: the context's companions).
export const Mutation: MutationResolvers = {
  createJobMatch: (_parent, { input }, context) => {
    context.audit.addCandidates(input.candidates.map((candidate) => candidate.publicId));
    return context.services.offers.createJobMatch(context.apiKey, input, writeRequestOf(context));
  },
  offerToAssist: (_parent, { input }, context) => {
    context.audit.addCandidates(input.candidates.map((candidate) => candidate.publicId));
    return context.services.offers.offerToAssist(context.apiKey, input, writeRequestOf(context));
  },
  registerCandidate: async (_parent, { input }, context) => {
    const result = await context.services.registration.register(context.apiKey, input, writeRequestOf(context));
    context.audit.addCandidates([result.publicId]);
    return result;
  },
};
