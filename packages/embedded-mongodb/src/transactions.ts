import type { Binary, Document } from 'bson';
import type { Catalog } from './engine/catalog';
import type { ChangeLog } from './engine/change-log';
import { DISCARD_CHANGES } from './engine/change-log';
import type { StoredRecord } from './engine/stored-record';
import { decodeTyped } from './engine/typed-numbers';
import { prepareInsert } from './engine/write-operations';
import type { CommandResult } from './command-result';
import { asCommandError, CommandError } from './errors';

/**
 * Multi-document transactions, as the drivers run them against a replica-set member
 * (mongodb/specifications, transactions.md): the first command carries `lsid`, `txnNumber`,
 * `startTransaction: true` and `autocommit: false`, later ones `lsid`, `txnNumber` and
 * `autocommit: false`, and `commitTransaction` / `abortTransaction` end it.
 *
 * A transaction holds no lock. It keeps the physical changes it made (with the bytes each
 * changed document had before). Each of its commands re-applies them in an engine transaction
 * that is rolled back afterwards (StorageEngine.discard), so no other command ever sees them:
 * its reads see its own writes, nobody else's reads do. Commit re-applies them once more in one
 * engine transaction, so after a crash there are all of them or none. A change that
 * no longer fits (another writer changed or deleted the same document, or took a unique key
 * meanwhile) aborts the transaction with WriteConflict, labelled TransientTransactionError,
 * which tells the driver's withTransaction to run it again. Reads are not a snapshot: a read in
 * a transaction sees what others committed since it started (read committed plus own writes).
 */

/** A change made in a transaction, with what is needed to take it back. */
type TransactionChange =
  | { readonly t: 'put'; readonly db: string; readonly c: string; readonly d: Document; readonly before?: Uint8Array }
  | { readonly t: 'del'; readonly db: string; readonly c: string; readonly id: unknown; readonly before: Uint8Array }
  | { readonly t: 'createCollection'; readonly db: string; readonly c: string; readonly options: Document };

interface Namespace {
  readonly db: string;
  readonly c: string;
}

interface Transaction {
  readonly txnNumber: bigint;
  state: 'active' | 'committed' | 'aborted';
  readonly changes: TransactionChange[];
}

interface Session {
  transaction: Transaction | undefined;
  /** The last retryable write (txnNumber without autocommit) and its reply, answered again to a retry. */
  lastWrite: { txnNumber: bigint; reply: Document } | undefined;
  lastUsed: number;
}

/** Commands a transaction may run (MongoDB's list, less what the store does not have). */
const ALLOWED_IN_TRANSACTION = new Set([
  'find',
  'getMore',
  'killCursors',
  'insert',
  'update',
  'delete',
  'findAndModify',
  'aggregate',
  'distinct',
  'commitTransaction',
  'abortTransaction',
]);

/**
 * Commands that read and write only the collection they name: in a transaction they need only
 * the transaction's changes to that collection re-applied (aggregate may $lookup others).
 */
const ONE_COLLECTION_COMMANDS = new Set(['find', 'insert', 'update', 'delete', 'findAndModify', 'distinct', 'count']);

/** Write commands whose replies a retry with the same (lsid, txnNumber) gets back. */
const RETRYABLE_WRITES = new Set(['insert', 'update', 'delete', 'findAndModify']);

/** MongoDB's logicalSessionTimeoutMinutes: sessions unused this long are forgotten. */
export const SESSION_TIMEOUT_MINUTES = 30;
const SESSION_TIMEOUT_MS = SESSION_TIMEOUT_MINUTES * 60_000;

const TRANSIENT = { errorLabels: ['TransientTransactionError'] };

class WriteConflict extends Error {}

/** The sessions of one store and their transactions. */
export class Transactions {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly catalog: Catalog,
    private readonly now: () => number = Date.now,
  ) {}

  /** The number of transactions in progress (serverStatus). */
  get active(): number {
    let count = 0;
    for (const session of this.sessions.values()) if (session.transaction?.state === 'active') count++;
    return count;
  }

  /** True when `command` belongs to a transaction (or ends one). */
  static isTransactionCommand(name: string, command: Document): boolean {
    return (
      command.autocommit === false ||
      command.startTransaction === true ||
      name === 'commitTransaction' ||
      name === 'abortTransaction'
    );
  }

  /**
   * Runs a command of a transaction. `run` executes the command itself and must be
   * synchronous; its changes become the transaction's. `typed`: the command with its numbers as
   * sent, when they differ (commands/context.ts).
   */
  runInTransaction(
    name: string,
    command: Document,
    run: () => CommandResult | Promise<CommandResult>,
    typed?: Document,
  ): CommandResult {
    const txnNumber = txnNumberOf(command);
    if (txnNumber === undefined)
      throw new CommandError('InvalidOptions', 'a command in a transaction needs a txnNumber');
    if (command.autocommit !== false)
      throw new CommandError('InvalidOptions', "'autocommit' field must be false when running a transaction");
    const session = this.session(command);
    const transaction = this.transactionFor(session, name, command, txnNumber);

    if (name === 'commitTransaction') return this.commit(transaction);
    if (name === 'abortTransaction') {
      if (transaction.state === 'committed')
        throw new CommandError('TransactionCommitted', `Transaction ${txnNumber} has been committed.`);
      transaction.state = 'aborted';
      transaction.changes.length = 0;
      return { ok: 1 };
    }
    if (!ALLOWED_IN_TRANSACTION.has(name)) {
      this.abort(transaction);
      throw new CommandError(
        'OperationNotSupportedInTransaction',
        `Cannot run '${name}' in a multi-document transaction.`,
      );
    }
    const only =
      ONE_COLLECTION_COMMANDS.has(name) && typeof command[name] === 'string'
        ? { db: String(command.$db), c: command[name] }
        : undefined;
    if (name === 'insert' && only) {
      const staged = this.stageInsert(transaction, typed ?? command, only);
      if (staged) return staged;
    }
    return this.runCommand(transaction, run, only);
  }

  /**
   * Runs a command outside transactions. A retryable write repeated with the (lsid, txnNumber)
   * of the last one gets that write's reply instead of running twice, as on a replica set.
   */
  async runOutsideTransaction(
    name: string,
    command: Document,
    run: () => CommandResult | Promise<CommandResult>,
  ): Promise<CommandResult> {
    const txnNumber = txnNumberOf(command);
    if (txnNumber === undefined || !RETRYABLE_WRITES.has(name) || command.lsid === undefined) return run();
    const session = this.session(command);
    if (session.lastWrite?.txnNumber === txnNumber) return session.lastWrite.reply;
    const reply = await run();
    if (!(reply instanceof Uint8Array) && reply.ok === 1) session.lastWrite = { txnNumber, reply };
    return reply;
  }

  /** endSessions: forgets the sessions, aborting their transactions. */
  endSessions(ids: readonly unknown[]): void {
    for (const id of ids) {
      const key = sessionKey(id);
      if (key !== undefined) this.sessions.delete(key);
    }
  }

  /** The session of `command.lsid`, started on first use. */
  private session(command: Document): Session {
    const key = sessionKey(command.lsid);
    if (key === undefined)
      throw new CommandError('InvalidOptions', 'a transaction or retryable write needs a session (lsid)');
    let session = this.sessions.get(key);
    if (!session) {
      this.forgetIdleSessions();
      session = { transaction: undefined, lastWrite: undefined, lastUsed: 0 };
      this.sessions.set(key, session);
    }
    session.lastUsed = this.now();
    return session;
  }

  private transactionFor(session: Session, name: string, command: Document, txnNumber: bigint): Transaction {
    const current = session.transaction;
    if (command.startTransaction === true) {
      if (current && current.txnNumber > txnNumber) {
        throw new CommandError(
          'TransactionTooOld',
          `Cannot start transaction ${txnNumber} on session because a newer transaction ${current.txnNumber} has already started.`,
        );
      }
      if (current && current.txnNumber === txnNumber) {
        throw new CommandError(
          'ConflictingOperationInProgress',
          `Cannot start transaction ${txnNumber}: it has already started.`,
          TRANSIENT,
        );
      }
      // A newer transaction on the session ends the one before it, as on MongoDB.
      const started: Transaction = { txnNumber, state: 'active', changes: [] };
      session.transaction = started;
      return started;
    }
    if (!current || current.txnNumber !== txnNumber || current.state === 'aborted') {
      throw new CommandError(
        'NoSuchTransaction',
        `Transaction with { txnNumber: ${txnNumber} } has been aborted or was never started.`,
        TRANSIENT,
      );
    }
    if (current.state === 'committed' && name !== 'commitTransaction' && name !== 'abortTransaction') {
      throw new CommandError('TransactionCommitted', `Transaction ${txnNumber} has been committed.`);
    }
    return current;
  }

  /** `only`: the collection the command reads and writes, when it touches no other. */
  private runCommand(
    transaction: Transaction,
    run: () => CommandResult | Promise<CommandResult>,
    only?: Namespace,
  ): CommandResult {
    const made: TransactionChange[] = [];
    const reply = this.catalog.engine.discard((): CommandResult => {
      const applied = this.reapply(transaction, only);
      try {
        const result = this.catalog.withChangesTo(capture(made), run);
        if (result instanceof Promise) throw new Error('a command in a transaction must run synchronously');
        return result;
      } catch (error) {
        this.abort(transaction);
        throw error;
      } finally {
        this.takeBack([...applied, ...made]);
      }
    });
    // A write error ends the transaction, as on MongoDB; the driver's abort then finds nothing.
    if (!(reply instanceof Uint8Array) && Array.isArray(reply.writeErrors) && reply.writeErrors.length > 0)
      this.abort(transaction);
    else transaction.changes.push(...made);
    return reply;
  }

  /**
   * An insert of one document into an existing collection, staged without touching the indexes:
   * the document is checked as the insert would check it (its index keys, the unique indexes
   * with the transaction's own changes to the collection applied) and kept for the commit,
   * which inserts it. Run as any other command, the insert would be applied to every index and
   * taken back at once, then applied again at commit: most of a registration's store CPU.
   * Undefined when the command is not such an insert (it then runs as any other).
   */
  private stageInsert(transaction: Transaction, command: Document, only: Namespace): Document | undefined {
    const documents: unknown = command.documents;
    const collection = this.catalog.getCollection(only.db, only.c);
    if (!collection || !Array.isArray(documents) || documents.length !== 1) return undefined;
    return this.catalog.engine.discard(() => {
      const applied = this.reapply(transaction, only);
      try {
        const doc = prepareInsert(documents[0]);
        collection.checkInsert(doc);
        transaction.changes.push({ t: 'put', db: only.db, c: only.c, d: doc });
        return { n: 1, ok: 1 };
      } catch (error) {
        // A write error ends the transaction, as on MongoDB (see runCommand).
        this.abort(transaction);
        return { n: 0, writeErrors: [asCommandError(error).toWriteError(0)], ok: 1 };
      } finally {
        this.takeBack(applied);
      }
    });
  }

  private commit(transaction: Transaction): Document {
    if (transaction.state === 'committed') return { ok: 1 };
    // One engine transaction: after a crash there are all of the changes or none.
    this.catalog.engine.write(() => this.applyAll(transaction, DISCARD_CHANGES));
    transaction.state = 'committed';
    transaction.changes.length = 0;
    return { ok: 1 };
  }

  private abort(transaction: Transaction): void {
    transaction.state = 'aborted';
    transaction.changes.length = 0;
  }

  /**
   * Applies the transaction's changes so far (those to `only`, when given: a registration's
   * insert of its candidate need not re-apply, then take back, its identity), unrecorded;
   * returns those applied.
   */
  private reapply(transaction: Transaction, only?: Namespace): TransactionChange[] {
    return this.applyAll(transaction, DISCARD_CHANGES, only);
  }

  /**
   * Applies the transaction's changes so far, each change going to `log`; returns those applied.
   * When one fails, takes back those applied, aborts the transaction and throws (a conflict as
   * WriteConflict).
   */
  private applyAll(transaction: Transaction, log: ChangeLog, only?: Namespace): TransactionChange[] {
    const applied: TransactionChange[] = [];
    try {
      this.catalog.withChangesTo(log, () => {
        for (const change of transaction.changes) {
          if (only !== undefined && (change.db !== only.db || change.c !== only.c)) continue;
          if (this.apply(change)) applied.push(change);
        }
      });
    } catch (error) {
      this.takeBack(applied);
      this.abort(transaction);
      throw conflictOrError(error);
    }
    return applied;
  }

  /**
   * Applies one change to the catalog as it is now. False for a collection creation that is no
   * longer needed; throws WriteConflict when the document is no longer as the transaction saw it.
   */
  private apply(change: TransactionChange): boolean {
    const collection = this.catalog.getCollection(change.db, change.c);
    switch (change.t) {
      case 'createCollection':
        if (collection) return false;
        this.catalog.createCollection(change.db, change.c, change.options);
        return true;
      case 'put': {
        const current = collection?.findById(change.d._id);
        if (!sameVersion(current, change.before)) throw new WriteConflict();
        const target = collection ?? this.catalog.ensureCollection(change.db, change.c);
        if (current) target.replace(current, change.d);
        else target.insert(change.d);
        return true;
      }
      case 'del': {
        const current = collection?.findById(change.id);
        if (!current || !sameVersion(current, change.before)) throw new WriteConflict();
        collection!.remove(current);
        return true;
      }
    }
  }

  /** Undoes applied changes, last first, unrecorded. Cannot conflict: nothing ran in between. */
  private takeBack(changes: readonly TransactionChange[]): void {
    this.catalog.withChangesTo(DISCARD_CHANGES, () => {
      for (let i = changes.length - 1; i >= 0; i--) {
        const change = changes[i];
        const collection = this.catalog.getCollection(change.db, change.c);
        switch (change.t) {
          case 'createCollection':
            this.catalog.dropCollection(change.db, change.c);
            break;
          case 'put': {
            const current = collection?.findById(change.d._id);
            if (!collection || !current) break;
            if (change.before) collection.replace(current, decodeTyped(change.before));
            else collection.remove(current);
            break;
          }
          case 'del':
            this.catalog.ensureCollection(change.db, change.c).insert(decodeTyped(change.before));
            break;
        }
      }
    });
  }

  private forgetIdleSessions(): void {
    const cutoff = this.now() - SESSION_TIMEOUT_MS;
    for (const [key, session] of this.sessions) if (session.lastUsed < cutoff) this.sessions.delete(key);
  }
}

/** A change log that keeps what a transaction's command did, with the bytes to take it back. */
function capture(into: TransactionChange[]): ChangeLog {
  return {
    append: (change, before) => {
      if (change.t === 'put') into.push({ t: 'put', db: change.db, c: change.c, d: change.d, before });
      else if (change.t === 'del') into.push({ t: 'del', db: change.db, c: change.c, id: change.id, before: before! });
      else if (change.t === 'createCollection') into.push(change);
      else
        throw new CommandError(
          'OperationNotSupportedInTransaction',
          `Cannot run '${change.t}' in a multi-document transaction.`,
        );
    },
  };
}

function sameVersion(current: StoredRecord | undefined, before: Uint8Array | undefined): boolean {
  if (current === undefined || before === undefined) return current === undefined && before === undefined;
  return Buffer.from(current.bson).equals(before);
}

function conflictOrError(error: unknown): unknown {
  if (error instanceof WriteConflict || (error instanceof CommandError && error.codeName === 'DuplicateKey')) {
    return new CommandError(
      'WriteConflict',
      'Write conflict during plan execution and yielding is disabled.',
      TRANSIENT,
    );
  }
  return error;
}

function txnNumberOf(command: Document): bigint | undefined {
  const value: unknown = command.txnNumber;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' || typeof value === 'bigint') return BigInt(value);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a BSON Long prints its decimal value
  return BigInt(String(value));
}

function sessionKey(lsid: unknown): string | undefined {
  const id = (lsid as { id?: Binary } | undefined)?.id;
  return id !== undefined && typeof id.toString === 'function' ? id.toString('hex') : undefined;
}
