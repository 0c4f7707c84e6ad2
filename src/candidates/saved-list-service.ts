import { newPublicId, type SavedListDoc } from 'candidate-documents';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { hasPermission } from '../auth/permissions';
import type { Clock } from '../common/clock';
import { BadUserInputError, ForbiddenError, NotFoundError, throwIfAny } from '../errors';
import type { CandidateRepository } from './candidate-repository';
import { nameIssues } from './key-owned';
import type { ListReader, SavedListRepository } from './saved-list-repository';

/** Lists one API key may keep. */
export const MAX_SAVED_LISTS_PER_KEY = 50;
/** Candidates one partner list may hold: a shortlist, not a copy of the directory. */
export const MAX_SAVED_LIST_SIZE = 1000;
/** Candidates one change (create, add, remove) may name, as a job match may. */
export const MAX_CANDIDATES_PER_CHANGE = 100;

/** A list as `savedLists` shows it: without its members, with their number. */
export type SavedListOverview = Omit<SavedListDoc, 'candidatePublicIds'> & { size: number };

/** Whose lists `caller` may read: the data's, its own, or (ADMIN) every key's. */
export function listReaderOf(caller: Pick<ApiKeyRecord, 'id' | 'permissions'>): ListReader {
  return { keyId: caller.id, all: caller.permissions.includes('ADMIN') };
}

/**
 * The rules of partners' own saved lists: a key with READ_CANDIDATE_DATA makes its lists (at
 * most MAX_SAVED_LISTS_PER_KEY, each of at most MAX_SAVED_LIST_SIZE candidates) and alone
 * changes them; another key is answered as if the list did not exist (NOT_FOUND, never
 * FORBIDDEN), an ADMIN key reads and changes every key's. Lists loaded with the data are read
 * by every key and changed by none.
 */
export class SavedListService {
  constructor(
    private readonly lists: SavedListRepository,
    private readonly candidates: Pick<CandidateRepository, 'findExistingPublicIds'>,
    private readonly clock: Clock,
  ) {}

  /** The lists `caller` may read. */
  async readable(caller: ApiKeyRecord): Promise<SavedListOverview[]> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    return this.lists.listReadable(listReaderOf(caller));
  }

  async create(
    caller: ApiKeyRecord,
    input: { name: string; candidates?: readonly string[] | null },
  ): Promise<SavedListDoc> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    throwIfAny(nameIssues(input.name, 'name'));
    const members = await this.existing(input.candidates ?? [], 'candidates', 0);
    if ((await this.lists.countOwnedBy(caller.id)) >= MAX_SAVED_LISTS_PER_KEY)
      throw new BadUserInputError(`An API key keeps at most ${MAX_SAVED_LISTS_PER_KEY} saved lists.`, {
        parameter: 'savedLists',
        rule: `at most ${MAX_SAVED_LISTS_PER_KEY} per API key`,
      });
    const now = this.clock.now();
    const list: SavedListDoc = {
      publicId: newPublicId(),
      name: input.name.trim(),
      candidatePublicIds: members,
      createdDate: now,
      ownerKeyId: caller.id,
      updatedDate: now,
    };
    await this.lists.insert(list);
    return list;
  }

  async add(caller: ApiKeyRecord, publicId: string, candidates: readonly string[]): Promise<SavedListDoc> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    await this.changeable(caller, publicId);
    const members = await this.existing(candidates, 'candidates', 1);
    const updated = await this.lists.append(publicId, members, MAX_SAVED_LIST_SIZE, this.clock.now());
    if (updated === 'full')
      throw new BadUserInputError(`A saved list holds at most ${MAX_SAVED_LIST_SIZE} candidates.`, {
        parameter: 'candidates',
        rule: `at most ${MAX_SAVED_LIST_SIZE} candidates in a list in all`,
      });
    return updated ?? notFound();
  }

  async remove(caller: ApiKeyRecord, publicId: string, candidates: readonly string[]): Promise<SavedListDoc> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const list = await this.changeable(caller, publicId);
    const ids = unique(candidates, 'candidates', 1);
    // A member whose candidate is gone can still be removed; an id neither a member nor a candidate is unknown.
    const members = new Set(list.candidatePublicIds);
    const existing = await this.candidates.findExistingPublicIds(ids.filter((id) => !members.has(id)));
    const unknown = ids.filter((id) => !members.has(id) && !existing.has(id));
    if (unknown.length > 0) throw new NotFoundError(`Candidate(s) not found: ${unknown.join(', ')}.`);
    return (await this.lists.remove(publicId, ids, this.clock.now())) ?? notFound();
  }

  async rename(caller: ApiKeyRecord, publicId: string, name: string): Promise<SavedListDoc> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    throwIfAny(nameIssues(name, 'name'));
    await this.changeable(caller, publicId);
    return (await this.lists.rename(publicId, name.trim(), this.clock.now())) ?? notFound();
  }

  async delete(caller: ApiKeyRecord, publicId: string): Promise<SavedListDoc> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    await this.changeable(caller, publicId);
    return (await this.lists.delete(publicId)) ?? notFound();
  }

  /** The list, when `caller` may change it: NOT_FOUND when it may not see it, FORBIDDEN for a list of the data. */
  private async changeable(caller: ApiKeyRecord, publicId: string): Promise<SavedListDoc> {
    const list = await this.lists.findByPublicId(publicId, listReaderOf(caller));
    if (list === null) return notFound();
    if (list.ownerKeyId === undefined)
      throw new ForbiddenError('This saved list was loaded with the data and is read-only.');
    if (list.ownerKeyId !== caller.id && !hasPermission(caller.permissions, 'ADMIN')) return notFound();
    return list;
  }

  /** The ids given, each once in their order, once every one names a candidate (NOT_FOUND naming the others). */
  private async existing(ids: readonly string[], parameter: string, min: number): Promise<string[]> {
    const given = unique(ids, parameter, min);
    const found = await this.candidates.findExistingPublicIds(given);
    const missing = given.filter((id) => !found.has(id));
    if (missing.length > 0) throw new NotFoundError(`Candidate(s) not found: ${missing.join(', ')}.`);
    return given;
  }
}

function unique(ids: readonly string[], parameter: string, min: number): string[] {
  const given = [...new Set(ids)];
  if (given.length < min || given.length > MAX_CANDIDATES_PER_CHANGE)
    throwIfAny([{ parameter, rule: `${min} to ${MAX_CANDIDATES_PER_CHANGE} candidates` }]);
  return given;
}

function notFound(): never {
  throw new NotFoundError('No saved list of this API key has this public id.');
}
