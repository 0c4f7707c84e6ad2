import { newPublicId } from 'candidate-documents';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import type { Clock } from '../common/clock';
import { BadUserInputError, NotFoundError, throwIfAny, type InputIssue } from '../errors';
import type { ReferenceCache } from '../reference/reference-cache';
import { nameIssues, ownedBy } from './key-owned';
import type { SavedSearchDoc, SavedSearchRepository } from './saved-search-repository';
import { searchVocabulary, toSearchFilter, type FilterInput } from './search-input';

/** Saved searches one API key may keep: a watch list of questions, not a store of queries. */
export const MAX_SAVED_SEARCHES_PER_KEY = 100;

export interface SavedSearchInput {
  name: string;
  filter?: FilterInput | null;
  includeEmployed?: boolean | null;
}

export type SavedSearchUpdate = Partial<SavedSearchInput>;

/** A saved search as read: with the codes of its filter that the reference data no longer lists. */
export interface SavedSearchRecord extends SavedSearchDoc {
  inactiveCodes: { field: CodeField; code: string }[];
}

type CodeField = 'location' | 'nationality' | 'occupation' | 'languages';

/** The reference data a saved filter's codes are checked against (ReferenceCache, after its load). */
export type ReferenceCodes = Pick<ReferenceCache, 'find' | 'keys'>;

type Caller = Pick<ApiKeyRecord, 'id' | 'permissions'>;

/**
 * The rules of saved searches: a key's own (ADMIN: every key's), at most
 * MAX_SAVED_SEARCHES_PER_KEY each, filters checked when saved by the search's own rules
 * (toSearchFilter) and their codes against the reference data; codes the reference data drops
 * later are reported with the search (inactiveCodes), never dropped from it.
 */
export class SavedSearchService {
  constructor(
    private readonly repository: SavedSearchRepository,
    private readonly reference: ReferenceCodes,
    private readonly clock: Clock,
  ) {}

  async create(caller: ApiKeyRecord, input: SavedSearchInput): Promise<SavedSearchRecord> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const filter = this.checked(input.filter, input.includeEmployed, nameIssues(input.name, 'name'));
    if ((await this.repository.countOf(caller.id)) >= MAX_SAVED_SEARCHES_PER_KEY)
      throw new BadUserInputError(`An API key keeps at most ${MAX_SAVED_SEARCHES_PER_KEY} saved searches.`, {
        parameter: 'savedSearches',
        rule: `at most ${MAX_SAVED_SEARCHES_PER_KEY} per API key`,
      });
    const now = this.clock.now();
    const search: SavedSearchDoc = {
      id: newPublicId(),
      ownerKeyId: caller.id,
      name: input.name.trim(),
      filter,
      includeEmployed: input.includeEmployed ?? false,
      createdDate: now,
      updatedDate: now,
    };
    await this.repository.insert(search);
    return this.withReport(search);
  }

  async list(caller: ApiKeyRecord): Promise<SavedSearchRecord[]> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const all = hasAdmin(caller) ? undefined : caller.id;
    return (await this.repository.list(all)).map((search) => this.withReport(search));
  }

  /** The search of this id that `caller` may see; null otherwise. */
  async find(caller: ApiKeyRecord, id: string): Promise<SavedSearchRecord | null> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const search = await this.visible(caller, id);
    return search && this.withReport(search);
  }

  async update(caller: ApiKeyRecord, id: string, input: SavedSearchUpdate): Promise<SavedSearchRecord> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const current = await this.visible(caller, id);
    if (current === null) throw notFound();
    const issues = input.name == null ? [] : nameIssues(input.name, 'name');
    const includeEmployed = input.includeEmployed ?? current.includeEmployed;
    const filter = this.checked(input.filter === undefined ? current.filter : input.filter, includeEmployed, issues);
    const updated = await this.repository.update(id, {
      ...(input.name != null ? { name: input.name.trim() } : {}),
      filter,
      includeEmployed,
      updatedDate: this.clock.now(),
    });
    if (updated === null) throw notFound();
    return this.withReport(updated);
  }

  async remove(caller: ApiKeyRecord, id: string): Promise<SavedSearchRecord> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const search = await this.visible(caller, id);
    if (search === null || !(await this.repository.remove(id))) throw notFound();
    return this.withReport(search);
  }

  /** What `candidates(savedSearch: id)` runs: the saved filter; NOT_FOUND unless `caller` may see it. */
  async searchOf(caller: ApiKeyRecord, id: string): Promise<{ filter: FilterInput; includeEmployed: boolean }> {
    const search = await this.visible(caller, id);
    if (search === null) throw notFound();
    return { filter: search.filter, includeEmployed: search.includeEmployed };
  }

  private async visible(caller: Caller, id: string): Promise<SavedSearchDoc | null> {
    const search = await this.repository.findById(id);
    return search !== null && ownedBy(caller, search.ownerKeyId) ? search : null;
  }

  /**
   * The filter as it is saved (nulls left out), once the search's own rules accept it and the
   * reference data lists each of its codes. Throws one BadUserInputError naming every issue.
   */
  private checked(
    raw: FilterInput | null | undefined,
    includeEmployed: boolean | null | undefined,
    issues: InputIssue[],
  ): FilterInput {
    const filter = withoutNulls(raw ?? {});
    try {
      toSearchFilter(filter, includeEmployed, searchVocabulary(this.reference, this.clock.now()));
    } catch (error) {
      if (error instanceof BadUserInputError && error.details)
        issues.push(...error.details.map((d) => ({ ...d, parameter: `filter.${d.parameter}` })));
      else throw error;
    }
    if (issues.length === 0)
      for (const field of new Set(this.inactiveCodes(filter).map((inactive) => inactive.field)))
        issues.push({ parameter: `filter.${field}`, rule: 'active codes of the reference data' });
    throwIfAny(issues);
    return filter;
  }

  private withReport(search: SavedSearchDoc): SavedSearchRecord {
    return { ...search, inactiveCodes: this.inactiveCodes(search.filter) };
  }

  /** The codes of `filter` the reference data does not list as ACTIVE, compared as the search compares them. */
  private inactiveCodes(filter: FilterInput): { field: CodeField; code: string }[] {
    const missing: { field: CodeField; code: string }[] = [];
    const check = (
      field: CodeField,
      codes: readonly string[] | null | undefined,
      listed: (code: string) => boolean,
    ) => {
      for (const code of codes ?? []) if (code.trim() !== '' && !listed(code.trim())) missing.push({ field, code });
    };
    const active = (doc: { status: string } | null) => doc?.status === 'ACTIVE';
    check('location', filter.location, (code) => active(this.reference.find('countries', code.toUpperCase())));
    check('nationality', filter.nationality, (code) => active(this.reference.find('countries', code.toUpperCase())));
    check('occupation', filter.occupation, (code) => active(this.reference.find('occupations', code)));
    check(
      'languages',
      filter.languages?.map((requirement) => requirement.language),
      (code) => active(this.reference.find('languages', code.toLowerCase())),
    );
    return missing;
  }
}

function hasAdmin(caller: Caller): boolean {
  return caller.permissions.includes('ADMIN');
}

function notFound(): NotFoundError {
  return new NotFoundError('No saved search of this API key has this id.');
}

/** The filter without null fields (and requirements without null minimums): what is stored. */
function withoutNulls(filter: FilterInput): FilterInput {
  const entries = Object.entries(filter).filter(([, value]) => value != null);
  return Object.fromEntries(
    entries.map(([field, value]) => [
      field,
      Array.isArray(value)
        ? value.map((item: unknown) =>
            typeof item === 'object' && item !== null
              ? Object.fromEntries(Object.entries(item).filter(([, v]) => v != null))
              : item,
          )
        : value,
    ]),
  );
}
