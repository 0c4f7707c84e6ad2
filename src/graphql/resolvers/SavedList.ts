import type { SavedListResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';
import { loadAll } from '../loaders';

export const SavedList: SavedListResolvers = {
  id: (list) => toGlobalId('SavedList', list.publicId),
  candidates: (list, args, { services, loaders }) =>
    services.candidateQueries.savedListPage(list, args, (ids) => loadAll(loaders.candidates, ids)),
};
