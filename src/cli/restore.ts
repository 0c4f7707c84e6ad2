import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { restoreBackup } from 'embedded-mongodb';
import { COLLECTIONS } from '../app/indexes';
import { ERASURE_LOG_FILE, ErasureLog, erasureLogFor } from '../changes/erasure-log';
import { reapplyLoggedErasures } from '../changes/erasure-replay';
import { ErasureRepository } from '../changes/erasure-repository';
import type { Clock } from '../common/clock';
import { BadUserInputError } from '../errors';
import { connectDatabase } from '../store/mongo';
import { startInProcessStore } from '../store/open-store';
import { HELP, runCli, UsageError, type CliTool } from './cli-frame';
import { runAsCommand, type CliOutput } from './cli-support';

/**
 * `npm run restore -- <backup> [--data-dir <dir>] [--erasure-log <file>]`: puts a backup made by
 * `npm run backup` into an empty data directory, verified first, with every erasure made since
 * the backup carried out again before the directory is put in place.
 */

export const USAGE = `Usage: npm run restore -- <backup> [--data-dir <dir>] [--erasure-log <file>]

Restores a backup made by npm run backup (a directory or a .tar.gz) into <dir> (DATA_DIR when
--data-dir is not given), which must not exist or be empty: a restore never replaces data.
The service must not run on <dir>.

1. Verifies the whole backup (its manifest and the SHA-256 of every file); nothing is written
   if anything differs.
2. Unpacks it beside <dir>, fsyncs it, and counts every collection and index against the
   manifest.
3. Erases again every candidate of the erasure log that the backup still holds (erasures made
   after the backup was taken), so that a restore never brings an erased candidate back. The
   log: --erasure-log, else ERASURE_LOG, else DATA_DIR/erasures.log. It is copied into <dir>.
4. Renames it to <dir>.

With MONGODB_URI set it refuses: restore MongoDB with mongorestore (docs/operators.md).`;

export const MONGODB_HINT =
  'MONGODB_URI is set: this restores the embedded store only. Restore MongoDB with ' +
  'mongorestore --uri "$MONGODB_URI" --gzip --archive=<file> --drop, then start the service with ERASURE_LOG set ' +
  '(docs/operators.md, "Backups and restores")';

interface RestoreCommand {
  readonly backup: string;
  readonly dataDir: string | undefined;
  readonly erasureLog: string | undefined;
}

/**
 * The restore tool in the CLI frame. It opens no store of the configuration (`none`): the store
 * it opens is the restored one, beside its target, before it is put in place.
 */
const RESTORE_TOOL: CliTool<RestoreCommand> = {
  name: 'restore',
  usage: USAGE,
  store: 'none',
  badInput: 'alone',
  parse: (argv) => {
    if (argv.length === 1 && ['help', '--help', '-h'].includes(argv[0])) return HELP;
    let parsed: ReturnType<typeof parseRestoreArgs>;
    try {
      parsed = parseRestoreArgs(argv);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    if (positionals.length !== 1) throw new UsageError('exactly one backup is required');
    return { backup: positionals[0], dataDir: values['data-dir'], erasureLog: values['erasure-log'] };
  },
  prepare: async (_command, config) => {
    if (config.mongodbUri !== '') throw new BadUserInputError(MONGODB_HINT);
  },
  run: async (command, { config, output }) => {
    const target = path.resolve(command.dataDir ?? config.dataDir);
    const log =
      command.erasureLog !== undefined ? new ErasureLog(path.resolve(command.erasureLog)) : erasureLogFor(config)!;
    const erasures = await log.read();
    if (erasures.length === 0 && !fs.existsSync(log.file))
      output.err(
        `restore: no erasure log at ${log.file}: erasures made after the backup cannot be carried out again. ` +
          'Name the log with --erasure-log if it is elsewhere.',
      );
    let erasedAgain = 0;
    const manifest = await restoreBackup(command.backup, target, async (dataDir) => {
      erasedAgain = await eraseAgain(dataDir, log, config.mongodbDb);
      // The restored directory keeps the history, for the service's starts and later restores.
      if (config.erasureLog === '' || path.resolve(config.erasureLog) !== log.file)
        new ErasureLog(path.join(dataDir, ERASURE_LOG_FILE)).writeAll(erasures);
    });
    const candidates =
      manifest.collections.find((c) => c.db === config.mongodbDb && c.name === COLLECTIONS.candidates)?.documents ?? 0;
    output.out(
      `Restored ${command.backup} (snapshot of ${manifest.snapshotTime}, ${candidates} candidates) into ${target}; ` +
        `${erasedAgain} candidate(s) erased since the backup were erased again (${erasures.length} erasure(s) in the log).`,
    );
  },
};

function parseRestoreArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, 'erasure-log': { type: 'string' } },
  });
}

/** Runs the command and resolves with the process exit code. */
export function runRestoreCli(
  argv: readonly string[],
  output: CliOutput,
  env: Record<string, string | undefined> = process.env,
  clock?: Clock,
): Promise<number> {
  return runCli(RESTORE_TOOL, argv, output, { env, clock });
}

/** Opens the restored store on `dataDir` in this thread and carries out the log's erasures it needs. */
async function eraseAgain(dataDir: string, log: ErasureLog, dbName: string): Promise<number> {
  const store = await startInProcessStore(dataDir);
  try {
    const database = await connectDatabase(store.uri, dbName);
    try {
      const { reapplied } = await reapplyLoggedErasures(log, new ErasureRepository(database.db));
      return reapplied.length;
    } finally {
      await database.close();
    }
  } finally {
    await store.close();
  }
}

if (require.main === module) runAsCommand('restore', runRestoreCli);
