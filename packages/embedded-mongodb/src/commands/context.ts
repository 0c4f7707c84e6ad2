import type { Document } from 'bson';
import type { CommandResult } from '../command-result';
import type { StoreRuntime } from '../runtime';

export type { CommandResult } from '../command-result';

export interface CommandContext {
  readonly runtime: StoreRuntime;
  /** The command's database (`$db`). */
  readonly db: string;
  readonly connectionId: number;
  /**
   * The command with each number of the BSON type it was sent as, when it holds a long or a
   * whole double (engine/typed-numbers.ts): writes store the values they take from it.
   */
  readonly typed?: Document;
}

export type CommandHandler = (command: Document, context: CommandContext) => CommandResult | Promise<CommandResult>;
