import type { Resolvers } from '../generated/resolvers-types';
import { scalarResolvers } from '../scalars';
import { AdminQuery } from './AdminQuery';
import { AuditEvent } from './AuditEvent';
import { AuditedStatisticsQuery } from './AuditedStatisticsQuery';
import { Candidate } from './Candidate';
import { CandidateChange } from './CandidateChange';
import { CandidateChangesQuery } from './CandidateChangesQuery';
import { CandidateCitizenship } from './CandidateCitizenship';
import { CandidateEdge } from './CandidateEdge';
import { CandidateEducation } from './CandidateEducation';
import { CandidateJobExperience } from './CandidateJobExperience';
import { CandidateLanguage } from './CandidateLanguage';
import { CandidateOccupation } from './CandidateOccupation';
import { CandidatePage } from './CandidatePage';
import { CandidateVisaCheck } from './CandidateVisaCheck';
import { CandidateVisaJobCheck } from './CandidateVisaJobCheck';
import { Country } from './Country';
import { Destination } from './Destination';
import { EducationLevel } from './EducationLevel';
import { EmployerEntity } from './EmployerEntity';
import { JobOpportunity } from './JobOpportunity';
import { Language } from './Language';
import { LanguageLevel } from './LanguageLevel';
import { ErasureMutation } from './ErasureMutation';
import { Mutation } from './Mutation';
import { Node } from './Node';
import { NodeQuery } from './NodeQuery';
import { Occupation } from './Occupation';
import { Query } from './Query';
import { SavedList } from './SavedList';
import { SavedListMutation, SavedListQuery, SavedListSummary } from './SavedListQuery';
import { SavedSearchMutation, SavedSearchQuery } from './SavedSearchQuery';
import { StatisticsQuery } from './StatisticsQuery';
import { Subscription } from './Subscription';
import { WebhookDelivery } from './WebhookDelivery';
import { WebhookMutation, WebhookQuery } from './WebhookQuery';

export const resolvers: Resolvers = {
  ...scalarResolvers,
  Query: {
    ...Query,
    ...AdminQuery,
    ...NodeQuery,
    ...StatisticsQuery,
    ...CandidateChangesQuery,
    ...WebhookQuery,
    ...SavedSearchQuery,
    ...SavedListQuery,
  },
  Node,
  Subscription,
  Mutation: { ...Mutation, ...ErasureMutation, ...WebhookMutation, ...SavedSearchMutation, ...SavedListMutation },
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
  SavedListSummary,
  CandidatePage,
  CandidateEdge,
  CandidateChange,
  AuditEvent,
  AuditedStatisticsQuery,
  Country,
  Language,
  LanguageLevel,
  Occupation,
  EducationLevel,
  WebhookDelivery,
};
