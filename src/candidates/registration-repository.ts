import type { ClientSession, Collection, Db } from 'mongodb';
import { SharedEpochAdvance } from '../cache/shared-epoch-advance';
import { ConflictError } from '../errors';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import { conflictOnDuplicate } from '../store/duplicate-key';
import type { CandidateDoc } from 'candidate-documents';
import { storedCandidate } from './stored-candidate';
import type { CandidateIdentity, IdentityKeyDoc, StoredIdentityDoc } from './identity-document';
import { IdentityVault } from './identity-vault';
import { systemClock, type Clock } from '../common/clock';
import { WriteTransactions, type CompanionWrite } from '../store/write-transaction';
import { ChangeEventRepository } from '../changes/change-events';

const DUPLICATE_EMAIL = 'A candidate with this e-mail address is already registered.';

type EarlierRegistration = { kind: 'none' } | { kind: 'registered' } | { kind: 'same request'; publicId: string };

/** What a registration stores of an identity: its key (with the e-mail's HMAC) and the identity sealed under it. */
interface SealedRegistration {
  key: IdentityKeyDoc;
  identity: StoredIdentityDoc;
}

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
 * The writes of a registration: the identity's key (`candidateIdentityKeys`), the identity sealed
 * under it (`candidateIdentities`, see identity-vault.ts) and the anonymised profile
 * (`candidates`), which exist together or not at all.
 *
 * The request's companions (its audit event, the answer kept for its Idempotency-Key) are
 * written with them (WriteTransactions).
 *
 * - On a store with transactions (a replica set, a sharded cluster, the embedded store) all are
 *   inserted in one multi-document transaction: a crash at any point leaves all or none.
 * - On a standalone MongoDB (no transactions) the key goes first (its unique e-mail HMAC detects
 *   a duplicate), then the identity, the candidate, the companions last; a failed write takes the
 *   earlier ones back. A crash in between leaves a key (and perhaps an identity) without its
 *   candidate; once that key is older than the lease, a registration with the same e-mail removes
 *   them and goes ahead, so the person is never blocked for good.
 *
 * Write-only by design, as far as identity data goes: nothing here returns it, so no read path
 * of the product can expose it by mistake.
 */
export class RegistrationRepository {
  private readonly keys: Collection<IdentityKeyDoc>;
  private readonly identities: Collection<StoredIdentityDoc>;
  private readonly candidates: Collection<CandidateDoc>;
  private readonly vault: IdentityVault;
  private readonly clock: Clock;
  private readonly epoch: SharedEpochAdvance;
  private readonly transactions: WriteTransactions;
  private readonly changes: ChangeEventRepository;

  constructor(
    private readonly db: Db,
    private readonly options: RegistrationRepositoryOptions,
  ) {
    this.keys = db.collection<IdentityKeyDoc>(CANDIDATE_COLLECTIONS.candidateIdentityKeys);
    this.identities = db.collection<StoredIdentityDoc>(CANDIDATE_COLLECTIONS.candidateIdentities);
    this.vault = new IdentityVault(db);
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
    identity: CandidateIdentity,
    candidate: CandidateDoc,
    ownCompanions: readonly CompanionWrite[] = [],
    keyId?: string,
  ): Promise<string> {
    const registered = { kind: 'REGISTERED', publicId: candidate.publicId, at: candidate.createdDate } as const;
    const companions = [...ownCompanions, this.changes.companion([{ ...registered, ...(keyId ? { keyId } : {}) }])];
    const sealed = await this.vault.seal(identity);
    try {
      await conflictOnDuplicate(() => this.write(sealed, candidate, companions), DUPLICATE_EMAIL);
      return candidate.publicId;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const earlier = await this.earlierRegistration(sealed.key);
      if (earlier.kind === 'same request') return earlier.publicId;
      if (earlier.kind === 'registered') throw error;
      await conflictOnDuplicate(() => this.write(sealed, candidate, companions), DUPLICATE_EMAIL);
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
    sealed: SealedRegistration,
    candidate: CandidateDoc,
    companions: readonly CompanionWrite[],
  ): Promise<void> {
    await this.transactions.run(async (session) => {
      if (session !== undefined) await this.insertAll(sealed, candidate, session);
      else await this.writeInOrder(sealed, candidate);
    }, companions);
  }

  private async writeInOrder({ key, identity }: SealedRegistration, candidate: CandidateDoc): Promise<void> {
    const started = this.clock.now().getTime();
    await this.keys.insertOne({ ...key });
    try {
      await this.identities.insertOne({ ...identity });
      try {
        await this.candidates.insertOne(storedCandidate(candidate));
      } catch (error) {
        await this.identities.deleteOne({ candidatePublicId: identity.candidatePublicId }).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      await this.keys.deleteOne({ _id: key._id }).catch(() => undefined);
      throw error;
    }
    // Past its lease, a registration may have been taken for dead and its key cleared: then its
    // identity and candidate must go too, or they would stand without it.
    if (this.clock.now().getTime() - started >= this.options.leaseMs) {
      const kept = await this.keys.countDocuments({ _id: key._id }, { limit: 1 });
      if (kept === 0) {
        await this.candidates.deleteOne({ publicId: candidate.publicId });
        await this.identities.deleteOne({ candidatePublicId: identity.candidatePublicId });
        throw new Error('registration outlived its lease and was cleared');
      }
    }
  }

  private async insertAll(
    { key, identity }: SealedRegistration,
    candidate: CandidateDoc,
    session: ClientSession,
  ): Promise<void> {
    // The key first: its unique e-mail HMAC detects a duplicate before anything else is written.
    await this.keys.insertOne({ ...key }, { session });
    await this.identities.insertOne({ ...identity }, { session });
    await this.candidates.insertOne(storedCandidate(candidate), { session });
  }

  /**
   * What holds the e-mail of `key`: a registration (by the same request or another), or nothing
   * any more. The remains of a registration that died half way (its candidate missing, its lease
   * passed) are removed here (identity, then key), which also makes it nothing.
   */
  private async earlierRegistration(key: IdentityKeyDoc): Promise<EarlierRegistration> {
    if (key.emailKey === undefined) return { kind: 'registered' };
    const existing = await this.keys.findOne(
      { emailKey: key.emailKey },
      { projection: { _id: 1, createdDate: 1, retryToken: 1 } },
    );
    if (existing === null) return { kind: 'none' };
    const complete = (await this.candidates.countDocuments({ publicId: existing._id }, { limit: 1 })) > 0;
    if (complete) {
      const same = key.retryToken !== undefined && existing.retryToken === key.retryToken;
      return same ? { kind: 'same request', publicId: existing._id } : { kind: 'registered' };
    }
    // Without its candidate, a registration still within its lease may be one in progress.
    if (existing.createdDate.getTime() + this.options.leaseMs > this.clock.now().getTime())
      return { kind: 'registered' };
    await this.identities.deleteOne({ candidatePublicId: existing._id });
    await this.keys.deleteOne({ _id: existing._id, createdDate: existing.createdDate });
    return { kind: 'none' };
  }
}
