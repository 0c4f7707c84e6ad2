import type { Document } from 'bson';
import { CommandError } from '../errors';
import { compileProjection } from '../engine/projection';
import { parseSort } from '../engine/sort';
import { parseUpdateSpec } from '../engine/update-document';
import { deleteDocuments, updateDocuments, type Selection } from '../engine/write-operations';
import { collectionArgument, evaluationOptions, optionalDocument, optionalFlag } from './arguments';
import type { CommandHandler } from './context';

const findAndModify: CommandHandler = (command, { runtime, db, typed }) => {
  const name = collectionArgument(command, Object.keys(command)[0]);
  const remove = optionalFlag(command, 'remove', 'findAndModify.remove');
  const upsert = optionalFlag(command, 'upsert', 'findAndModify.upsert');
  if (remove && command.update !== undefined)
    throw new CommandError('FailedToParse', 'Cannot specify both an update and remove=true');
  if (remove && upsert) throw new CommandError('FailedToParse', 'Cannot specify both upsert=true and remove=true');
  if (remove && command.arrayFilters !== undefined)
    throw new CommandError('FailedToParse', 'Cannot specify arrayFilters and remove=true');
  if (!remove && command.update === undefined)
    throw new CommandError('FailedToParse', 'Either an update or remove=true must be specified');

  const options = evaluationOptions(command);
  const selection: Selection = {
    filter: optionalDocument(command, 'query') ?? {},
    // The update's values and the equalities an upsert seeds, with their numbers as sent.
    seedFilter: typed ? optionalDocument(typed, 'query') : undefined,
    sort: parseSort(command.sort),
    hint: command.hint,
    arrayFilters: command.arrayFilters as Document[] | undefined,
    single: true,
    ...options,
  };
  const present = compileProjection(optionalDocument(command, 'fields'), {}, options);
  const target = { db, collection: name };

  if (remove) {
    const [removed] = deleteDocuments(runtime.catalog, target, selection);
    return { lastErrorObject: { n: removed ? 1 : 0 }, value: removed ? present(removed) : null, ok: 1 };
  }

  const outcome = updateDocuments(
    runtime.catalog,
    target,
    parseUpdateSpec((typed ?? command).update),
    selection,
    upsert,
  );
  const returnNew = optionalFlag(command, 'new', 'findAndModify.new');
  if (outcome.upserted) {
    return {
      lastErrorObject: { n: 1, updatedExisting: false, upserted: outcome.upserted._id },
      value: returnNew ? present(outcome.upserted) : null,
      ok: 1,
    };
  }
  const [change] = outcome.changes;
  if (!change) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  const value = returnNew ? (change.after ?? change.before) : change.before;
  return { lastErrorObject: { n: 1, updatedExisting: true }, value: present(value), ok: 1 };
};

export const findAndModifyCommands: Record<string, CommandHandler> = { findAndModify, findandmodify: findAndModify };
