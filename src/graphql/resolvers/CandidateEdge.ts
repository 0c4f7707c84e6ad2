import type { CandidateEdgeResolvers } from '../generated/resolvers-types';
import { auditedCandidates } from './audited';

export const CandidateEdge: CandidateEdgeResolvers = {
  node: (edge, _args, { audit }) => auditedCandidates(audit, [edge.node])[0],
};
