import type { SavedListResolvers } from '../generated/resolvers-types';
import { loadAll } from '../loaders';

export const SavedList: SavedListResolvers = {
  candidates: (list, args, { services, loaders }) =>
    services.candidateQueries.savedListPage(list, args, (ids) => loadAll(loaders.candidates, ids)),
};
