import type { ClientSession, Db } from 'mongodb';
import type { CompanionWrite } from '../store/write-transaction';
import { CHANGE_COLLECTIONS } from './change-indexes';

/** What changed. The candidate feed (candidateChanges) shows the first four; webhooks may deliver all. */
export type ChangeKind = 'REGISTERED' | 'IMPORTED' | 'UPDATED' | 'ERASED' | 'JOB_MATCH' | 'OFFER';

/** The kinds of changes to a candidate itself (the candidateChanges feed). */
export const CANDIDATE_CHANGE_KINDS: readonly ChangeKind[] = ['REGISTERED', 'IMPORTED', 'UPDATED', 'ERASED'];

/**
 * One change, as the outbox keeps it. It names the candidate only by its pseudonymous publicId
 * and never holds identity data or the candidate's content (readers fetch the current candidate).
 */
export interface ChangeEvent {
  /** strictly increasing in commit order, from 1; gaps are possible (an aborted transaction) */
  seq: number;
  kind: ChangeKind;
  /** the candidate's publicId */
  publicId: string;
  /** when the change was made (the injected clock) */
  at: Date;
  /** JOB_MATCH / OFFER: the job match's / offer's publicId */
  offerPublicId?: string;
  /** the API key that caused the change, when there is one */
  keyId?: string;
}

/** A stored change event: its seq is the `_id`. */
interface ChangeEventDoc extends Omit<ChangeEvent, 'seq'> {
  _id: number;
}

/** The counter document: `_id` 0, below every event's seq, so readers (seq > after >= 0) never see it. */
interface SequenceDoc {
  _id: 0;
  lastSeq: number;
}

const SEQUENCE_ID = 0;

/**
 * Appends `event` inside the caller's transaction (`session`) and returns its seq. The seq comes
 * from one counter document incremented in the same transaction: two concurrent transactions
 * that append conflict on it and one of them is run again, so commits of change events are
 * serialised and seq order is commit order (a reader that has seen seq n never later finds an
 * event below n). Call it as the last write of the transaction, to keep that conflict window
 * short. Without a session (a standalone MongoDB, no transactions) the seq is still unique, but
 * an event may become visible after one with a higher seq.
 */
export async function appendChangeEvent(
  db: Db,
  session: ClientSession | undefined,
  event: Omit<ChangeEvent, 'seq'>,
): Promise<number> {
  const counter = await db
    .collection<SequenceDoc>(CHANGE_COLLECTIONS.changeEvents)
    .findOneAndUpdate(
      { _id: SEQUENCE_ID },
      { $inc: { lastSeq: 1 } },
      { upsert: true, returnDocument: 'after', session },
    );
  if (counter === null) throw new Error('the change-event counter was not returned');
  const seq = counter.lastSeq;
  await db.collection<ChangeEventDoc>(CHANGE_COLLECTIONS.changeEvents).insertOne(
    {
      _id: seq,
      kind: event.kind,
      publicId: event.publicId,
      at: event.at,
      ...(event.offerPublicId !== undefined ? { offerPublicId: event.offerPublicId } : {}),
      ...(event.keyId !== undefined ? { keyId: event.keyId } : {}),
    },
    { session },
  );
  return seq;
}

/** Reads the outbox in seq order. */
export interface ChangeEventReader {
  /** The events with seq > `after`, in seq order, at most `limit`; `kinds`: only these kinds. */
  readAfter(after: number, limit: number, kinds?: readonly ChangeKind[]): Promise<ChangeEvent[]>;
}

/** The outbox's reads and the companion writes that append to it. */
export class ChangeEventRepository implements ChangeEventReader {
  constructor(private readonly db: Db) {}

  /** A companion that appends `events` (in this order) in the write's transaction; put it last. */
  companion(events: readonly Omit<ChangeEvent, 'seq'>[]): CompanionWrite {
    return {
      write: async (session) => {
        for (const event of events) await appendChangeEvent(this.db, session, event);
      },
    };
  }

  async readAfter(after: number, limit: number, kinds?: readonly ChangeKind[]): Promise<ChangeEvent[]> {
    const filter: Record<string, unknown> = { _id: { $gt: Math.max(0, after) } };
    if (kinds !== undefined) filter.kind = { $in: [...kinds] };
    const docs = await this.db
      .collection<ChangeEventDoc>(CHANGE_COLLECTIONS.changeEvents)
      .find(filter)
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map(({ _id, ...rest }) => ({ seq: _id, ...rest }));
  }

  /** The highest seq appended so far (0 when none): where a reader that wants only new events starts. */
  async lastSeq(): Promise<number> {
    const counter = await this.db
      .collection<SequenceDoc>(CHANGE_COLLECTIONS.changeEvents)
      .findOne({ _id: SEQUENCE_ID });
    return counter?.lastSeq ?? 0;
  }
}
