import type { Document } from 'bson';
import { parseUpdateSpec } from '../engine/update-document';
import { deleteDocuments, prepareInsert, updateDocuments } from '../engine/write-operations';
import { asCommandError, CommandError } from '../errors';
import { collectionArgument, evaluationOptions, optionalDocument, requiredArray } from './arguments';
import type { CommandHandler } from './context';

/**
 * Runs the statements of a write command in order. A failing statement becomes an entry of
 * `writeErrors` (the command itself still answers ok: 1); ordered writes stop at the first one.
 */
function runStatements(command: Document, field: string, run: (statement: unknown, index: number) => void): Document[] {
  const statements = requiredArray(command, field);
  const ordered = command.ordered !== false;
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
  return statement as Document;
}

const insert: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'insert');
  let n = 0;
  const writeErrors = runStatements(command, 'documents', (doc) => {
    runtime.catalog.ensureCollection(db, name).insert(prepareInsert(doc));
    n++;
  });
  return { n, ...(writeErrors.length > 0 ? { writeErrors } : {}), ok: 1 };
};

const update: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'update');
  let n = 0;
  let nModified = 0;
  const upserted: Document[] = [];
  const writeErrors = runStatements(command, 'updates', (raw, index) => {
    const statement = statementDocument(raw);
    const spec = parseUpdateSpec(statement.u);
    const multi = statement.multi === true;
    if (multi && spec.kind === 'replacement') {
      throw new CommandError('FailedToParse', 'multi update is not supported for replacement-style update');
    }
    const outcome = updateDocuments(
      runtime.catalog,
      { db, collection: name },
      spec,
      {
        filter: optionalDocument(statement, 'q') ?? {},
        arrayFilters: statement.arrayFilters as Document[] | undefined,
        hint: statement.hint,
        single: !multi,
        ...evaluationOptions({ collation: statement.collation, let: command.let }),
      },
      statement.upsert === true,
    );
    n += outcome.matched;
    nModified += outcome.modified;
    if (outcome.upserted) {
      n++;
      upserted.push({ index, _id: outcome.upserted._id });
    }
  });
  return { n, nModified, ...(upserted.length > 0 ? { upserted } : {}), ...(writeErrors.length > 0 ? { writeErrors } : {}), ok: 1 };
};

const remove: CommandHandler = (command, { runtime, db }) => {
  const name = collectionArgument(command, 'delete');
  let n = 0;
  const writeErrors = runStatements(command, 'deletes', (raw) => {
    const statement = statementDocument(raw);
    const limit = statement.limit ?? 0;
    if (limit !== 0 && limit !== 1) throw new CommandError('FailedToParse', 'The limit field in delete objects must be 0 or 1. Got ' + String(limit));
    n += deleteDocuments(
      runtime.catalog,
      { db, collection: name },
      {
        filter: optionalDocument(statement, 'q') ?? {},
        hint: statement.hint,
        single: limit === 1,
        ...evaluationOptions({ collation: statement.collation, let: command.let }),
      },
    ).length;
  });
  return { n, ...(writeErrors.length > 0 ? { writeErrors } : {}), ok: 1 };
};

export const writeCommands: Record<string, CommandHandler> = { insert, update, delete: remove };
