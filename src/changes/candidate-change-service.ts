import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { decodeCursor, encodeCursor } from '../common/cursor';
import { BadUserInputError } from '../errors';
import { CANDIDATE_CHANGE_KINDS, type ChangeEvent, type ChangeEventReader } from './change-events';
import { followChanges, type FollowedChange } from './change-follower';
import { FeedTip } from './feed-tip';

/** How often the feed's tip is read while live followers wait, and how often each checks its key while idle. */
export const FOLLOW_POLL_MS = 200;
export const FOLLOW_KEY_CHECK_MS = 1000;

export const DEFAULT_CHANGES_PAGE = 100;
export const MAX_CHANGES_PAGE = 100;

export interface CandidateChangesArgs {
  after?: string | null;
  first?: number | null;
}

export interface CandidateChangePage {
  edges: { cursor: string; node: ChangeEvent }[];
  /** `endCursor`: the last edge's cursor; on an empty page, the cursor the page was read after */
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

/**
 * The change feed of candidates (candidateChanges): the outbox's candidate kinds in seq (commit)
 * order. The cursor is a seq, which the outbox keeps, so it stays valid across restarts: an
 * event's, or the position of the whole outbox (`position`), which a partner takes before a bulk
 * export and then follows, so that no change made during the export is missed.
 */
export class CandidateChangeService {
  /** the feed's tip, polled once for every live follower of this process */
  private readonly tip: FeedTip;

  constructor(private readonly changes: ChangeEventReader) {
    this.tip = new FeedTip(() => changes.lastSeq(), FOLLOW_POLL_MS);
  }

  /**
   * The feed as it happens (subscription `candidateChanged`): every change after `after` (absent:
   * after now), one at a time, for as long as the consumer asks. `caller` is asked for the key as
   * it is now before every event, and at least every FOLLOW_KEY_CHECK_MS while idle: a key revoked
   * (UnauthenticatedError) or without READ_CANDIDATE_DATA any more (ForbiddenError) ends it.
   */
  async follow(
    caller: () => Promise<ApiKeyRecord>,
    args: { after?: string | null },
  ): Promise<AsyncIterableIterator<FollowedChange>> {
    const check = async () => authorize(await caller(), 'READ_CANDIDATE_DATA');
    await check();
    const start = args.after == null ? await this.changes.lastSeq() : decodeChangeCursor(args.after);
    return followChanges({
      read: (after) => this.changes.readAfter(after, MAX_CHANGES_PAGE, CANDIDATE_CHANGE_KINDS),
      start,
      cursorOf: (event) => encodeChangeCursor(event.seq),
      check,
      tip: this.tip,
      checkEveryMs: FOLLOW_KEY_CHECK_MS,
      // Waits of the transport, not a rule of the product: the monotonic clock, not the app's.
      now: () => performance.now(),
    });
  }

  /** The cursor of the feed as it is now: what follows it is every change committed from now on. */
  async position(caller: ApiKeyRecord): Promise<string> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    return encodeChangeCursor(await this.changes.lastSeq());
  }

  async list(caller: ApiKeyRecord, args: CandidateChangesArgs): Promise<CandidateChangePage> {
    authorize(caller, 'READ_CANDIDATE_DATA');
    const first = args.first ?? DEFAULT_CHANGES_PAGE;
    if (!Number.isSafeInteger(first) || first < 1 || first > MAX_CHANGES_PAGE) {
      throw new BadUserInputError(`Invalid input: first must be an integer from 1 to ${MAX_CHANGES_PAGE}.`, {
        parameter: 'first',
        rule: `an integer from 1 to ${MAX_CHANGES_PAGE}`,
      });
    }
    const after = args.after == null ? 0 : decodeChangeCursor(args.after);
    // One extra event tells whether another page follows without a second query.
    const events = await this.changes.readAfter(after, first + 1, CANDIDATE_CHANGE_KINDS);
    const edges = events.slice(0, first).map((node) => ({ cursor: encodeChangeCursor(node.seq), node }));
    // A partner keeps the last endCursor: a page with nothing new must not send it back to the start.
    const endCursor = edges.at(-1)?.cursor ?? encodeChangeCursor(after);
    return { edges, pageInfo: { hasNextPage: events.length > first, endCursor } };
  }
}

/** A seq as a cursor spells it: decimal digits, no sign, no leading zero. */
const SEQ_TEXT = /^(0|[1-9][0-9]*)$/;

function encodeChangeCursor(seq: number): string {
  return encodeCursor(['change', String(seq)]);
}

function decodeChangeCursor(cursor: string): number {
  const parts = decodeCursor(cursor, ['text', 'text']);
  const seq = parts?.[0] === 'change' && SEQ_TEXT.test(parts[1]) ? Number(parts[1]) : NaN;
  if (!Number.isSafeInteger(seq)) {
    throw new BadUserInputError('Invalid input: after must be a cursor of candidateChanges.', {
      parameter: 'after',
      rule: 'a cursor of candidateChanges',
    });
  }
  return seq;
}
