import type { QueryResolvers } from '../generated/resolvers-types';

/** The root fields of schema/statistics.graphql (`extend type Query`); merged into Query in index.ts. */
export const StatisticsQuery: QueryResolvers = {
  candidateStatistics: (_parent, args, { apiKey, services, audit }) =>
    services.statistics.candidateStatistics(apiKey, args, audit),
  candidateStatisticsPreview: (_parent, args, { apiKey, services, audit }) =>
    services.statistics.candidateStatisticsPreview(apiKey, args, audit),
  statisticsBudget: (_parent, _args, { apiKey, services }) => services.statistics.statisticsBudget(apiKey),
};
