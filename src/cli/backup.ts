import fs from 'node:fs';
import os from 'node:os';
import { finishBackup, isArchiveName, prepareBackupTarget, type BackedUpCollection } from 'embedded-mongodb';
import { COLLECTIONS } from '../app/indexes';
import type { Clock } from '../common/clock';
import { BadUserInputError } from '../errors';
import { HELP, runCli, UsageError, type CliTool } from './cli-frame';
import { runAsCommand, type CliOutput } from './cli-support';

/**
 * `npm run backup -- <target>`: an online backup of the embedded store on DATA_DIR, through the
 * store's own createBackup command (one snapshot, compacted, taken while it serves), finished
 * here into a directory or a .tar.gz with its manifest (embedded-mongodb's backup-archive.ts).
 */

export const USAGE = `Usage: npm run backup -- <target>

Writes a backup of the embedded store on DATA_DIR to <target>: a new directory, or one file
when <target> ends in .tar.gz or .tgz. It runs beside the service, which goes on serving
(through the store's socket), or on its own. The backup is one snapshot: every write
acknowledged before it began is in it. It is written beside <target> under a temporary name,
fsync'ed, then renamed: <target> never holds half a backup, and is never replaced.
It runs at the lowest CPU priority (nice 19), as does the store's thread that copies the
snapshot: the service keeps its speed, and on a busy machine the backup takes longer.

The backup holds manifest.json (the snapshot's time, every collection with its documents and
index entries, the SHA-256 of each file) and the store's files. Restore it with
npm run restore -- <target> [--data-dir <dir>].

Identity data is in every backup (sealed: see docs/operators.md, "What an erasure removes"):
keep backups as you keep the data directory.

With MONGODB_URI set it refuses: back MongoDB up with mongodump (docs/operators.md).`;

export const MONGODB_HINT =
  'MONGODB_URI is set: this backs up the embedded store only. Back MongoDB up with ' +
  'mongodump --uri "$MONGODB_URI" --db "$MONGODB_DB" --gzip --archive=<file> ' +
  '(docs/operators.md, "Backups and restores")';

interface Staged {
  /** Where the backup is written before it is renamed to its target. */
  readonly staging: string;
}

/** The backup tool in the CLI frame: the snapshot is the store's createBackup command. */
const BACKUP_TOOL: CliTool<{ target: string }, Staged> = {
  name: 'backup',
  usage: USAGE,
  badInput: 'alone',
  parse: (argv) => {
    if (argv.length === 1 && ['help', '--help', '-h'].includes(argv[0])) return HELP;
    if (argv.length !== 1 || argv[0].startsWith('-')) throw new UsageError('exactly one target is required');
    return { target: argv[0] };
  },
  prepare: async ({ target }, config) => {
    if (config.mongodbUri !== '') throw new BadUserInputError(MONGODB_HINT);
    return { staging: prepareBackupTarget(target) };
  },
  // After a backup the staging name is gone (renamed to the target); after a failure, what was written goes.
  release: ({ staging }) => {
    fs.rmSync(staging, { recursive: true, force: true });
    fs.rmSync(`${staging}.tar.gz`, { force: true });
  },
  run: async ({ target }, { config, db, output, clock, prepared }) => {
    const started = clock.now().getTime();
    const reply = await db.admin().command({ createBackup: 1, backupDir: prepared.staging });
    const manifest = await finishBackup(prepared.staging, target, {
      snapshotTime: reply.snapshotTime as Date,
      collections: reply.collections as BackedUpCollection[],
    });
    const candidates =
      manifest.collections.find((c) => c.db === config.mongodbDb && c.name === COLLECTIONS.candidates)?.documents ?? 0;
    const bytes = isArchiveName(target)
      ? fs.statSync(target).size
      : manifest.files.reduce((sum, file) => sum + file.bytes, 0);
    const seconds = (clock.now().getTime() - started) / 1000;
    output.out(
      `Backed up ${candidates} candidates (${manifest.collections.length} collections) as of ${manifest.snapshotTime} ` +
        `to ${target}: ${(bytes / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(1)} s.`,
    );
  },
};

/** Runs the command and resolves with the process exit code. */
export function runBackupCli(
  argv: readonly string[],
  output: CliOutput,
  env: Record<string, string | undefined> = process.env,
  clock?: Clock,
): Promise<number> {
  return runCli(BACKUP_TOOL, argv, output, { env, clock });
}

if (require.main === module) {
  // Before the first thread of the pool is started (they take the nice value of this one): the
  // checksums and the gzip of the backup take only the CPU the service and its store leave.
  os.setPriority(os.constants.priority.PRIORITY_LOW);
  runAsCommand('backup', runBackupCli);
}
