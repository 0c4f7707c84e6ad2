import { createHash } from 'node:crypto';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { EpochCache } from '../cache/epoch-cache';
import { authorize } from '../auth/authorize';
import { decodeCursor, encodeCursor } from '../common/cursor';
import { BadUserInputError } from '../errors';
import type { CandidateDoc, JobOpportunityDoc, SavedListDoc } from 'candidate-documents';
import type { CandidatePosition, CandidateRepository, CandidateSearchFilter } from './candidate-repository';
import type { SavedListRepository } from './saved-list-repository';
import { MAX_LIMIT, MIN_LIMIT, throwIfAny, toPage, toSearchFilter, type FilterInput } from './search-input';

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
  includeEmployed?: boolean | null;
  page?: number | null;
  limit?: number | null;
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
  ) {
    this.pages = new EpochCache(keptPages);
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
    const filter = toSearchFilter(args.filter, args.includeEmployed);
    const { page, limit } = toPage(args.page, args.limit);
    const key = cached && JSON.stringify([filter, page, limit]);
    const kept = cached && this.pages.get(key!, cached.readEpoch);
    if (kept) {
      const content = (await cached.load(kept.publicIds)).filter((doc): doc is CandidateDoc => doc !== null);
      return pageOf(content, kept.total, page, limit);
    }
    const { items, total } = await this.candidates.search(filter, { skip: page * limit, limit }, fields);
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
    const filter = toSearchFilter(args.filter, args.includeEmployed);
    const { page, limit } = toPage(args.page, args.limit);
    const { items, total } = await this.candidates.searchRaw(filter, { skip: page * limit, limit }, fields);
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

  /** Keyset pagination: cursors name a position in the order, so inserts never shift them. `fields` as in search. */
  async connection(
    caller: ApiKeyRecord,
    args: ConnectionArgs,
    fields?: readonly string[],
  ): Promise<CandidateConnection> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const filter = toSearchFilter(args.filter, args.includeEmployed);
    const first = args.first ?? 10;
    if (!Number.isSafeInteger(first) || first < MIN_LIMIT || first > MAX_LIMIT) {
      throwIfAny([{ parameter: 'first', rule: `an integer from ${MIN_LIMIT} to ${MAX_LIMIT}` }]);
    }
    const fingerprint = filterFingerprint(filter);
    const after = args.after == null ? null : decodeConnectionCursor(args.after, fingerprint);
    // One extra candidate tells whether another page follows without a second query.
    const [items, totalCount] = await Promise.all([
      this.candidates.searchAfter(filter, after, first + 1, fields),
      this.candidates.count(filter),
    ]);
    const edges = items.slice(0, first).map((node) => ({ cursor: encodeConnectionCursor(node, fingerprint), node }));
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

  findSavedList(caller: ApiKeyRecord, publicId: string): Promise<SavedListDoc | null> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    return this.savedLists.findByPublicId(publicId);
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

/** A short digest of the normalised filter, carried in cursors to catch reuse with another filter. */
function filterFingerprint(filter: CandidateSearchFilter): string {
  const canonical = JSON.stringify([
    [...(filter.locations ?? [])].sort(),
    [...(filter.nationalities ?? [])].sort(),
    [...(filter.occupations ?? [])].sort(),
    filter.includeEmployed,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 8);
}

function encodeConnectionCursor(node: CandidateDoc, fingerprint: string): string {
  return encodeCursor([node.createdDate, node.publicId, fingerprint]);
}

function decodeConnectionCursor(cursor: string, fingerprint: string): CandidatePosition {
  const parts = decodeCursor(cursor, ['time', 'text', 'text']);
  if (parts === undefined || parts[2] !== fingerprint) {
    throw new BadUserInputError('Invalid input: after must be a cursor of this connection with the same filter.', {
      parameter: 'after',
      rule: 'a cursor from this connection',
    });
  }
  const [createdDate, publicId] = parts;
  return { createdDate, publicId };
}
