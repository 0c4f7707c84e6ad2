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
import { maintenanceCommands } from './maintenance';
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
    ...maintenanceCommands,
  }),
);

/** Commands that never write: they run outside any engine transaction. */
const READ_ONLY_COMMANDS = new Set([
  'hello',
  'isMaster',
  'ismaster',
  'ping',
  'buildInfo',
  'buildinfo',
  'serverStatus',
  'getParameter',
  'getCmdLineOpts',
  'connectionStatus',
  'listDatabases',
  'dbStats',
  'listCollections',
  'collStats',
  'listIndexes',
  'find',
  'getMore',
  'killCursors',
  'count',
  'distinct',
  'explain',
  'endSessions',
  'killSessions',
  'killAllSessions',
  'refreshSessions',
  'abortTransaction',
  // They hold back writes themselves, while they need to (StorageEngine.hold), and write no data.
  'compact',
  'createBackup',
]);

/** Whether a command may write: any but the read-only ones, and an aggregate only with $out or $merge. */
function mayWrite(name: string, body: Document): boolean {
  if (name === 'aggregate') {
    const pipeline: unknown = body.pipeline;
    return (
      !Array.isArray(pipeline) ||
      pipeline.some((stage) => typeof stage !== 'object' || stage === null || '$out' in stage || '$merge' in stage)
    );
  }
  return !READ_ONLY_COMMANDS.has(name);
}

/** A command's result, which must be ready: an engine transaction cannot stay open across an await. */
function synchronous(result: CommandResult | Promise<CommandResult>): CommandResult {
  if (result instanceof Promise) throw new Error('a command that writes must run synchronously');
  return result;
}

async function execute(
  body: Document,
  runtime: StoreRuntime,
  connectionId: number,
  typed: Document | undefined,
): Promise<CommandResult> {
  const name = Object.keys(body)[0];
  const handler = name === undefined ? undefined : COMMANDS.get(name);
  if (!handler) throw new CommandError('CommandNotFound', `no such command: '${name ?? ''}'`);
  const db = body.$db;
  if (typeof db !== 'string' || db.length === 0) throw new CommandError('InvalidNamespace', 'command has no $db');
  const handle = () => handler(body, { runtime, db, connectionId, ...(typed ? { typed } : {}) });
  const { transactions } = runtime;
  const { engine } = runtime.catalog;
  // A command that may write runs in one engine transaction, committed durably before its reply;
  // those of a multi-document transaction run in one that is rolled back (transactions.ts).
  const inTransaction = transactions !== undefined && Transactions.isTransactionCommand(name, body);
  const commits = mayWrite(name, body) && !(inTransaction && name !== 'commitTransaction');
  const run = commits ? () => engine.write(() => synchronous(handle())) : handle;
  if (!transactions) {
    // A standalone: txnNumber alone (a retryable write) is accepted and ignored; a transaction
    // is refused up front, as a standalone mongod does, rather than half applied.
    if (body.startTransaction === true || body.autocommit === false) {
      throw new CommandError(
        'IllegalOperation',
        'Transaction numbers are only allowed on a replica set member or mongos',
      );
    }
  }
  if (!commits) return dispatch(name, body, run, transactions, typed);
  // Nothing commits while a compaction or a backup's start holds the engine; the check and the
  // commit are in one turn. A commit that started a compaction (it deleted from a secure-delete
  // collection) is answered once the compaction has removed the deleted bytes from the disk.
  while (engine.held) await engine.whenWritable();
  const reply = await dispatch(name, body, run, transactions, typed);
  if (engine.held) await engine.settled();
  return reply;
}

function dispatch(
  name: string,
  body: Document,
  run: () => CommandResult | Promise<CommandResult>,
  transactions: Transactions | undefined,
  typed: Document | undefined,
): CommandResult | Promise<CommandResult> {
  if (!transactions) return run();
  if (Transactions.isTransactionCommand(name, body)) return transactions.runInTransaction(name, body, run, typed);
  return transactions.runOutsideTransaction(name, body, run);
}

/**
 * Runs one command and produces its reply; never throws. Generic arguments (lsid, txnNumber,
 * $readPreference, apiVersion, writeConcern, ...) need no handling: handlers read only their
 * own fields. `typed` is the same command with its numbers as sent (wire/op-msg.ts), when they
 * differ. A command that wrote anything replies only once its engine transaction is
 * committed and fsync'ed (see `execute`).
 */
export async function runCommand(
  body: Document,
  runtime: StoreRuntime,
  connectionId: number,
  typed?: Document,
): Promise<CommandResult> {
  let reply: CommandResult;
  try {
    reply = await execute(body, runtime, connectionId, typed);
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
  return reply;
}
