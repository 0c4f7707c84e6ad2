import type { Document } from 'bson';

/**
 * A reply document, or one already encoded as BSON (cursor batches). Here, below the commands
 * and the runtime, because transactions (which the runtime holds) run commands and return it.
 */
export type CommandResult = Document | Uint8Array;
