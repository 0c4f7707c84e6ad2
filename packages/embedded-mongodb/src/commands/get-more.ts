import { Long, type Document } from 'bson';
import { CommandError } from '../errors';
import { encodeCursorReply } from '../wire/cursor-reply';
import { collectionArgument, optionalInteger, requiredArray } from './arguments';
import type { CommandHandler } from './context';
import { batchSizeValue } from './cursor-replies';

function cursorId(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value instanceof Long) return value.toNumber();
  throw new CommandError('TypeMismatch', `cursor id must be a long, not ${typeof value}`);
}

const getMore: CommandHandler = (command, context) => {
  const id = cursorId(command.getMore);
  const ns = `${context.db}.${collectionArgument(command, 'collection')}`;
  const { cursors } = context.runtime;
  const cursor = cursors.get(id);
  if (!cursor) throw new CommandError('CursorNotFound', `cursor id ${id} not found`);
  if (cursor.ns !== ns) {
    throw new CommandError(
      'Unauthorized',
      `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
    );
  }
  const batch = cursor.nextBatch(batchSizeValue(optionalInteger(command, 'batchSize')) || Infinity);
  if (cursor.exhausted) cursors.close(id);
  return encodeCursorReply('nextBatch', cursor.exhausted ? 0 : id, ns, batch);
};

const killCursors: CommandHandler = (command, context) => {
  collectionArgument(command, 'killCursors');
  const killed: Long[] = [];
  const notFound: Long[] = [];
  for (const value of requiredArray(command, 'cursors')) {
    const id = cursorId(value);
    (context.runtime.cursors.close(id) ? killed : notFound).push(Long.fromNumber(id));
  }
  const reply: Document = {
    cursorsKilled: killed,
    cursorsNotFound: notFound,
    cursorsAlive: [],
    cursorsUnknown: [],
    ok: 1,
  };
  return reply;
};

export const getMoreCommands: Record<string, CommandHandler> = { getMore, killCursors };
