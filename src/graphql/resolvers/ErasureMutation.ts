import type { MutationResolvers } from '../generated/resolvers-types';

export const ErasureMutation: Pick<MutationResolvers, 'eraseCandidate'> = {
  // Audited with the pseudonymous publicId it names, like every mutation that names a candidate.
  eraseCandidate: (_parent, { publicId }, { apiKey, services, audit }) => {
    audit.addCandidates([publicId]);
    return services.erasure.erase(apiKey, publicId);
  },
};
