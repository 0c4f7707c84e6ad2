import { ensureIndexes } from '../app/indexes';
import type { Clock } from '../common/clock';
import { HELP, runCli, UsageError, type CliTool } from './cli-frame';
import { runAsCommand, type CliOutput } from './cli-support';

/**
 * `npm run erase -- <publicId>`: the operator's tool for the right to erasure. Opens the store of
 * the configuration and calls ErasureService (the same rule as the ADMIN mutation eraseCandidate).
 */

export const USAGE = `Usage: npm run erase -- <publicId>

Erases the candidate with this public id: the key of its sealed identity, the identity,
candidate document and saved-list memberships, in one transaction, with an ERASED change in the
change feed. The erasure is written to the erasure log (ERASURE_LOG) first, so that a restored
backup or a crash never brings the candidate back. Prints the time of
the (first) erasure and the API keys that received the candidate, per the audit trail, to tell
each of them. Repeating it is harmless.

Store: MONGODB_URI when set; otherwise the embedded store on DATA_DIR (the running service's
store when the service runs there).`;

/** The erase tool in the CLI frame: the rule lives in ErasureService. */
const ERASE_TOOL: CliTool<{ publicId: string }> = {
  name: 'erase',
  usage: USAGE,
  badInput: 'with-usage',
  parse: (argv) => {
    if (argv.length === 1 && ['help', '--help', '-h'].includes(argv[0])) return HELP;
    if (argv.length !== 1) throw new UsageError('exactly one publicId is required');
    return { publicId: argv[0] };
  },
  run: async ({ publicId }, { db, output, services }) => {
    await ensureIndexes(db);
    const result = await services().erasure.erase(undefined, publicId);
    output.out(`Erased ${result.publicId} at ${result.erasedAt.toISOString()}.`);
    output.out(
      result.recipients.length === 0
        ? 'No API key received this candidate.'
        : `Received by ${result.recipients.length} API key(s), told through the change feed:`,
    );
    for (const { keyId, name } of result.recipients) output.out(`  ${keyId}  ${name ?? '(key deleted)'}`);
  },
};

/** Runs the command and resolves with the process exit code. */
export function runEraseCli(
  argv: readonly string[],
  output: CliOutput,
  env: Record<string, string | undefined> = process.env,
  clock?: Clock,
): Promise<number> {
  return runCli(ERASE_TOOL, argv, output, { env, clock });
}

if (require.main === module) runAsCommand('erase', runEraseCli);
