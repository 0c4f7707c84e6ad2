import { ObjectId, type ClientSession, type Db } from 'mongodb';
import { RunStartedAfter } from '../cache/run-started-after';
import { WriteTransactions, type CompanionWrite } from '../store/write-transaction';
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
  /** strictly increasing in the order events become readable, from 1; gaps are possible */
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

/** A stored change event; `seq` absent until it is sequenced. */
interface ChangeEventDoc extends Omit<ChangeEvent, 'seq'> {
  _id: ObjectId;
  seq?: number;
}

/** The counter document of the sequence; it has no `kind`, so no query for events finds it. */
interface SequenceDoc {
  _id: 'sequence';
  lastSeq: number;
}

const SEQUENCE_ID = 'sequence';
/** Events numbered per sequencing transaction. */
const SEQUENCE_BATCH = 500;

/**
 * Appends `event` inside the caller's transaction (`session`): it is stored with the change or
 * not at all. It gets its seq when it is sequenced (ChangeEventRepository.sequence, which every
 * read runs first), not here: a counter incremented by every change-writing transaction would
 * make concurrent writes conflict and fail (measured: 45 of 60 concurrent registrations).
 */
export async function appendChangeEvent(
  db: Db,
  session: ClientSession | undefined,
  event: Omit<ChangeEvent, 'seq'>,
): Promise<void> {
  await db.collection<ChangeEventDoc>(CHANGE_COLLECTIONS.changeEvents).insertOne(
    {
      _id: new ObjectId(),
      kind: event.kind,
      publicId: event.publicId,
      at: event.at,
      ...(event.offerPublicId !== undefined ? { offerPublicId: event.offerPublicId } : {}),
      ...(event.keyId !== undefined ? { keyId: event.keyId } : {}),
    },
    { session },
  );
}

/**
 * Appends `events` (in this order) inside the caller's transaction with one insert: what a
 * write of many candidates (an import batch) stores with them. Their ids are made here, in
 * order, and sequencing numbers events by id, so they are numbered in this order.
 */
export async function appendChangeEvents(
  db: Db,
  session: ClientSession | undefined,
  events: readonly Omit<ChangeEvent, 'seq'>[],
): Promise<void> {
  if (events.length === 0) return;
  await db.collection<ChangeEventDoc>(CHANGE_COLLECTIONS.changeEvents).insertMany(
    events.map((event) => ({
      _id: new ObjectId(),
      kind: event.kind,
      publicId: event.publicId,
      at: event.at,
      ...(event.keyId !== undefined ? { keyId: event.keyId } : {}),
    })),
    { session, ordered: true },
  );
}

/** Reads the outbox in seq order. */
export interface ChangeEventReader {
  /** The events with seq > `after`, in seq order, at most `limit`; `kinds`: only these kinds. */
  readAfter(after: number, limit: number, kinds?: readonly ChangeKind[]): Promise<ChangeEvent[]>;
  /** The highest seq given so far (0 when none), every event committed before the call numbered. */
  lastSeq(): Promise<number>;
}

/**
 * The outbox's reads, its sequencing and the companion writes that append to it.
 *
 * Sequencing numbers the committed events that have no seq yet, oldest first, from the one
 * counter document, in one transaction. Sequencing transactions (one per process at a time,
 * shared by concurrent readers) conflict on the counter and are run again, so seqs become
 * readable in increasing order: a reader that has seen seq n never later finds an event below
 * n, and two changes of one candidate keep their order (the later was committed after the
 * earlier, so it is sequenced with it or after it).
 */
export class ChangeEventRepository implements ChangeEventReader {
  private readonly transactions: WriteTransactions;
  private readonly sequencing: RunStartedAfter<void>;

  constructor(private readonly db: Db) {
    this.transactions = new WriteTransactions(db);
    this.sequencing = new RunStartedAfter(() => this.sequenceAll());
  }

  private get events() {
    return this.db.collection<ChangeEventDoc>(CHANGE_COLLECTIONS.changeEvents);
  }

  /** A companion that appends `events` (in this order) in the write's transaction. */
  companion(events: readonly Omit<ChangeEvent, 'seq'>[]): CompanionWrite {
    return {
      write: async (session) => {
        for (const event of events) await appendChangeEvent(this.db, session, event);
      },
    };
  }

  /** Resolves once every event committed before this call has its seq. */
  sequence(): Promise<void> {
    return this.sequencing.run();
  }

  async readAfter(after: number, limit: number, kinds?: readonly ChangeKind[]): Promise<ChangeEvent[]> {
    await this.sequence();
    const filter: Record<string, unknown> = { seq: { $gt: Math.max(0, after) } };
    if (kinds !== undefined) filter.kind = { $in: [...kinds] };
    const docs = await this.events.find(filter).sort({ seq: 1 }).limit(limit).toArray();
    return docs.map(({ _id, seq, ...rest }) => ({ seq: seq!, ...rest }));
  }

  /** The highest seq given so far (0 when none): where a reader that wants only new events starts. */
  async lastSeq(): Promise<number> {
    await this.sequence();
    const counter = await this.db
      .collection<SequenceDoc>(CHANGE_COLLECTIONS.changeEvents)
      .findOne({ _id: SEQUENCE_ID });
    return counter?.lastSeq ?? 0;
  }

  private async sequenceAll(): Promise<void> {
    for (;;) {
      let numbered = 0;
      await this.transactions.run(async (session) => {
        numbered = 0;
        // Untyped: `seq: null` (no seq yet) is what the index of `seq` finds, and not in ChangeEventDoc's type.
        const pending = await this.db
          .collection(CHANGE_COLLECTIONS.changeEvents)
          .find({ seq: null, kind: { $exists: true } }, { session, projection: { _id: 1 } })
          .sort({ _id: 1 })
          .limit(SEQUENCE_BATCH)
          .toArray();
        if (pending.length === 0) return;
        const counter = await this.db
          .collection<SequenceDoc>(CHANGE_COLLECTIONS.changeEvents)
          .findOneAndUpdate(
            { _id: SEQUENCE_ID },
            { $inc: { lastSeq: pending.length } },
            { upsert: true, returnDocument: 'after', session },
          );
        const first = counter!.lastSeq - pending.length + 1;
        for (const [i, { _id }] of pending.entries()) {
          await this.events.updateOne({ _id }, { $set: { seq: first + i } }, { session });
        }
        numbered = pending.length;
      }, []);
      if (numbered < SEQUENCE_BATCH) return;
    }
  }
}
