import type { QueryResolvers } from '../generated/resolvers-types';

/** The root field of schema/statistics.graphql (`extend type Query`); merged into Query in index.ts. */
export const StatisticsQuery: QueryResolvers = {
  candidateStatistics: (_parent, args, { apiKey, services, audit }) =>
    services.statistics.candidateStatistics(apiKey, args, audit),
};
