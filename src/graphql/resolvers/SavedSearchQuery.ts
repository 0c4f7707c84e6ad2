import type { MutationResolvers, QueryResolvers } from '../generated/resolvers-types';

/** The root fields of schema/saved-search.graphql (`extend type Query`); merged into Query in index.ts. */
export const SavedSearchQuery: QueryResolvers = {
  savedSearches: (_parent, _args, { apiKey, services }) => services.savedSearches.list(apiKey),
  savedSearch: (_parent, { id }, { apiKey, services }) => services.savedSearches.find(apiKey, id),
};

/** The mutations of schema/saved-search.graphql (`extend type Mutation`); merged into Mutation in index.ts. */
export const SavedSearchMutation: MutationResolvers = {
  createSavedSearch: (_parent, { input }, { apiKey, services }) => services.savedSearches.create(apiKey, input),
  updateSavedSearch: (_parent, { id, input }, { apiKey, services }) =>
    services.savedSearches.update(apiKey, id, {
      ...(input.name != null ? { name: input.name } : {}),
      ...(input.filter !== undefined ? { filter: input.filter } : {}),
      ...(input.includeEmployed != null ? { includeEmployed: input.includeEmployed } : {}),
    }),
  deleteSavedSearch: (_parent, { id }, { apiKey, services }) => services.savedSearches.remove(apiKey, id),
};
