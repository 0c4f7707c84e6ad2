import { throwIfAny } from '../errors';
import type { ReferenceCollection, ReferenceDocs, ReferenceRepository } from './reference-repository';

const MAX_SEARCH_LENGTH = 100;

/** Read access to the reference data; any authenticated caller may read it. */
export class ReferenceService {
  constructor(private readonly reference: ReferenceRepository) {}

  list<C extends ReferenceCollection>(collection: C): Promise<ReferenceDocs[C][]> {
    return this.reference.list(collection);
  }

  /** Occupations whose code or title contains `search` (case-insensitive), in code order. */
  searchOccupations(
    search: string | null | undefined,
    limit: number | null | undefined,
  ): Promise<ReferenceDocs['occupations'][]> {
    const issues = [];
    if (search != null && search.length > MAX_SEARCH_LENGTH) {
      issues.push({ parameter: 'search', rule: `at most ${MAX_SEARCH_LENGTH} characters` });
    }
    if (limit != null && (!Number.isSafeInteger(limit) || limit < 1))
      issues.push({ parameter: 'limit', rule: 'an integer >= 1' });
    throwIfAny(issues);
    return this.reference.list('occupations', { search: search ?? undefined, limit: limit ?? undefined });
  }
}
