import type { CandidatePageResolvers } from '../generated/resolvers-types';
import { auditedCandidates } from './audited';

export const CandidatePage: CandidatePageResolvers = {
  content: (page, _args, { audit }) => [...auditedCandidates(audit, page.content)],
};
