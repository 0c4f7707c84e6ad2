import type { MutationResolvers } from '../generated/resolvers-types';

export const Mutation: MutationResolvers = {
  createJobMatch: (_parent, { input }, { apiKey, services }) => services.offers.createJobMatch(apiKey, input),
  offerToAssist: (_parent, { input }, { apiKey, services }) => services.offers.offerToAssist(apiKey, input),
  registerCandidate: (_parent, { input }, { apiKey, services }) => services.registration.register(apiKey, input),
};
