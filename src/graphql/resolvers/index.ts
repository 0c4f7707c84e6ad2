import type { Resolvers } from '../generated/resolvers-types';
import { scalarResolvers } from '../scalars';
import { AdminQuery } from './AdminQuery';
import { AuditEvent } from './AuditEvent';
import { Candidate } from './Candidate';
import { CandidateCitizenship } from './CandidateCitizenship';
import { CandidateEdge } from './CandidateEdge';
import { CandidateEducation } from './CandidateEducation';
import { CandidateJobExperience } from './CandidateJobExperience';
import { CandidateLanguage } from './CandidateLanguage';
import { CandidateOccupation } from './CandidateOccupation';
import { CandidatePage } from './CandidatePage';
import { CandidateVisaCheck } from './CandidateVisaCheck';
import { CandidateVisaJobCheck } from './CandidateVisaJobCheck';
import { Destination } from './Destination';
import { EmployerEntity } from './EmployerEntity';
import { JobOpportunity } from './JobOpportunity';
import { Mutation } from './Mutation';
import { Query } from './Query';
import { SavedList } from './SavedList';
import { StatisticsQuery } from './StatisticsQuery';

export const resolvers: Resolvers = {
  ...scalarResolvers,
  Query: { ...Query, ...AdminQuery, ...StatisticsQuery },
  Mutation,
  Candidate,
  CandidateOccupation,
  CandidateJobExperience,
  CandidateLanguage,
  CandidateEducation,
  CandidateCitizenship,
  Destination,
  CandidateVisaCheck,
  CandidateVisaJobCheck,
  JobOpportunity,
  EmployerEntity,
  SavedList,
  CandidatePage,
  CandidateEdge,
  AuditEvent,
};
