import type { MutationResolvers, QueryResolvers, SavedListSummaryResolvers } from '../generated/resolvers-types';

/** The root fields of the partners' lists in schema/saved-list.graphql; merged into Query in index.ts. */
export const SavedListQuery: QueryResolvers = {
  savedLists: (_parent, _args, { apiKey, services }) => services.savedLists.readable(apiKey),
};

// The audit trail records the candidates a change names, as a job match does.
export const SavedListMutation: MutationResolvers = {
  createSavedList: (_parent, { input }, { apiKey, services, audit }) => {
    audit.addCandidates(input.candidates ?? []);
    return services.savedLists.create(apiKey, input);
  },
  addToSavedList: (_parent, { publicId, candidates }, { apiKey, services, audit }) => {
    audit.addCandidates(candidates);
    return services.savedLists.add(apiKey, publicId, candidates);
  },
  removeFromSavedList: (_parent, { publicId, candidates }, { apiKey, services, audit }) => {
    audit.addCandidates(candidates);
    return services.savedLists.remove(apiKey, publicId, candidates);
  },
  renameSavedList: (_parent, { publicId, name }, { apiKey, services }) =>
    services.savedLists.rename(apiKey, publicId, name),
  deleteSavedList: (_parent, { publicId }, { apiKey, services }) => services.savedLists.delete(apiKey, publicId),
};

export const SavedListSummary: SavedListSummaryResolvers = {
  readOnly: (list) => list.ownerKeyId === undefined,
};
