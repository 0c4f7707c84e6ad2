import type { CandidateDoc } from '../../candidates/candidate-document';
import type { CandidatePageResolvers } from '../generated/resolvers-types';
import { auditedCandidateList } from './field-source';

export const CandidatePage: CandidatePageResolvers = {
  content: auditedCandidateList<CandidateDoc>('content'),
};
