import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { decodeCursor, encodeCursor } from '../common/cursor';
import { BadUserInputError } from '../errors';
import { CANDIDATE_CHANGE_KINDS, type ChangeEvent, type ChangeEventReader } from './change-events';

export const DEFAULT_CHANGES_PAGE = 100;
export const MAX_CHANGES_PAGE = 100;

export interface CandidateChangesArgs {
  after?: string | null;
  first?: number | null;
}

export interface CandidateChangePage {
  edges: { cursor: string; node: ChangeEvent }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/**
 * The change feed of candidates (candidateChanges): the outbox's candidate kinds in seq (commit)
 * order. The cursor is an event's seq, which the outbox keeps, so it stays valid across restarts.
 */
export class CandidateChangeService {
  constructor(private readonly changes: ChangeEventReader) {}

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
    return { edges, pageInfo: { hasNextPage: events.length > first, endCursor: edges.at(-1)?.cursor ?? null } };
  }
}

function encodeChangeCursor(seq: number): string {
  return encodeCursor(['change', String(seq)]);
}

function decodeChangeCursor(cursor: string): number {
  const parts = decodeCursor(cursor, ['text', 'text']);
  const seq = parts?.[0] === 'change' ? Number(parts[1]) : NaN;
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw new BadUserInputError('Invalid input: after must be a cursor of candidateChanges.', {
      parameter: 'after',
      rule: 'a cursor of candidateChanges',
    });
  }
  return seq;
}
