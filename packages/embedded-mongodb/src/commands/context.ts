import type { Document } from 'bson';
import type { StoreRuntime } from '../runtime';

export interface CommandContext {
  readonly runtime: StoreRuntime;
  /** The command's database (`$db`). */
  readonly db: string;
  readonly connectionId: number;
}

/** A reply document, or one already encoded as BSON (cursor batches). */
export type CommandResult = Document | Uint8Array;

export type CommandHandler = (command: Document, context: CommandContext) => CommandResult | Promise<CommandResult>;
