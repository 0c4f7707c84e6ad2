import type { ClientSession, Collection, Db } from 'mongodb';
import { SharedEpochAdvance } from '../cache/shared-epoch-advance';
import { ConflictError } from '../errors';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate, isDuplicateKeyError } from '../store/duplicate-key';
import type { CandidateDoc } from 'candidate-documents';
import { storedCandidate } from './stored-candidate';
import type { CandidateIdentityDoc } from './identity-document';
import { systemClock, type Clock } from '../common/clock';
import { WriteTransactions, type CompanionWrite } from '../store/write-transaction';
import { ChangeEventRepository } from '../changes/change-events';

const DUPLICATE_EMAIL = 'A candidate with this e-mail address is already registered.';

type EarlierRegistration = { kind: 'none' } | { kind: 'registered' } | { kind: 'same request'; publicId: string };

export interface RegistrationRepositoryOptions {
  /**
   * WRITE_LEASE_MS: how long an identity whose candidate is missing may still be a registration
   * in progress. Past it, the identity is taken for the remains of a crash and removed when the
   * same e-mail registers again.
   */
  leaseMs: number;
  /** the clock of the leases; absent: the system clock */
  clock?: Clock;
}

/**
 * The writes of a registration: the identity (`candidateIdentities`) and the anonymised profile
 * (`candidates`), which exist together or not at all.
 *
 * The request's companions (its audit event, the answer kept for its Idempotency-Key) are
 * written with them (WriteTransactions).
 *
 * - On a store with transactions (a replica set, a sharded cluster, the embedded store) all are
 *   inserted in one multi-document transaction: a crash at any point leaves all or none.
 * - On a standalone MongoDB (no transactions) the identity goes first, the candidate second, the
 *   companions last, and a failed second write takes the first back. A crash between the two
 *   leaves an identity
 *   without its candidate; once that identity is older than the lease, a registration with the
 *   same e-mail removes it and goes ahead, so the person is never blocked for good.
 *
 * Write-only by design, as far as identity data goes: nothing here returns it, so no read path
 * of the product can expose it by mistake.
 */
export class RegistrationRepository {
  private readonly identities: Collection<CandidateIdentityDoc>;
  private readonly candidates: Collection<CandidateDoc>;
  private readonly clock: Clock;
  private readonly epoch: SharedEpochAdvance;
  private readonly transactions: WriteTransactions;
  private readonly changes: ChangeEventRepository;

  constructor(
    private readonly db: Db,
    private readonly options: RegistrationRepositoryOptions,
  ) {
    this.identities = db.collection<CandidateIdentityDoc>(CANDIDATE_COLLECTIONS.candidateIdentities);
    this.candidates = db.collection<CandidateDoc>(CANDIDATE_COLLECTIONS.candidates);
    this.clock = options.clock ?? systemClock;
    this.epoch = new SharedEpochAdvance(db);
    this.transactions = new WriteTransactions(db);
    this.changes = new ChangeEventRepository(db);
  }

  /**
   * Stores a new registration; returns the publicId registered. A normalised e-mail already
   * registered is a ConflictError (so is, in theory, a publicId already taken), except:
   * - an identity left by a registration that died half way (its candidate missing, its lease
   *   passed) is cleared, and this registration goes ahead;
   * - a registration stored by the same request (`identity.retryToken`) is this request's own,
   *   retried after a crash cost it the answer: its publicId is returned (and `companions`, built
   *   for this attempt, are not written: the first attempt's were, with it).
   * Its REGISTERED change event (naming `keyId`, the key that registered) is written last.
   */
  async insert(
    identity: CandidateIdentityDoc,
    candidate: CandidateDoc,
    ownCompanions: readonly CompanionWrite[] = [],
    keyId?: string,
  ): Promise<string> {
    const registered = { kind: 'REGISTERED', publicId: candidate.publicId, at: candidate.createdDate } as const;
    const companions = [...ownCompanions, this.changes.companion([{ ...registered, ...(keyId ? { keyId } : {}) }])];
    try {
      await conflictOnDuplicate(() => this.write(identity, candidate, companions), DUPLICATE_EMAIL);
      return candidate.publicId;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const earlier = await this.earlierRegistration(identity);
      if (earlier.kind === 'same request') return earlier.publicId;
      if (earlier.kind === 'registered') throw error;
      await conflictOnDuplicate(() => this.write(identity, candidate, companions), DUPLICATE_EMAIL);
      return candidate.publicId;
    } finally {
      // Read caches are validated against the epoch: advanced also after a failure, since a
      // standalone may have kept part of it until it is cleared. Concurrent registrations share
      // one advance (each waits for one that started after its own write).
      await this.epoch.advance();
    }
  }

  /** The one place where the documents of a registration are written, in the session of its unit. */
  private async write(
    identity: CandidateIdentityDoc,
    candidate: CandidateDoc,
    companions: readonly CompanionWrite[],
  ): Promise<void> {
    await this.transactions.run(async (session) => {
      if (session !== undefined) await this.insertBoth(identity, candidate, session);
      else await this.writeInOrder(identity, candidate);
    }, companions);
  }

  private async writeInOrder(identity: CandidateIdentityDoc, candidate: CandidateDoc): Promise<void> {
    const started = this.clock.now().getTime();
    await this.identities.insertOne({ ...identity });
    try {
      await this.candidates.insertOne(storedCandidate(candidate));
    } catch (error) {
      await this.identities.deleteOne({ candidatePublicId: identity.candidatePublicId }).catch(() => undefined);
      throw error;
    }
    // Past its lease, a registration may have been taken for dead and its identity cleared:
    // then its candidate must go too, or it would stand without an identity.
    if (this.clock.now().getTime() - started >= this.options.leaseMs) {
      const kept = await this.identities.countDocuments(
        { candidatePublicId: identity.candidatePublicId },
        { limit: 1 },
      );
      if (kept === 0) {
        await this.candidates.deleteOne({ publicId: candidate.publicId });
        throw new Error('registration outlived its lease and was cleared');
      }
    }
  }

  private async insertBoth(
    identity: CandidateIdentityDoc,
    candidate: CandidateDoc,
    session: ClientSession,
  ): Promise<void> {
    // The identity first: its unique e-mail index detects a duplicate before any profile is written.
    await this.identities.insertOne({ ...identity }, { session });
    await this.candidates.insertOne(storedCandidate(candidate), { session });
  }

  /**
   * What holds the e-mail of `identity`: a registration (by the same request or another), or
   * nothing any more. The remains of a registration that died half way (its candidate missing,
   * its lease passed) are removed here, which also makes it nothing.
   */
  private async earlierRegistration(identity: CandidateIdentityDoc): Promise<EarlierRegistration> {
    const existing = await this.identities.findOne(
      { emailKey: identity.emailKey },
      { projection: { _id: 1, candidatePublicId: 1, createdDate: 1, retryToken: 1 } },
    );
    if (existing === null) return { kind: 'none' };
    const complete = (await this.candidates.countDocuments({ publicId: existing.candidatePublicId }, { limit: 1 })) > 0;
    if (complete) {
      const same = identity.retryToken !== undefined && existing.retryToken === identity.retryToken;
      return same ? { kind: 'same request', publicId: existing.candidatePublicId } : { kind: 'registered' };
    }
    // Without its candidate, a registration still within its lease may be one in progress.
    if (existing.createdDate.getTime() + this.options.leaseMs > this.clock.now().getTime())
      return { kind: 'registered' };
    await this.identities.deleteOne({ _id: existing._id, candidatePublicId: existing.candidatePublicId });
    return { kind: 'none' };
  }
}

/**
 * Gives every identity written by an earlier release (keyed by its lower-cased e-mail) its
 * `emailKey`, so that duplicate detection compares old and new registrations alike. Run at start,
 * after the indexes; a no-op once done. Where two earlier identities fold to one key (they looked
 * the same, and would be refused today), the older keeps the key and the later stays without one:
 * nothing is deleted, and a new registration of that address is refused all the same.
 */
export async function backfillEmailKeys(
  db: Db,
  keyOf: (email: string) => string,
): Promise<{ keyed: number; unkeyed: number }> {
  const identities = db.collection<CandidateIdentityDoc & { emailNormalised?: string }>(
    CANDIDATE_COLLECTIONS.candidateIdentities,
  );
  let keyed = 0;
  let unkeyed = 0;
  const earlier = identities
    .find({ emailKey: { $exists: false }, emailNormalised: { $exists: true } }, { projection: { email: 1 } })
    .sort({ createdDate: 1, _id: 1 });
  for await (const { _id, email } of earlier) {
    try {
      await identities.updateOne({ _id }, { $set: { emailKey: keyOf(email) }, $unset: { emailNormalised: '' } });
      keyed += 1;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      await identities.updateOne({ _id }, { $unset: { emailNormalised: '' } });
      unkeyed += 1;
    }
  }
  return { keyed, unkeyed };
}
