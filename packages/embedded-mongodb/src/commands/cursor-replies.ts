import type { Document } from 'bson';
import { DEFAULT_FIRST_BATCH, SERIALIZED } from '../cursors/cursor-registry';
import { CommandError } from '../errors';
import { encodeCursorReply } from '../wire/cursor-reply';
import { optionalDocument, optionalInteger } from './arguments';
import type { CommandContext } from './context';

export interface FirstBatchOptions<T = Document> {
  /** Documents in the first batch; MongoDB's default is 101. */
  readonly batchSize?: number;
  /** Return one batch and close the cursor (find's singleBatch, negative limit). */
  readonly singleBatch?: boolean;
  /** how an item becomes the BSON the client gets (default: items are documents, serialised) */
  readonly encode?: (item: T) => Uint8Array;
}

/** `cursor.batchSize` of aggregate and the list commands. */
export function cursorBatchSize(command: Document): number | undefined {
  const cursor = optionalDocument(command, 'cursor');
  return cursor ? batchSizeValue(optionalInteger(cursor, 'batchSize')) : undefined;
}

export function batchSizeValue(value: number | undefined): number | undefined {
  if (value !== undefined && value < 0)
    throw new CommandError('BadValue', `batchSize must be non-negative, not ${value}`);
  return value;
}

/**
 * Replies with the first batch of a result; the rest stays in a server cursor for getMore.
 * Exhausted (or single-batch) results answer cursor id 0 and keep nothing open.
 */
export function firstBatchReply<T = Document>(
  context: CommandContext,
  ns: string,
  items: readonly T[],
  options: FirstBatchOptions<T> = {},
): Uint8Array {
  const { cursors } = context.runtime;
  const cursor = cursors.open(ns, items, options.encode ?? (SERIALIZED as (item: T) => Uint8Array));
  const batch = cursor.nextBatch(options.batchSize ?? DEFAULT_FIRST_BATCH);
  const keepOpen = !cursor.exhausted && !options.singleBatch;
  if (!keepOpen) cursors.close(cursor.id);
  return encodeCursorReply('firstBatch', keepOpen ? cursor.id : 0, ns, batch);
}
