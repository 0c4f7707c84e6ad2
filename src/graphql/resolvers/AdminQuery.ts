import type { QueryResolvers } from '../generated/resolvers-types';

/** The root fields of schema/admin.graphql (`extend type Query`); merged into Query in index.ts. */
export const AdminQuery: QueryResolvers = {
  auditEvents: (_parent, args, { apiKey, services }) => services.audit.list(apiKey, args),
};
