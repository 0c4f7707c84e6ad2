import type { AuditedStatisticsQueryResolvers } from '../generated/resolvers-types';

export const AuditedStatisticsQuery: AuditedStatisticsQueryResolvers = {
  // Stored only on previews.
  preview: (query) => query.preview === true,
};
