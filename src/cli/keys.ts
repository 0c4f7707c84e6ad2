import { parseArgs, type ParseArgsConfig } from 'node:util';
import { apiKeyIndexes } from '../auth/api-key-indexes';
import {
  MAX_EXPIRES_IN_DAYS,
  MAX_RATE_LIMIT_PER_MINUTE,
  type ApiKeyRecord,
  type UpdateKeyInput,
} from '../auth/api-key-service';
import { OPERATION_POLICIES, type OperationPolicy } from '../auth/api-key-repository';
import { isPermission, PERMISSIONS, type Permission } from '../auth/permissions';
import { ensureIndexes } from '../store/indexes';
import type { Clock } from '../common/clock';
import { HELP, runCli, UsageError, type CliTool } from './cli-frame';
import { alignedTable, runAsCommand, type CliOutput } from './cli-support';

export { UsageError };

/**
 * `npm run keys -- <command>`: the operator's tool for API keys. Parses arguments, opens the
 * store of the configuration and calls ApiKeyService; every rule lives in the service.
 */

export const USAGE = `Usage: npm run keys -- <command>

Commands:
  create --name <name> --permissions <P1,P2,...> [--expires <days>] [--rate-limit <reads>/<writes> | --unlimited]
         [--statistics-budget <epsilon>] [--operations any|published]
      Creates a key and prints it, alone, on the last line of stdout. It is shown only once.
  update <id> [--statistics-budget <epsilon>] [--operations any|published]
      Changes settings of the key, effective at once on every instance.
  list
      Lists every key: id, name, prefix, permissions, created, expiry, rate limit, revoked state.
  revoke <id>
      Revokes the key with this id, effective at once.

Permissions: ${PERMISSIONS.join(', ')} (ADMIN implies all).
--expires: whole days from now, 1 to ${MAX_EXPIRES_IN_DAYS}; without it the key does not expire.
--rate-limit: this key's own budgets per minute, e.g. 1200/120 (reads/writes, each 1 to ${MAX_RATE_LIMIT_PER_MINUTE});
      without it the key has the service's RATE_LIMIT_READS/RATE_LIMIT_WRITES.
--unlimited: never rate limited and never counted; for internal load tests only.
--statistics-budget: the privacy budget (ε) the key may spend on candidateStatistics per period,
      0 to 1000000 with at most three decimals; without it the key has the service's STATISTICS_BUDGET.
--operations: which GraphQL operations the key may run: any (the default) or published, only the
      operations published for it with \`npm run operations -- publish\` (REST /v1 stays open to it).

Store: MONGODB_URI when set; otherwise the embedded store on DATA_DIR (the running service's
store when the service runs there).`;

export type KeysCommand =
  | {
      command: 'create';
      name: string;
      permissions: Permission[];
      expiresInDays?: number;
      /** per minute */
      rateLimit?: { reads: number; writes: number };
      unlimited?: boolean;
      /** ε per statistics budget period */
      statisticsBudget?: number;
      operations?: OperationPolicy;
    }
  | { command: 'update'; id: string; changes: KeyUpdate }
  | { command: 'list' }
  | { command: 'revoke'; id: string }
  | { command: 'help' };

export function parseKeysArgs(argv: readonly string[]): KeysCommand {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError('a command is required');
    case 'help':
    case '--help':
    case '-h':
      return { command: 'help' };
    case 'create': {
      const { values, positionals } = parse(rest, {
        name: { type: 'string' },
        permissions: { type: 'string' },
        expires: { type: 'string' },
        'rate-limit': { type: 'string' },
        unlimited: { type: 'boolean' },
        'statistics-budget': { type: 'string' },
        operations: { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      const name = values.name?.trim();
      if (!name) throw new UsageError('--name is required');
      if (values.permissions === undefined) throw new UsageError('--permissions is required');
      const result: KeysCommand = { command: 'create', name, permissions: parsePermissions(values.permissions) };
      if (values.expires !== undefined) result.expiresInDays = parseDays(values.expires);
      if (values['rate-limit'] !== undefined && values.unlimited === true)
        throw new UsageError('--rate-limit and --unlimited exclude each other');
      if (values['rate-limit'] !== undefined) result.rateLimit = parseRateLimit(values['rate-limit']);
      if (values.unlimited === true) result.unlimited = true;
      if (values['statistics-budget'] !== undefined)
        result.statisticsBudget = parseStatisticsBudget(values['statistics-budget']);
      if (values.operations !== undefined) result.operations = parseOperationPolicy(values.operations);
      return result;
    }
    case 'update': {
      const { values, positionals } = parse(
        rest,
        Object.fromEntries(Object.keys(SETTABLE).map((option) => [option, { type: 'string' as const }])),
      );
      if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('update takes exactly one key id');
      const changes: KeyUpdate = {};
      for (const [option, setting] of Object.entries(SETTABLE)) {
        const value = values[option];
        if (typeof value === 'string') setting.apply(changes, value);
      }
      if (Object.keys(changes).length === 0) {
        throw new UsageError(
          `update needs at least one of ${Object.keys(SETTABLE)
            .map((o) => `--${o}`)
            .join(', ')}`,
        );
      }
      return { command: 'update', id: positionals[0], changes };
    }
    case 'list': {
      const { positionals } = parse(rest, {});
      if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      return { command: 'list' };
    }
    case 'revoke': {
      const { positionals } = parse(rest, {});
      if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('revoke takes exactly one key id');
      return { command: 'revoke', id: positionals[0] };
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

function parse<const T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs names the offending option, e.g. "Unknown option '--nmae'".
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function parseStatisticsBudget(text: string): number {
  const budget = Number(text);
  if (!/^\d+(\.\d{1,3})?$/.test(text.trim()) || budget > 1_000_000)
    throw new UsageError(
      '--statistics-budget must be an ε from 0 to 1000000 with at most three decimals, e.g. 5 or 2.5',
    );
  return budget;
}

/** What `update` may change on a key. */
export type KeyUpdate = UpdateKeyInput;

/** The options of `update`, each with how it reads its value: one row per settable option. */
const SETTABLE: Record<string, { apply(changes: KeyUpdate, value: string): void }> = {
  operations: { apply: (changes, value) => (changes.operations = parseOperationPolicy(value)) },
  'statistics-budget': { apply: (changes, value) => (changes.statisticsBudget = parseStatisticsBudget(value)) },
};

function parseOperationPolicy(text: string): OperationPolicy {
  const policy = OPERATION_POLICIES.find((known) => known === text);
  if (policy === undefined) throw new UsageError(`--operations must be one of ${OPERATION_POLICIES.join(', ')}`);
  return policy;
}

function parsePermissions(list: string): Permission[] {
  const names = list
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (names.length === 0) throw new UsageError('--permissions needs at least one permission');
  const unknown = names.filter((p) => !isPermission(p));
  if (unknown.length > 0) throw new UsageError(`unknown permission: ${unknown.join(', ')}`);
  return names as Permission[];
}

function parseDays(text: string): number {
  const days = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRES_IN_DAYS) {
    throw new UsageError(`--expires must be a whole number of days from 1 to ${MAX_EXPIRES_IN_DAYS}`);
  }
  return days;
}

/** `<reads>/<writes>` per minute, e.g. `1200/120`. */
function parseRateLimit(text: string): { reads: number; writes: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const [reads, writes] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  const valid = (n: number) => Number.isInteger(n) && n >= 1 && n <= MAX_RATE_LIMIT_PER_MINUTE;
  if (!valid(reads) || !valid(writes)) {
    throw new UsageError(
      `--rate-limit must be <reads>/<writes> per minute, each a whole number from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}`,
    );
  }
  return { reads, writes };
}

/** The keys tool in the CLI frame: every rule lives in ApiKeyService. */
const KEYS_TOOL: CliTool<Exclude<KeysCommand, { command: 'help' }>> = {
  name: 'keys',
  usage: USAGE,
  badInput: 'with-usage',
  parse: (argv) => {
    const command = parseKeysArgs(argv);
    return command.command === 'help' ? HELP : command;
  },
  run: async (command, { db, output, clock, services }) => {
    const service = services().apiKeys;
    switch (command.command) {
      case 'create': {
        // The store may be one the service has not prepared yet; the unique keyHash index must exist.
        await ensureIndexes(db, apiKeyIndexes);
        const { name, permissions, expiresInDays, rateLimit, unlimited, statisticsBudget, operations } = command;
        const { key, record } = await service.createKey({
          name,
          permissions,
          expiresInDays,
          rateLimit,
          unlimited,
          statisticsBudget,
          operations,
        });
        output.err(`Created ${summarise(record)}`);
        output.err('The key follows on stdout. Store it now: it cannot be shown again.');
        output.out(key);
        break;
      }
      case 'list':
        output.out(formatKeyTable(await service.listKeys(), clock.now()));
        break;
      case 'revoke': {
        const record = await service.revokeKey(command.id);
        output.err(`Revoked ${summarise(record)}`);
        break;
      }
      case 'update': {
        const record = await service.updateKey(command.id, command.changes);
        output.err(`Updated ${summarise(record)}`);
        break;
      }
    }
  },
};

/** Runs one command and resolves with the process exit code. */
export function runKeysCli(
  argv: readonly string[],
  output: CliOutput,
  env: Record<string, string | undefined> = process.env,
  /** what `create` dates the key with and `list` tells expired keys by; tests move it by hand */
  clock?: Clock,
): Promise<number> {
  return runCli(KEYS_TOOL, argv, output, { env, clock });
}

function summarise(record: ApiKeyRecord): string {
  const expiry = record.expiresAt ? `expires ${record.expiresAt.toISOString()}` : 'does not expire';
  const statistics = record.statisticsBudget === undefined ? '' : `; statistics budget ε ${record.statisticsBudget}`;
  return `key ${record.id} "${record.name}" (${record.prefix}…) with ${record.permissions.join(', ')}; ${expiry}; rate limit ${rateLimitOf(record)}; operations ${record.operations ?? 'any'}${statistics}`;
}

/** `default` (the service's RATE_LIMIT_READS/WRITES), `<reads>/<writes>` per minute, or `unlimited`. */
function rateLimitOf(record: ApiKeyRecord): string {
  if (record.unlimited) return 'unlimited';
  return record.rateLimit ? `${record.rateLimit.reads}/${record.rateLimit.writes}` : 'default';
}

/** The list as an aligned text table; never contains a key or a hash. */
export function formatKeyTable(records: readonly ApiKeyRecord[], now: Date): string {
  if (records.length === 0) return 'No API keys.';
  const header = ['ID', 'NAME', 'PREFIX', 'PERMISSIONS', 'CREATED', 'EXPIRES', 'RATE_LIMIT', 'OPERATIONS', 'STATE'];
  const rows = records.map((r) => [
    r.id,
    r.name,
    r.prefix,
    r.permissions.join(','),
    r.createdDate.toISOString(),
    r.expiresAt ? r.expiresAt.toISOString() : 'never',
    rateLimitOf(r),
    r.operations ?? 'any',
    r.revokedAt
      ? `revoked ${r.revokedAt.toISOString()}`
      : r.expiresAt && r.expiresAt.getTime() <= now.getTime()
        ? 'expired'
        : 'active',
  ]);
  return alignedTable(header, rows);
}

if (require.main === module) runAsCommand('keys', runKeysCli);
