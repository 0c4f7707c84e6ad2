import type { CandidateSearchFilter, ResolvedSearchFilter } from './search-query';
import type { SavedListRepository } from './saved-list-repository';

/**
 * The filter with the candidates of its saved lists read (searchQuery names them by id). A list
 * id that names no list has no candidates: in `inSavedLists` it adds no one (a filter of unknown
 * lists only matches no one), in `notInSavedLists` it excludes no one, as a code that no
 * candidate has matches no one.
 */
export async function withSavedListMembers(
  filter: CandidateSearchFilter,
  lists: Pick<SavedListRepository, 'candidatesOf'>,
): Promise<ResolvedSearchFilter> {
  const [members, excluded] = await Promise.all([
    filter.inSavedLists?.length ? lists.candidatesOf(filter.inSavedLists) : undefined,
    filter.notInSavedLists?.length ? lists.candidatesOf(filter.notInSavedLists) : undefined,
  ]);
  return {
    ...filter,
    ...(members !== undefined ? { members: members.sort() } : {}),
    ...(excluded !== undefined ? { excluded: excluded.sort() } : {}),
  };
}
