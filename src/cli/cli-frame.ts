import type { Db } from 'mongodb';
import { systemClock, type Clock } from '../common/clock';
import { loadConfig, type Config } from '../config';
import { isAppError } from '../errors';
import type { Services } from '../service-types';
import { createServices, serviceOptions } from '../app/create-services';
import { DataDirectoryInUseError, openStore, type EmbeddedRun, type OpenedStore } from '../store/open-store';
import { heldStoreMessage, type CliOutput } from './cli-support';

/**
 * The one frame of the command-line tools: parse → help → configuration → (prepare) → open the
 * store → run → close, and how each failure is told (a usage error, a data directory held by a
 * process that cannot be reached, a refused input, anything else) and with which exit code. A
 * tool gives its name, usage text, parser and what it does with the store open; the frame does
 * the rest, the same way for every tool.
 *
 * A tool's services come from `context.services()`: the core built by `createServices`, as the
 * service builds it, over the tool's store and with its configuration.
 */

/** A mistake in the command line: told with the usage text, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** What a parser returns for `help`, `--help` or `-h`: the frame prints the usage on stdout, exit code 0. */
export const HELP = Symbol('help');

export const EXIT_OK = 0;
/** A tool's failure, unless it names another (`exitCodes.failed`). */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** How a tool's store runs when MONGODB_URI is unset (openStore), or `none` for a tool that opens no store. */
export type ToolStore = 'in-process' | 'worker' | 'none';

export interface CliContext<Prepared> {
  readonly config: Config;
  /** The store of the configuration, open; closed by the frame after `run`. */
  readonly store: OpenedStore;
  readonly db: Db;
  readonly output: CliOutput;
  /** What the tool dates its writes by; tests pass one they move by hand. */
  readonly clock: Clock;
  /** What `prepare` returned. */
  readonly prepared: Prepared;
  /** The core's services over this store (createServices with the configuration's options), built once on first use. */
  readonly services: () => Services;
}

export interface CliTool<Command, Prepared = undefined> {
  /** `npm run <name>`; the prefix of its messages (`keys: …`) and the name in the held-store message. */
  readonly name: string;
  readonly usage: string;
  /** The prefix of the tool's error lines; default `<name>: `. */
  readonly prefix?: string;
  /** Where the embedded store runs (default `in-process`: in this thread, for the length of the command). */
  readonly store?: ToolStore;
  /** The exit code of a failure (default 1), a data directory that cannot be reached included. */
  readonly exitCodes?: { readonly failed?: number };
  /**
   * How an input a service refuses (BAD_USER_INPUT) is told: exit code 2, the message with the
   * usage text or alone. Unset: a failure like any other.
   */
  readonly badInput?: 'with-usage' | 'alone';
  /**
   * Parses the arguments (without `node` and the script): the command, or HELP. Throws
   * UsageError. `config` loads the configuration, for a default that comes from it.
   */
  parse(argv: readonly string[], config: () => Config): Command | typeof HELP;
  /** Before the store opens: what the command reads first (a file), so that its failure needs no store. */
  prepare?(command: Command, config: Config): Promise<Prepared>;
  /** After the work (or its failure), whatever happened: lets go of what `prepare` opened. */
  release?(prepared: Prepared): void;
  /** The work, with the store open; resolves with the exit code (default 0). */
  run(command: Command, context: CliContext<Prepared>): Promise<number | void>;
}

export interface CliOptions {
  /** The environment the configuration is read from; default process.env. */
  env?: Record<string, string | undefined>;
  /** The configuration itself, instead of reading `env`. */
  config?: Config;
  clock?: Clock;
}

/** Runs `tool` on `argv`; resolves with the exit code. Every store it opened is closed when it resolves. */
export async function runCli<Command, Prepared = undefined>(
  tool: CliTool<Command, Prepared>,
  argv: readonly string[],
  output: CliOutput,
  options: CliOptions = {},
): Promise<number> {
  const prefix = tool.prefix ?? `${tool.name}: `;
  const failed = tool.exitCodes?.failed ?? EXIT_FAILED;
  let loaded: Config | undefined = options.config;
  const config = (): Config => (loaded ??= loadConfig(options.env ?? process.env));
  let store: OpenedStore | undefined;
  let prepared: { value: Prepared } | undefined;
  try {
    let command: Command | typeof HELP;
    try {
      command = tool.parse(argv, config);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      output.err(`${prefix}${error.message}\n\n${tool.usage}`);
      return EXIT_USAGE;
    }
    if (command === HELP) {
      output.out(tool.usage);
      return EXIT_OK;
    }
    const settings = config();
    prepared = { value: tool.prepare ? await tool.prepare(command, settings) : (undefined as Prepared) };
    if (tool.store === 'none') {
      return (await tool.run(command, withoutStore(settings, output, options.clock, prepared.value))) ?? EXIT_OK;
    }
    store = await openStore(settings, { embedded: embeddedRun(tool.store ?? 'in-process', output) });
    const { db } = store.database;
    const clock = options.clock ?? systemClock;
    let services: Services | undefined;
    const context: CliContext<Prepared> = {
      config: settings,
      store,
      db,
      output,
      clock,
      prepared: prepared.value,
      services: () => (services ??= createServices(db, serviceOptions(settings, clock))),
    };
    return (await tool.run(command, context)) ?? EXIT_OK;
  } catch (error) {
    // A tool's `prepare` may find an argument wrong too (a file that cannot be opened).
    if (error instanceof UsageError) {
      output.err(`${prefix}${error.message}\n\n${tool.usage}`);
      return EXIT_USAGE;
    }
    if (error instanceof DataDirectoryInUseError) {
      output.err(heldStoreMessage(tool.name, error));
      return failed;
    }
    if (tool.badInput !== undefined && isAppError(error) && error.code === 'BAD_USER_INPUT') {
      output.err(`${prefix}${error.message}${tool.badInput === 'with-usage' ? `\n\n${tool.usage}` : ''}`);
      return EXIT_USAGE;
    }
    output.err(`${prefix}${error instanceof Error ? error.message : String(error)}`);
    return failed;
  } finally {
    if (prepared !== undefined) tool.release?.(prepared.value);
    await store?.close();
  }
}

/** The store of a tool: in this thread, its store's warnings and errors on stderr; or in a worker thread. */
function embeddedRun(run: 'in-process' | 'worker', output: CliOutput): EmbeddedRun {
  if (run === 'worker') return { run: 'worker' };
  return {
    run: 'in-process',
    log: (level, msg) => {
      if (level !== 'info') output.err(`store ${level}: ${msg}`);
    },
  };
}

/** The context of a tool that opens no store: asking it for the store is a mistake of the tool. */
function withoutStore<Prepared>(
  config: Config,
  output: CliOutput,
  clock: Clock | undefined,
  prepared: Prepared,
): CliContext<Prepared> {
  const none = (): never => {
    throw new Error('this tool opens no store (store: none)');
  };
  return {
    config,
    output,
    clock: clock ?? systemClock,
    prepared,
    get store() {
      return none();
    },
    get db() {
      return none();
    },
    services: none,
  };
}
