import type { CandidateDoc } from 'candidate-documents';
import type { CandidatePageResolvers } from '../generated/resolvers-types';
import { auditedCandidateList } from './field-source';

export const CandidatePage: CandidatePageResolvers = {
  content: auditedCandidateList<CandidateDoc>('content'),
};
