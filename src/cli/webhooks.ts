import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ensureIndexes } from '../store/indexes';
import type { Clock } from '../common/clock';
import type { Config } from '../config';
import { isAppError } from '../errors';
import { createServices, serviceOptions } from '../app/create-services';
import { EndpointRefusedError, type EndpointPolicy } from '../webhooks/address-guard';
import { WebhookRepository, type RecordedEndpointPolicy } from '../webhooks/webhook-repository';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/webhook-event';
import { webhookIndexes } from '../webhooks/webhook-indexes';
import type { WebhookStatus } from '../webhooks/webhook-service';
import type { Services } from '../service-types';
import { EXIT_USAGE, HELP, runCli, UsageError, type CliTool } from './cli-frame';
import { alignedTable, runAsCommand, type CliOutput } from './cli-support';

export { UsageError };

/**
 * `npm run webhooks -- <command>`: the operator's tool for webhooks. Parses arguments, opens the
 * store of the configuration and calls WebhookService as an ADMIN; every rule lives in the service.
 */

export const USAGE = `Usage: npm run webhooks -- <command>

Commands:
  add --key <key id> --url <https URL> --events <E1,E2,...> [--from-beginning]
      Registers an endpoint for the key's partner and prints its signing secret, alone, on the
      last line of stdout. It is shown only once.
  list
      Lists every webhook: id, key, URL, event types, cursor and lag.
  remove <id>
      Removes the webhook with this id and its deliveries.

Events: ${WEBHOOK_EVENT_TYPES.join(', ')}.
--from-beginning: also send the change events already written; without it, only later ones.

Store: MONGODB_URI when set; otherwise the embedded store on DATA_DIR (the running service's
store when the service runs there).
Endpoint rules (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_ADDRESSES): those of the service that
last started on the store; this command's own only before any service has started there.`;

export type WebhooksCommand =
  | { command: 'add'; apiKeyId: string; url: string; eventTypes: string[]; fromBeginning: boolean }
  | { command: 'list' }
  | { command: 'remove'; id: string }
  | { command: 'help' };

export function parseWebhooksArgs(argv: readonly string[]): WebhooksCommand {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError('a command is required');
    case 'help':
    case '--help':
    case '-h':
      return { command: 'help' };
    case 'add': {
      const { values, positionals } = parse(rest, {
        key: { type: 'string' },
        url: { type: 'string' },
        events: { type: 'string' },
        'from-beginning': { type: 'boolean' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      if (!values.key) throw new UsageError('--key is required');
      if (!values.url) throw new UsageError('--url is required');
      const eventTypes = (values.events ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== '');
      if (eventTypes.length === 0) throw new UsageError('--events needs at least one event type');
      return {
        command: 'add',
        apiKeyId: values.key,
        url: values.url,
        eventTypes,
        fromBeginning: values['from-beginning'] === true,
      };
    }
    case 'list': {
      const { positionals } = parse(rest, {});
      if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      return { command: 'list' };
    }
    case 'remove': {
      const { positionals } = parse(rest, {});
      if (positionals.length !== 1 || positionals[0] === '')
        throw new UsageError('remove takes exactly one webhook id');
      return { command: 'remove', id: positionals[0] };
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

/** The operator at the command line acts as an ADMIN. */
const OPERATOR = { permissions: ['ADMIN' as const] };

/** The webhooks tool in the CLI frame: every rule lives in WebhookService. */
const WEBHOOKS_TOOL: CliTool<Exclude<WebhooksCommand, { command: 'help' }>> = {
  name: 'webhooks',
  usage: USAGE,
  badInput: 'alone',
  parse: (argv) => {
    const command = parseWebhooksArgs(argv);
    return command.command === 'help' ? HELP : command;
  },
  run: async (command, { db, output, config, clock }) => {
    await ensureIndexes(db, webhookIndexes);
    const rules = endpointRules(await new WebhookRepository(db).recordedEndpointPolicy(), config);
    const service = createServices(db, { ...serviceOptions(config, clock), webhookEndpoints: rules.policy }).webhooks;
    try {
      await runCommand(command, service, output);
    } catch (error) {
      // An endpoint the rules refuse: the refusal, then which rules applied (the frame tells any other failure).
      if (!(isAppError(error) && error.code === 'BAD_USER_INPUT' && error.cause instanceof EndpointRefusedError))
        throw error;
      output.err(`webhooks: ${error.message}`);
      output.err(`webhooks: ${rules.described}`);
      return EXIT_USAGE;
    }
  },
};

async function runCommand(
  command: Exclude<WebhooksCommand, { command: 'help' }>,
  service: Services['webhooks'],
  output: CliOutput,
): Promise<void> {
  switch (command.command) {
    case 'add': {
      const { webhook, secret } = await service.create(OPERATOR, command);
      output.err(`Created ${summarise(webhook)}`);
      output.err('The signing secret follows on stdout. Store it now: it cannot be shown again.');
      output.out(secret);
      break;
    }
    case 'list':
      output.out(formatWebhookTable(await service.list(OPERATOR)));
      break;
    case 'remove':
      output.err(`Removed ${summarise(await service.remove(OPERATOR, command.id))}`);
      break;
  }
}

/** Runs one command and resolves with the process exit code. */
export function runWebhooksCli(
  argv: readonly string[],
  output: CliOutput,
  env: Record<string, string | undefined> = process.env,
  clock?: Clock,
): Promise<number> {
  return runCli(WEBHOOKS_TOOL, argv, output, { env, clock });
}

/**
 * The endpoint rules an `add` applies: those the service recorded when it last started on this
 * store (the rules it delivers by), else, before any service has started there, this command's own.
 */
function endpointRules(
  recorded: RecordedEndpointPolicy | null,
  config: Config,
): { policy: EndpointPolicy; described: string } {
  const policy = recorded?.policy ?? {
    allowHttp: config.webhookAllowHttp,
    allowPrivateAddresses: config.webhookAllowPrivateAddresses,
  };
  const values = `WEBHOOK_ALLOW_HTTP=${policy.allowHttp}, WEBHOOK_ALLOW_PRIVATE_ADDRESSES=${policy.allowPrivateAddresses}`;
  const described =
    recorded === null
      ? `no service has started on this store yet, so this command's own settings applied (${values}); the service checks every delivery by its own.`
      : `the service's settings applied, as it recorded them when it last started on this store (${recorded.recordedAt.toISOString()}): ${values}. Change them in the service's environment and restart it.`;
  return { policy, described };
}

function summarise(webhook: WebhookStatus): string {
  return `webhook ${webhook.id} for key ${webhook.apiKeyId} to ${webhook.url} (${webhook.eventTypes.join(', ')})`;
}

/** The list as an aligned text table; never contains a secret. */
export function formatWebhookTable(webhooks: readonly WebhookStatus[]): string {
  if (webhooks.length === 0) return 'No webhooks.';
  const header = ['ID', 'KEY', 'URL', 'EVENTS', 'CREATED', 'CURSOR', 'LAG'];
  const rows = webhooks.map((w) => [
    w.id,
    w.apiKeyId,
    w.url,
    w.eventTypes.join(','),
    w.createdDate.toISOString(),
    String(w.cursor),
    String(w.lag),
  ]);
  return alignedTable(header, rows);
}

if (require.main === module) runAsCommand('webhooks', runWebhooksCli);
