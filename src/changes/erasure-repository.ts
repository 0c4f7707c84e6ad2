import type { Db } from 'mongodb';
import { AUDIT_COLLECTION } from '../audit/audit-indexes';
import { API_KEY_COLLECTION } from '../auth/api-key-indexes';
import { SharedEpochAdvance } from '../cache/shared-epoch-advance';
import type { SavedListDoc } from 'candidate-documents';
import { CANDIDATE_COLLECTIONS } from '../candidates/candidate-indexes';
import { IdempotencyRepository } from '../idempotency/idempotency-repository';
import { WriteTransactions } from '../store/write-transaction';
import { appendChangeEvent } from './change-events';
import { CHANGE_COLLECTIONS } from './change-indexes';

/** The root field of an erasure, as audit events name it. */
export const ERASURE_FIELD = 'Mutation.eraseCandidate';

/** A key that received a candidate, as the audit trail records it. */
export interface Recipient {
  keyId: string;
  /** the key's name; null when the key record is gone */
  name: string | null;
}

/**
 * The store side of an erasure. In one transaction (where the store has them): the identity's
 * key (which alone can open the sealed identity, see candidates/identity-vault.ts), the sealed
 * identity, the candidate document, its saved-list memberships, the answer kept for the
 * Idempotency-Key of its registration, and its ERASED change event. Statistics
 * are computed from `candidates`, so they lose it with the document; search indexes are the
 * store's. Audit events, change events, job matches and offers name the candidate only by its
 * pseudonymous publicId and are kept (docs/graphql-clients.md, "Change feed and erasure").
 */
export class ErasureRepository {
  private readonly transactions: WriteTransactions;
  private readonly epoch: SharedEpochAdvance;

  private readonly idempotency: IdempotencyRepository;

  constructor(private readonly db: Db) {
    this.transactions = new WriteTransactions(db);
    this.epoch = new SharedEpochAdvance(db);
    this.idempotency = new IdempotencyRepository(db);
  }

  /**
   * Erases the candidate `publicId` if it is still there; returns whether it was (false: already
   * erased, or never known).
   */
  async erase(publicId: string, at: Date, keyId?: string): Promise<boolean> {
    let erased = false;
    try {
      await this.transactions.run(async (session) => {
        // The key first: on a store without transactions, the identity is unreadable from here on.
        const keys = await this.db
          .collection<{ _id: string }>(CANDIDATE_COLLECTIONS.candidateIdentityKeys)
          .deleteOne({ _id: publicId }, { session });
        const deleted = await this.db.collection(CANDIDATE_COLLECTIONS.candidates).deleteOne({ publicId }, { session });
        const identities = await this.db
          .collection(CANDIDATE_COLLECTIONS.candidateIdentities)
          .deleteMany({ candidatePublicId: publicId }, { session });
        await this.db
          .collection<SavedListDoc>(CANDIDATE_COLLECTIONS.savedLists)
          .updateMany({ candidatePublicIds: publicId }, { $pull: { candidatePublicIds: publicId } }, { session });
        erased = deleted.deletedCount > 0 || identities.deletedCount > 0 || keys.deletedCount > 0;
        // The answer kept for the Idempotency-Key of its registration named it: a replay now says it was erased.
        await this.idempotency.forgetCandidate(publicId, session);
        // Last: the outbox's counter is what concurrent change-writing transactions conflict on.
        if (erased)
          await appendChangeEvent(this.db, session, { kind: 'ERASED', publicId, at, ...(keyId ? { keyId } : {}) });
      }, []);
    } finally {
      // Read caches (candidates, search pages, saved lists) are validated against the epoch.
      await this.epoch.advance();
    }
    return erased;
  }

  /**
   * Which of `publicIds` the store still holds anything of (a candidate, an identity or its key,
   * the answer kept for the Idempotency-Key of its registration): what an erasure must be carried
   * out (again) for.
   */
  async stillStored(publicIds: readonly string[]): Promise<Set<string>> {
    const ids = [...publicIds];
    const found = new Set<string>();
    const candidates = await this.db
      .collection<{ publicId: string }>(CANDIDATE_COLLECTIONS.candidates)
      .find({ publicId: { $in: ids } }, { projection: { _id: 0, publicId: 1 } })
      .toArray();
    for (const { publicId } of candidates) found.add(publicId);
    const identities = await this.db
      .collection<{ candidatePublicId: string }>(CANDIDATE_COLLECTIONS.candidateIdentities)
      .find({ candidatePublicId: { $in: ids } }, { projection: { _id: 0, candidatePublicId: 1 } })
      .toArray();
    for (const { candidatePublicId } of identities) found.add(candidatePublicId);
    const keys = await this.db
      .collection<{ _id: string }>(CANDIDATE_COLLECTIONS.candidateIdentityKeys)
      .find({ _id: { $in: ids } }, { projection: { _id: 1 } })
      .toArray();
    for (const { _id } of keys) found.add(_id);
    for (const publicId of await this.idempotency.linkedCandidates(ids)) found.add(publicId);
    return found;
  }

  /** When the candidate was first erased (its ERASED change event); null when it never was. */
  async erasedAt(publicId: string): Promise<Date | null> {
    const event = await this.db
      .collection<{ kind: string; publicId: string; at: Date }>(CHANGE_COLLECTIONS.changeEvents)
      .find({ publicId, kind: 'ERASED' })
      .sort({ at: 1 })
      .limit(1)
      .next();
    return event?.at ?? null;
  }

  /**
   * The keys the audit trail records as having received or named the candidate, by key id; the
   * erasures themselves (which name it too) do not make their ADMIN key a recipient.
   */
  async recipients(publicId: string): Promise<Recipient[]> {
    const keyIds = (await this.db
      .collection(AUDIT_COLLECTION)
      .distinct('apiKeyId', { candidatePublicIds: publicId, rootFields: { $ne: ERASURE_FIELD } })) as string[];
    const keys = await this.db
      .collection<{ id: string; name: string }>(API_KEY_COLLECTION)
      .find({ id: { $in: keyIds } }, { projection: { _id: 0, id: 1, name: 1 } })
      .toArray();
    const names = new Map(keys.map((key) => [key.id, key.name]));
    return [...keyIds].sort().map((keyId) => ({ keyId, name: names.get(keyId) ?? null }));
  }
}
