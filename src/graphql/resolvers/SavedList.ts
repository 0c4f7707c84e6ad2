import type { SavedListResolvers } from '../generated/resolvers-types';

export const SavedList: SavedListResolvers = {
  candidates: (list, args, { services, loaders }) =>
    services.candidateQueries.savedListPage(list, args, (ids) => loaders.candidates.loadMany(ids).then(failOnError)),
};

/** loadMany answers an Error in place of a failed key; a failed batch fails the field instead. */
function failOnError<V>(values: (V | Error)[]): V[] {
  const failure = values.find((value): value is Error => value instanceof Error);
  if (failure) throw failure;
  return values as V[];
}
