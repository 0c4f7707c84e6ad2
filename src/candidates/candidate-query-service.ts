import { createHash } from 'node:crypto';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { EpochCache } from '../cache/epoch-cache';
import { authorize } from '../auth/authorize';
import { decodeCursor, encodeCursor } from '../common/cursor';
import { BadUserInputError, NotFoundError } from '../errors';
import type { CandidateDoc, JobOpportunityDoc, SavedListDoc } from 'candidate-documents';
import { systemClock, type Clock } from '../common/clock';
import type { CandidatePosition, CandidateRepository } from './candidate-repository';
import type { SavedListRepository } from './saved-list-repository';
import { withSavedListMembers } from './saved-list-members';
import { listReaderOf } from './saved-list-service';
import type { CandidateOrder, CandidateSearchFilter, ResolvedSearchFilter } from './search-query';
import {
  MAX_LIMIT,
  MIN_LIMIT,
  searchVocabulary,
  throwIfAny,
  toOrder,
  toPage,
  toSearchFilter,
  type FilterInput,
  type VocabularySource,
} from './search-input';

/** A page of candidates as the contract shapes it (section 2.3). */
export interface CandidatePage {
  content: CandidateDoc[];
  totalElements: number;
  totalPages: number;
  /** the requested page size */
  size: number;
  /** the zero-based page number */
  number: number;
}

export interface CandidateConnection {
  edges: { cursor: string; node: CandidateDoc }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  totalCount: number;
}

export interface SearchArgs {
  filter?: FilterInput | null;
  /** a saved search of the caller to run instead of `filter` and `includeEmployed` */
  savedSearch?: string | null;
  includeEmployed?: boolean | null;
  page?: number | null;
  limit?: number | null;
  sort?: CandidateOrder | null;
}

/** A CandidatePage whose candidates are their stored bytes, for answers written from them (src/rest/transcoder/). */
export type RawCandidatePage = Omit<CandidatePage, 'content'> & { content: Uint8Array[] };

/** A search page as kept between requests: which candidates, in order, and the total. */
interface KeptPage {
  publicIds: string[];
  total: number;
}

/** How a search may use the read caches: the request's read epoch and its candidates loader. */
export interface CachedReads {
  readEpoch: string;
  load: (publicIds: readonly string[]) => Promise<(CandidateDoc | null)[]>;
}

export interface ConnectionArgs {
  filter?: FilterInput | null;
  includeEmployed?: boolean | null;
  first?: number | null;
  after?: string | null;
  sort?: CandidateOrder | null;
}

/** Where a saved search's filter is read (SavedSearchService): NOT_FOUND unless the caller may see it. */
export interface SavedSearchSource {
  searchOf(caller: ApiKeyRecord, id: string): Promise<{ filter: FilterInput; includeEmployed: boolean }>;
}

/** The read rules of candidates: searches, saved lists and cursors. */
export class CandidateQueryService {
  /** search pages by filter and page, each valid for the read epoch it was searched under */
  private readonly pages: EpochCache<string, KeptPage>;

  constructor(
    private readonly candidates: CandidateRepository,
    private readonly savedLists: SavedListRepository,
    /** search pages kept between requests (READ_CACHE_ENTRIES / 10); 0: none */
    keptPages = 0,
    /** the reference data (loaded) that language levels and education levels of a filter are read by */
    private readonly reference?: VocabularySource,
    /** the current year of the ages of a filter */
    private readonly clock: Clock = systemClock,
    /** the saved searches `savedSearch` names; absent: none can be named */
    private readonly savedSearches?: SavedSearchSource,
  ) {
    this.pages = new EpochCache(keptPages);
  }

  /**
   * The filter and order of a search as the repository takes them: checked and normalised
   * (search-input.ts, the rules of both transports), its saved lists read.
   */
  private async selection(
    caller: ApiKeyRecord,
    args: Pick<SearchArgs, 'filter' | 'includeEmployed' | 'sort' | 'savedSearch'>,
  ): Promise<{ filter: ResolvedSearchFilter; order: CandidateOrder }> {
    const vocabulary = this.reference && searchVocabulary(this.reference, this.clock.now());
    const asked = args.savedSearch == null ? args : await this.saved(caller, args.savedSearch, args.filter);
    const filter = toSearchFilter(asked.filter, asked.includeEmployed, vocabulary);
    const order = toOrder(args.sort, filter);
    const reader = listReaderOf(caller);
    const lists = { candidatesOf: (ids: readonly string[]) => this.savedLists.candidatesOf(ids, reader) };
    return { filter: await withSavedListMembers(filter, lists), order };
  }

  /** The filter of the saved search `id`, which then stands for `filter` and `includeEmployed`. */
  private async saved(
    caller: ApiKeyRecord,
    id: string,
    filter: FilterInput | null | undefined,
  ): Promise<{ filter: FilterInput; includeEmployed: boolean }> {
    if (filter != null) throwIfAny([{ parameter: 'filter', rule: 'absent together with savedSearch' }]);
    if (this.savedSearches === undefined) throw new NotFoundError('No saved search of this API key has this id.');
    return this.savedSearches.searchOf(caller, id);
  }

  /** One candidate by public id (null when unknown), through the request's loader. */
  findCandidate(
    caller: ApiKeyRecord,
    publicId: string,
    load: (publicId: string) => Promise<CandidateDoc | null>,
  ): Promise<CandidateDoc | null> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    return load(publicId);
  }

  /**
   * Search in the one stable order (creation date, then publicId); a page past the end is empty.
   * `fields`: the stored fields the caller reads of each candidate (absent: all of them).
   * With `cached`, a page searched under the same read epoch before is not searched again:
   * its candidates come through the request's loader (and so from the candidate cache).
   */
  async search(
    caller: ApiKeyRecord,
    args: SearchArgs,
    fields?: readonly string[],
    cached?: CachedReads,
  ): Promise<CandidatePage> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const { page, limit } = toPage(args.page, args.limit);
    const { filter, order } = await this.selection(caller, args);
    // A filter of saved lists finds what its caller may read of them (a partner's lists are its own).
    const reader = filter.inSavedLists || filter.notInSavedLists ? listReaderOf(caller) : undefined;
    const key = cached && JSON.stringify([withoutMembers(filter), order, page, limit, reader]);
    const kept = cached && this.pages.get(key!, cached.readEpoch);
    if (kept) {
      const content = (await cached.load(kept.publicIds)).filter((doc): doc is CandidateDoc => doc !== null);
      return pageOf(content, kept.total, page, limit);
    }
    const { items, total } = await this.candidates.search(filter, { skip: page * limit, limit }, fields, order);
    if (cached) this.pages.set(key!, cached.readEpoch, { publicIds: items.map((doc) => doc.publicId), total });
    return pageOf(items, total, page, limit);
  }

  /**
   * search with the same rules, its candidates as stored bytes holding `fields` (at least
   * those). Reads the store every time: the pages and candidates kept between requests are
   * decoded documents, and the answers written from bytes are kept whole by the REST layer.
   */
  async searchRaw(caller: ApiKeyRecord, args: SearchArgs, fields: readonly string[]): Promise<RawCandidatePage> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const { page, limit } = toPage(args.page, args.limit);
    const { filter, order } = await this.selection(caller, args);
    const { items, total } = await this.candidates.searchRaw(filter, { skip: page * limit, limit }, fields, order);
    return pageOf(items, total, page, limit);
  }

  /** findCandidate, the candidate as its stored bytes. */
  findCandidateRaw(
    caller: ApiKeyRecord,
    publicId: string,
    load: (publicId: string) => Promise<Uint8Array | null>,
  ): Promise<Uint8Array | null> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    return load(publicId);
  }

  /**
   * Keyset pagination: cursors name a position in the order, so inserts never shift them. A
   * ranked keyword search (RELEVANCE) has no stable position (a candidate added may rank
   * anywhere): its cursors name a place in the ranking. `fields` as in search.
   */
  async connection(
    caller: ApiKeyRecord,
    args: ConnectionArgs,
    fields?: readonly string[],
  ): Promise<CandidateConnection> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const first = args.first ?? 10;
    if (!Number.isSafeInteger(first) || first < MIN_LIMIT || first > MAX_LIMIT) {
      throwIfAny([{ parameter: 'first', rule: `an integer from ${MIN_LIMIT} to ${MAX_LIMIT}` }]);
    }
    const { filter, order } = await this.selection(caller, args);
    const fingerprint = filterFingerprint(filter, order);
    // One extra candidate tells whether another page follows without a second query.
    let items: CandidateDoc[];
    let cursorOf: (node: CandidateDoc, index: number) => string;
    let totalCount: number;
    if (order === 'RELEVANCE') {
      const offset = args.after == null ? 0 : decodeRankCursor(args.after, fingerprint);
      ({ items, total: totalCount } = await this.candidates.search(
        filter,
        { skip: offset, limit: first + 1 },
        fields,
        order,
      ));
      cursorOf = (_node, index) => encodeCursor(['rank', String(offset + index + 1), fingerprint]);
    } else {
      const after = args.after == null ? null : decodeConnectionCursor(args.after, fingerprint);
      [items, totalCount] = await Promise.all([
        this.candidates.searchAfter(filter, after, first + 1, fields),
        this.candidates.count(filter),
      ]);
      cursorOf = (node) => encodeConnectionCursor(node, fingerprint);
    }
    const edges = items.slice(0, first).map((node, index) => ({ cursor: cursorOf(node, index), node }));
    return {
      edges,
      pageInfo: { hasNextPage: items.length > first, endCursor: edges.at(-1)?.cursor ?? null },
      totalCount,
    };
  }

  /**
   * One job opportunity by public id (null when unknown), through the request's loader. Job
   * opportunities are read as part of candidates (their visa job checks), so they need what
   * candidates need.
   */
  findJobOpportunity(
    caller: ApiKeyRecord,
    publicId: string,
    load: (publicId: string) => Promise<JobOpportunityDoc | null>,
  ): Promise<JobOpportunityDoc | null> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    return load(publicId);
  }

  /** The list of this public id, when `caller` may read it: one loaded with the data, or its own (ADMIN: any). */
  findSavedList(caller: ApiKeyRecord, publicId: string): Promise<SavedListDoc | null> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    return this.savedLists.findByPublicId(publicId, listReaderOf(caller));
  }

  /**
   * One page of a saved list, in list order. Totals count the list's entries that are still
   * candidates, so totalElements and totalPages are true for the whole list (the original
   * service reported the page's size instead).
   */
  savedListPage(
    list: SavedListDoc,
    args: { page?: number | null; limit?: number | null },
    loadCandidates: (publicIds: readonly string[]) => Promise<(CandidateDoc | null)[]>,
  ): Promise<CandidatePage> {
    return this.listPage(list, args, loadCandidates);
  }

  /** savedListPage, its candidates as stored bytes (`loadCandidates` answers in key order, null for a missing one). */
  savedListPageRaw(
    list: SavedListDoc,
    args: { page?: number | null; limit?: number | null },
    loadCandidates: (publicIds: readonly string[]) => Promise<(Uint8Array | null)[]>,
  ): Promise<RawCandidatePage> {
    return this.listPage(list, args, loadCandidates);
  }

  private async listPage<T>(
    list: SavedListDoc,
    args: { page?: number | null; limit?: number | null },
    loadCandidates: (publicIds: readonly string[]) => Promise<(T | null)[]>,
  ): Promise<Omit<CandidatePage, 'content'> & { content: T[] }> {
    const { page, limit } = toPage(args.page, args.limit);
    const existing = await this.candidates.findExistingPublicIds(list.candidatePublicIds);
    const members = [...new Set(list.candidatePublicIds)].filter((id) => existing.has(id));
    const slice = members.slice(page * limit, page * limit + limit);
    const content = (await loadCandidates(slice)).filter((doc): doc is T => doc !== null);
    return pageOf(content, members.length, page, limit);
  }
}

function pageOf<T>(
  content: T[],
  total: number,
  page: number,
  limit: number,
): Omit<CandidatePage, 'content'> & { content: T[] } {
  return { content, totalElements: total, totalPages: Math.ceil(total / limit), size: limit, number: page };
}

/** The filter without the candidates of its saved lists (read anew per request): what identifies a search. */
function withoutMembers(filter: ResolvedSearchFilter): CandidateSearchFilter {
  const { members: _members, excluded: _excluded, ...rest } = filter;
  return rest;
}

/**
 * A short digest of the normalised filter and order, carried in cursors to catch reuse with
 * another filter. A filter of the first three fields in the order of creation has the digest
 * it had before the other fields existed, so the cursors clients hold stay valid.
 */
function filterFingerprint(filter: ResolvedSearchFilter, order: CandidateOrder): string {
  const { locations, nationalities, occupations, includeEmployed, ...others } = withoutMembers(filter);
  const more = Object.values(others).some((value) => value !== undefined) ? [others] : [];
  const canonical = JSON.stringify([
    [...(locations ?? [])].sort(),
    [...(nationalities ?? [])].sort(),
    [...(occupations ?? [])].sort(),
    includeEmployed,
    ...more,
    ...(order === 'CREATED' ? [] : [order]),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 8);
}

/** The place after which a page of a ranked search starts, from its cursor. */
function decodeRankCursor(cursor: string, fingerprint: string): number {
  const parts = decodeCursor(cursor, ['text', 'text', 'text']);
  const offset = parts?.[0] === 'rank' && /^\d{1,9}$/.test(parts[1]) ? Number(parts[1]) : undefined;
  if (offset === undefined || parts?.[2] !== fingerprint) throw invalidCursor();
  return offset;
}

function encodeConnectionCursor(node: CandidateDoc, fingerprint: string): string {
  return encodeCursor([node.createdDate, node.publicId, fingerprint]);
}

function decodeConnectionCursor(cursor: string, fingerprint: string): CandidatePosition {
  const parts = decodeCursor(cursor, ['time', 'text', 'text']);
  if (parts === undefined || parts[2] !== fingerprint) throw invalidCursor();
  const [createdDate, publicId] = parts;
  return { createdDate, publicId };
}

function invalidCursor(): BadUserInputError {
  return new BadUserInputError('Invalid input: after must be a cursor of this connection with the same filter.', {
    parameter: 'after',
    rule: 'a cursor from this connection',
  });
}
