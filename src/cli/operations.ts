import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createApiKeyRepository } from '../auth/api-key-repository';
import { operationProblems } from '../graphql/armor';
import { createSchema } from '../graphql/schema';
import { publishedOperationIndexes } from '../operations/published-operation-indexes';
import type { PublishedOperation } from '../operations/published-operation-repository';
import { ensureIndexes } from '../store/indexes';
import { HELP, runCli, UsageError, type CliTool } from './cli-frame';
import { alignedTable, runAsCommand, type CliOutput } from './cli-support';

export { UsageError };

/**
 * `npm run operations -- <command>`: the operator's tool for trusted documents, the operations
 * published for keys whose operation policy is `published`. Parses arguments, opens the store of
 * the configuration and calls PublishedOperationService; every rule lives in the service.
 */

export const USAGE = `Usage: npm run operations -- <command>

Commands:
  publish <manifest.json> --key <id>
      Publishes every operation of an Apollo persisted query manifest (as written by
      @apollo/generate-persisted-query-manifest) for the key. Each operation is checked against
      the schema and the server's limits (cost, depth, aliases, tokens); if one fails, nothing is
      published and the failing operations are named. Publishing the same manifest again changes nothing.
  list [--key <id>]
      Lists the published operations (of one key): key, id, name, type, published.
  retire --key <id> (--id <operationId> | --all)
      Retires one operation of the key, or all of them, effective at once.

A key runs only its published operations once its policy is published:
  npm run keys -- update <id> --operations published

Store: MONGODB_URI when set; otherwise the embedded store on DATA_DIR (the running service's
store when the service runs there).`;

export type OperationsCommand =
  | { command: 'publish'; manifest: string; keyId: string }
  | { command: 'list'; keyId?: string }
  | { command: 'retire'; keyId: string; operationId?: string }
  | { command: 'help' };

export function parseOperationsArgs(argv: readonly string[]): OperationsCommand {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError('a command is required');
    case 'help':
    case '--help':
    case '-h':
      return { command: 'help' };
    case 'publish': {
      const { values, positionals } = parse(rest, { key: { type: 'string' } });
      if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('publish takes exactly one manifest');
      if (!values.key) throw new UsageError('--key is required');
      return { command: 'publish', manifest: positionals[0], keyId: values.key };
    }
    case 'list': {
      const { values, positionals } = parse(rest, { key: { type: 'string' } });
      if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      return values.key ? { command: 'list', keyId: values.key } : { command: 'list' };
    }
    case 'retire': {
      const { values, positionals } = parse(rest, {
        key: { type: 'string' },
        id: { type: 'string' },
        all: { type: 'boolean' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      if (!values.key) throw new UsageError('--key is required');
      if ((values.id === undefined) === (values.all !== true))
        throw new UsageError('retire takes either --id or --all');
      return values.id === undefined
        ? { command: 'retire', keyId: values.key }
        : { command: 'retire', keyId: values.key, operationId: values.id };
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

function parse<const T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The operations tool in the CLI frame: every rule lives in PublishedOperationService. */
const OPERATIONS_TOOL: CliTool<Exclude<OperationsCommand, { command: 'help' }>, unknown> = {
  name: 'operations',
  usage: USAGE,
  badInput: 'alone',
  parse: (argv) => {
    const command = parseOperationsArgs(argv);
    return command.command === 'help' ? HELP : command;
  },
  // Read before the store opens: a missing or malformed file needs no store.
  prepare: (command) => (command.command === 'publish' ? readManifest(command.manifest) : Promise.resolve(undefined)),
  run: async (command, { db, config, output, services, prepared: manifest }) => {
    const service = services().publishedOperations;
    switch (command.command) {
      case 'publish': {
        if ((await createApiKeyRepository(db).findById(command.keyId)) === null) {
          output.err(`operations: no API key has the id ${command.keyId}`);
          return 1;
        }
        await ensureIndexes(db, publishedOperationIndexes);
        const result = await service.publish(command.keyId, manifest, operationProblems(config, createSchema()));
        output.err(
          `Published ${result.total} operations for key ${command.keyId} (${result.added} new, ${result.total - result.added} already published).`,
        );
        break;
      }
      case 'list':
        output.out(formatOperationTable(await service.list(command.keyId)));
        break;
      case 'retire': {
        const removed = await service.retire(command.keyId, command.operationId);
        output.err(`Retired ${removed} operation(s) of key ${command.keyId}.`);
        break;
      }
    }
  },
};

/** Runs one command and resolves with the process exit code. */
export function runOperationsCli(
  argv: readonly string[],
  output: CliOutput,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  return runCli(OPERATIONS_TOOL, argv, output, { env });
}

async function readManifest(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file} is not JSON`);
  }
}

/** The published operations as an aligned text table: ids and names, never the operations' text. */
export function formatOperationTable(operations: readonly PublishedOperation[]): string {
  if (operations.length === 0) return 'No published operations.';
  const header = ['KEY', 'ID', 'NAME', 'TYPE', 'PUBLISHED'];
  const rows = operations.map((o) => [o.keyId, o.operationId, o.name, o.type, o.publishedAt.toISOString()]);
  return alignedTable(header, rows);
}

if (require.main === module) runAsCommand('operations', runOperationsCli);
