import type { Document } from 'bson';
import { parseUpdateSpec } from '../engine/update-document';
import { deleteDocuments, prepareInsert, updateDocuments } from '../engine/write-operations';
import { asCommandError, CommandError } from '../errors';
import {
  assertSimpleCollation,
  collectionArgument,
  evaluationOptions,
  optionalDocument,
  optionalFlag,
  requiredArray,
} from './arguments';
import type { CommandHandler } from './context';

/** The fields of update and delete statements in MongoDB 7.0 (`sort` came in 8.0). */
const STATEMENT_FIELDS = {
  updates: new Set([
    'q',
    'u',
    'c',
    'arrayFilters',
    'hint',
    'multi',
    'upsert',
    'upsertSupplied',
    'collation',
    'sampleId',
  ]),
  deletes: new Set(['q', 'limit', 'hint', 'collation', 'sampleId']),
} as const;

/**
 * Checks every statement before any runs, as MongoDB parses the whole command first: an unknown
 * field or an option the store does not support refuses the command, nothing written.
 */
function checkStatements(field: keyof typeof STATEMENT_FIELDS, statements: readonly unknown[]): void {
  const verb = field === 'updates' ? 'update' : 'delete';
  for (const statement of statements) {
    if (statement === null || typeof statement !== 'object' || Array.isArray(statement)) continue;
    const unknown = Object.keys(statement).find((key) => !STATEMENT_FIELDS[field].has(key));
    if (unknown)
      throw new CommandError('Location40415', `BSON field '${verb}.${field}.${unknown}' is an unknown field.`);
    if ('c' in statement)
      throw new CommandError(
        'CommandNotSupported',
        `the embedded store does not support '${verb}.${field}.c' (statement constants); use 'let'`,
      );
    assertSimpleCollation(statement);
  }
}

/**
 * Runs the statements of a write command in order. A failing statement becomes an entry of
 * `writeErrors` (the command itself still answers ok: 1); ordered writes stop at the first one.
 */
function runStatements(command: Document, field: string, run: (statement: unknown, index: number) => void): Document[] {
  const statements = requiredArray(command, field);
  if (field === 'updates' || field === 'deletes') checkStatements(field, statements);
  const ordered = command.ordered === undefined || optionalFlag(command, 'ordered');
  const writeErrors: Document[] = [];
  for (let i = 0; i < statements.length; i++) {
    try {
      run(statements[i], i);
    } catch (error) {
      writeErrors.push(asCommandError(error).toWriteError(i));
      if (ordered) break;
    }
  }
  return writeErrors;
}

function statementDocument(statement: unknown): Document {
  if (statement === null || typeof statement !== 'object' || Array.isArray(statement)) {
    throw new CommandError('TypeMismatch', 'each write statement must be an object');
  }
  return statement;
}

const insert: CommandHandler = (command, { runtime, db, typed }) => {
  const name = collectionArgument(command, 'insert');
  let n = 0;
  // The documents with their numbers as sent: stored as the types they were written as.
  const writeErrors = runStatements(typed ?? command, 'documents', (doc) => {
    // Checked before the collection is made: a document refused creates nothing.
    const checked = prepareInsert(doc);
    runtime.catalog.ensureCollection(db, name).insert(checked);
    n++;
  });
  return { n, ...(writeErrors.length > 0 ? { writeErrors } : {}), ok: 1 };
};

const update: CommandHandler = (command, { runtime, db, typed }) => {
  const name = collectionArgument(command, 'update');
  // `let` is evaluated once for the command, as MongoDB does.
  const options = evaluationOptions({ let: command.let });
  let n = 0;
  let nModified = 0;
  const upserted: Document[] = [];
  const writeErrors = runStatements(command, 'updates', (raw, index) => {
    const statement = statementDocument(raw);
    // What the update writes, and the filter's equalities an upsert seeds, with their numbers as sent.
    const sent = typed ? statementDocument((typed.updates as unknown[])[index]) : statement;
    const spec = parseUpdateSpec(sent.u);
    const multi = optionalFlag(statement, 'multi', 'update.updates.multi');
    if (multi && spec.kind === 'replacement') {
      throw new CommandError('FailedToParse', 'multi update is not supported for replacement-style update');
    }
    const outcome = updateDocuments(
      runtime.catalog,
      { db, collection: name },
      spec,
      {
        filter: optionalDocument(statement, 'q') ?? {},
        seedFilter: optionalDocument(sent, 'q'),
        arrayFilters: statement.arrayFilters as Document[] | undefined,
        hint: statement.hint,
        single: !multi,
        ...options,
      },
      optionalFlag(statement, 'upsert', 'update.updates.upsert'),
    );
    n += outcome.matched;
    nModified += outcome.modified;
    if (outcome.upserted) {
      n++;
      upserted.push({ index, _id: outcome.upserted._id });
    }
  });
  return {
    n,
    nModified,
    ...(upserted.length > 0 ? { upserted } : {}),
    ...(writeErrors.length > 0 ? { writeErrors } : {}),
    ok: 1,
  };
};

const remove: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'delete');
  const options = evaluationOptions({ let: command.let });
  let n = 0;
  const writeErrors = runStatements(command, 'deletes', (raw) => {
    const statement = statementDocument(raw);
    const limit = statement.limit ?? 0;
    if (limit !== 0 && limit !== 1)
      throw new CommandError('FailedToParse', 'The limit field in delete objects must be 0 or 1. Got ' + String(limit));
    n += deleteDocuments(
      runtime.catalog,
      { db, collection: name },
      {
        filter: optionalDocument(statement, 'q') ?? {},
        hint: statement.hint,
        single: limit === 1,
        ...options,
      },
    ).length;
  });
  return { n, ...(writeErrors.length > 0 ? { writeErrors } : {}), ok: 1 };
};

export const writeCommands: Record<string, CommandHandler> = { insert, update, delete: remove };
