import type { Document } from 'bson';
import { asCommandError, CommandError } from '../errors';
import type { StoreRuntime } from '../runtime';
import { Transactions } from '../transactions';
import { aggregateCommands } from './aggregate';
import { collectionCommands } from './collections';
import type { CommandHandler, CommandResult } from './context';
import { countDistinctCommands } from './count-distinct';
import { databaseCommands } from './databases';
import { explainCommands } from './explain';
import { findCommands } from './find';
import { findAndModifyCommands } from './find-and-modify';
import { getMoreCommands } from './get-more';
import { handshakeCommands } from './handshake';
import { indexCommands } from './indexes';
import { serverInfoCommands } from './server-info';
import { writeCommands } from './write-commands';

const COMMANDS: ReadonlyMap<string, CommandHandler> = new Map(
  Object.entries({
    ...handshakeCommands,
    ...serverInfoCommands,
    ...databaseCommands,
    ...collectionCommands,
    ...indexCommands,
    ...findCommands,
    ...getMoreCommands,
    ...writeCommands,
    ...findAndModifyCommands,
    ...countDistinctCommands,
    ...aggregateCommands,
    ...explainCommands,
  }),
);

async function execute(body: Document, runtime: StoreRuntime, connectionId: number): Promise<CommandResult> {
  const name = Object.keys(body)[0];
  const handler = name === undefined ? undefined : COMMANDS.get(name);
  if (!handler) throw new CommandError('CommandNotFound', `no such command: '${name ?? ''}'`);
  const db = body.$db;
  if (typeof db !== 'string' || db.length === 0) throw new CommandError('InvalidNamespace', 'command has no $db');
  const run = () => handler(body, { runtime, db, connectionId });
  const { transactions } = runtime;
  if (!transactions) {
    // A standalone: txnNumber alone (a retryable write) is accepted and ignored; a transaction
    // is refused up front, as a standalone mongod does, rather than half applied.
    if (body.startTransaction === true || body.autocommit === false) {
      throw new CommandError(
        'IllegalOperation',
        'Transaction numbers are only allowed on a replica set member or mongos',
      );
    }
    return run();
  }
  if (Transactions.isTransactionCommand(name, body)) return transactions.runInTransaction(name, body, run);
  return transactions.runOutsideTransaction(name, body, run);
}

/**
 * Commands whose reply may acknowledge a write made by an earlier command: a retryable write
 * retried with the same txnNumber, or a commitTransaction retried, is answered from what the
 * first attempt did, which may still be on its way to disk. They wait for the journal too.
 */
const RETRYABLE_WRITES = new Set(['insert', 'update', 'delete', 'findAndModify']);

function mayReplayAWrite(body: Document): boolean {
  const name = Object.keys(body)[0];
  if (name === 'commitTransaction') return true;
  return name !== undefined && RETRYABLE_WRITES.has(name) && body.txnNumber !== undefined && body.autocommit !== false;
}

/**
 * Runs one command and produces its reply; never throws. Generic arguments (lsid, txnNumber,
 * $readPreference, apiVersion, writeConcern, ...) need no handling: handlers read only their
 * own fields. A command that wrote anything (a committed transaction: one journal record) replies
 * only once its changes are fsync'ed in the journal, together with every change appended before
 * them (group commit: one fdatasync for all the writes that arrived while the last one ran).
 */
export async function runCommand(body: Document, runtime: StoreRuntime, connectionId: number): Promise<CommandResult> {
  const journal = runtime.journal;
  const mark = journal?.position ?? 0;
  let reply: CommandResult;
  try {
    reply = await execute(body, runtime, connectionId);
  } catch (error) {
    const commandError = asCommandError(error);
    if (commandError.codeName === 'InternalError') {
      runtime.log('error', 'command failed unexpectedly', {
        command: Object.keys(body)[0],
        error: error instanceof Error ? error.stack : String(error),
      });
    }
    reply = commandError.toReply();
  }
  if (journal && (journal.position !== mark || mayReplayAWrite(body))) {
    try {
      await journal.waitDurable();
    } catch (error) {
      runtime.log('error', 'journal write failed', { error: String(error) });
      return new CommandError('InternalError', `journal write failed: ${String(error)}`).toReply();
    }
  }
  return reply;
}
