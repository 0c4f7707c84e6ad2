import type { CandidateChangeResolvers } from '../generated/resolvers-types';
import { auditedCandidate } from './audited';

export const CandidateChange: CandidateChangeResolvers = {
  // The candidate as it is now, through the request's loader (and so the read caches): null once erased.
  candidate: (change, _args, { loaders, audit }) => auditedCandidate(audit, loaders.candidates.load(change.publicId)),
};
