import type { Collection, Db } from 'mongodb';
import { SharedEpochAdvance } from '../cache/shared-epoch-advance';
import { appendChangeEvents, type ChangeEvent } from '../changes/change-events';
import { CHANGE_COLLECTIONS } from '../changes/change-indexes';
import { WriteTransactions } from '../store/write-transaction';
import type { JobOpportunityDoc, StoredCandidateDoc } from 'candidate-documents';
import { storedCandidate } from './stored-candidate';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import type { ImportedCandidate } from './import-line';

/** What became of one imported candidate. */
export type ImportOutcome = 'inserted' | 'updated' | 'unchanged' | 'erased';

/**
 * The store side of an import: a batch of candidates upserted by publicId in one transaction
 * (where the store has them) with an IMPORTED change event for each inserted candidate and an
 * UPDATED one for each changed one. A candidate whose stored document is already what the line
 * says is not written and has no event, so importing the same file again writes nothing.
 */
export class ImportRepository {
  private readonly candidates: Collection<StoredCandidateDoc>;
  private readonly transactions: WriteTransactions;
  private readonly epoch: SharedEpochAdvance;

  constructor(private readonly db: Db) {
    this.candidates = db.collection<StoredCandidateDoc>(CANDIDATE_COLLECTIONS.candidates);
    this.transactions = new WriteTransactions(db);
    this.epoch = new SharedEpochAdvance(db);
  }

  /** Every job opportunity, for visa job checks (which name one only by its fields). */
  async jobOpportunities(): Promise<JobOpportunityDoc[]> {
    return this.db
      .collection<JobOpportunityDoc>(CANDIDATE_COLLECTIONS.jobOpportunities)
      .find({}, { projection: { _id: 0 } })
      .toArray();
  }

  /**
   * Upserts `batch` (distinct publicIds) at `at`; answers the outcome of each, in order. A
   * candidate that was erased (an ERASED change event names it) is not written: re-importing it
   * would undo the erasure.
   */
  async upsert(batch: readonly ImportedCandidate[], at: Date): Promise<ImportOutcome[]> {
    let outcomes: ImportOutcome[] = [];
    let wrote = false;
    try {
      await this.transactions.run(async (session) => {
        const publicIds = batch.map((candidate) => candidate.publicId);
        const existing = new Map<string, StoredCandidateDoc>();
        for (const doc of await this.candidates
          .find({ publicId: { $in: publicIds } }, { session, projection: { _id: 0 } })
          .toArray())
          existing.set(doc.publicId, doc);
        const erased = new Set(
          (await this.db
            .collection(CHANGE_COLLECTIONS.changeEvents)
            .distinct('publicId', { publicId: { $in: publicIds }, kind: 'ERASED' }, { session })) as string[],
        );
        outcomes = [];
        const writes: { doc: StoredCandidateDoc; isNew: boolean }[] = [];
        const events: Omit<ChangeEvent, 'seq'>[] = [];
        for (const candidate of batch) {
          const before = existing.get(candidate.publicId);
          if (erased.has(candidate.publicId)) {
            outcomes.push('erased');
            continue;
          }
          const next = storedCandidate({
            ...candidate,
            // Not in the contract's Candidate: kept from the stored document.
            ...(before?.registrarId !== undefined ? { registrarId: before.registrarId } : {}),
            createdDate: candidate.createdDate ?? before?.createdDate ?? at,
          });
          if (before !== undefined && sameDocument(before, next)) {
            outcomes.push('unchanged');
            continue;
          }
          outcomes.push(before === undefined ? 'inserted' : 'updated');
          writes.push({ doc: next, isNew: before === undefined });
          events.push({ kind: before === undefined ? 'IMPORTED' : 'UPDATED', publicId: candidate.publicId, at });
        }
        if (writes.length === 0) return;
        wrote = true;
        await this.candidates.bulkWrite(
          writes.map(({ doc, isNew }) =>
            // Read in this transaction: absent means new (a concurrent insert conflicts, and the batch reruns).
            isNew
              ? { insertOne: { document: doc } }
              : { replaceOne: { filter: { publicId: doc.publicId }, replacement: doc } },
          ),
          { session, ordered: true },
        );
        // Last: the outbox is what concurrent change-writing transactions meet on.
        await appendChangeEvents(this.db, session, events);
      }, []);
    } finally {
      // Read caches (candidates, search pages, statistics) are validated against the epoch; an
      // import that wrote nothing leaves it, and every cache, as it was.
      if (wrote) await this.epoch.advance();
    }
    return outcomes;
  }
}

/** Whether two stored documents hold the same fields and values, whatever their field order. */
export function sameDocument(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameDocument(x, b[i]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const left = Object.entries(a).filter(([, v]) => v !== undefined);
    const right = new Map(Object.entries(b).filter(([, v]) => v !== undefined));
    return left.length === right.size && left.every(([key, v]) => right.has(key) && sameDocument(v, right.get(key)));
  }
  return a === b;
}
