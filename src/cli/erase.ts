import { ErasureRepository } from '../changes/erasure-repository';
import { ErasureService } from '../changes/erasure-service';
import { erasureLogFor } from '../changes/erasure-log';
import { loadConfig } from '../config';
import { isAppError } from '../errors';
import { ensureIndexes } from '../app/indexes';
import { DataDirectoryInUseError, openStore, type OpenedStore } from '../store/open-store';
import { systemClock, type Clock } from '../common/clock';
import { heldStoreMessage, runAsCommand, type CliOutput } from './cli-support';

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

/** Runs the command and resolves with the process exit code. */
export async function runEraseCli(
  argv: readonly string[],
  output: CliOutput,
  env: Record<string, string | undefined> = process.env,
  clock: Clock = systemClock,
): Promise<number> {
  if (argv.length === 1 && ['help', '--help', '-h'].includes(argv[0])) {
    output.out(USAGE);
    return 0;
  }
  if (argv.length !== 1) {
    output.err(`erase: exactly one publicId is required\n\n${USAGE}`);
    return 2;
  }
  let store: OpenedStore | undefined;
  try {
    const config = loadConfig(env);
    store = await openStore(config, {
      embedded: {
        run: 'in-process',
        log: (level, msg) => {
          if (level !== 'info') output.err(`store ${level}: ${msg}`);
        },
      },
    });
    const db = store.database.db;
    await ensureIndexes(db);
    const result = await new ErasureService(new ErasureRepository(db), clock, erasureLogFor(config)).erase(
      undefined,
      argv[0],
    );
    output.out(`Erased ${result.publicId} at ${result.erasedAt.toISOString()}.`);
    output.out(
      result.recipients.length === 0
        ? 'No API key received this candidate.'
        : `Received by ${result.recipients.length} API key(s), told through the change feed:`,
    );
    for (const { keyId, name } of result.recipients) output.out(`  ${keyId}  ${name ?? '(key deleted)'}`);
    return 0;
  } catch (error) {
    if (error instanceof DataDirectoryInUseError) {
      output.err(heldStoreMessage('erase', error));
      return 1;
    }
    if (isAppError(error) && error.code === 'BAD_USER_INPUT') {
      output.err(`erase: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    output.err(`erase: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await store?.close();
  }
}

if (require.main === module) runAsCommand('erase', runEraseCli);
