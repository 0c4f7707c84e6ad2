import { MongoServerError, type ClientSession, type Db } from 'mongodb';
import { ServiceUnavailableError } from '../errors';

/** How often a transaction that failed with a transient error (a write conflict) is run again. */
const TRANSACTION_ATTEMPTS = 3;

/**
 * A document that must be stored with a write and only with it: the request's audit event, the
 * answer kept for its Idempotency-Key, a change event. Another area's repository builds it; the
 * write's repository runs it in the write's session.
 */
export interface CompanionWrite {
  /** Writes the document; `session` is the write's transaction, absent on a store without transactions. */
  write(session: ClientSession | undefined): Promise<void>;
  /** Told once the write and its companions are stored (the transaction committed). */
  committed?(): void;
}

/** What a write hands to those that build its companions: what it affected and what it answers. */
export interface WriteOutcome {
  /** public ids of the candidates the write created or names */
  candidatePublicIds: readonly string[];
  /** what the service answers for the write (a retry of the same request answers the same) */
  result: Readonly<Record<string, unknown>>;
}

/**
 * What a request brings to a write besides its input: its retry token (GraphQLContext.retryToken)
 * and the companions of its outcome.
 */
export interface WriteRequest {
  retryToken?: string;
  companions(outcome: WriteOutcome): CompanionWrite[];
}

/** A write request with no retry token and no companion (scripts, tests). */
export const PLAIN_WRITE: WriteRequest = { companions: () => [] };

/**
 * Runs the writes of one request as one unit: in a multi-document transaction where the store has
 * them (a replica set, a sharded cluster, the embedded store), so that a crash at any point leaves
 * all or none; on a standalone MongoDB in the order given, without a session (the caller orders
 * its writes so that a retry finds what a crash left).
 */
export class WriteTransactions {
  private transactions: Promise<boolean> | undefined;

  constructor(private readonly db: Db) {}

  /**
   * `write` writes the documents of the write itself, then the companions are written, all with the
   * one session. A transient conflict runs the whole again (up to three times, then 503).
   */
  async run(
    write: (session: ClientSession | undefined) => Promise<void>,
    companions: readonly CompanionWrite[],
  ): Promise<void> {
    const all = async (session: ClientSession | undefined) => {
      await write(session);
      for (const companion of companions) await companion.write(session);
    };
    if (await this.supportsTransactions()) await this.inTransaction(all);
    else await all(undefined);
    for (const companion of companions) companion.committed?.();
  }

  private async inTransaction(all: (session: ClientSession) => Promise<void>): Promise<void> {
    const session = this.db.client.startSession();
    try {
      for (let attempt = 1; ; attempt++) {
        session.startTransaction();
        try {
          await all(session);
          await session.commitTransaction();
          return;
        } catch (error) {
          if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
          // A conflict the server reports is worth a rerun; a network error means an outage (503).
          const transient = error instanceof MongoServerError && error.hasErrorLabel('TransientTransactionError');
          if (!transient) throw error;
          // Still conflicting (on MongoDB, say, with the open transaction of an instance that
          // died holding the same key, until the server ends it): a retry later will do.
          if (attempt >= TRANSACTION_ATTEMPTS) throw new ServiceUnavailableError(undefined, { cause: error });
        }
      }
    } finally {
      await session.endSession().catch(() => undefined);
    }
  }

  /** Whether the store runs multi-document transactions: a replica-set member or a mongos does. */
  supportsTransactions(): Promise<boolean> {
    this.transactions ??= this.db
      .admin()
      .command({ hello: 1 })
      .then((hello) => typeof hello.setName === 'string' || hello.msg === 'isdbgrid');
    // A store that could not be asked (an outage) is asked again next time.
    this.transactions.catch(() => (this.transactions = undefined));
    return this.transactions;
  }
}
