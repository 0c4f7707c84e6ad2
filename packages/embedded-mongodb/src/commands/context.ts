import type { Document } from 'bson';
import type { CommandResult } from '../command-result';
import type { StoreRuntime } from '../runtime';

export type { CommandResult } from '../command-result';

export interface CommandContext {
  readonly runtime: StoreRuntime;
  /** The command's database (`$db`). */
  readonly db: string;
  readonly connectionId: number;
}

export type CommandHandler = (command: Document, context: CommandContext) => CommandResult | Promise<CommandResult>;
