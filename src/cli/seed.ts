import { parseArgs } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import type { Db } from 'mongodb';
import { CandidateRepository } from '../candidates/candidate-repository';
import type { Config } from '../config';
import { COLLECTIONS, dropSupersededIndexes, ensureIndexes, INDEXES } from '../app/indexes';
import { HELP, runCli, UsageError, type CliTool } from './cli-frame';
import { DemoGenerator, isDemoSeed, MAX_DEMO_SEED } from 'demo-data';
import { seedDemoData, type SeedCounts, type SeedProgress } from '../app/seed-demo-data';
import { shippedDemoReference } from '../app/demo-reference';

/**
 * `npm run seed -- --candidates <n> [--seed <s>] [--append | --drop]`
 *
 * Writes demo data through the driver: to MONGODB_URI when set, otherwise to the embedded
 * store on DATA_DIR, started in a worker thread of this process (so the service must not be
 * running on it).
 *
 * A database that already holds candidates is left alone unless told otherwise:
 * - `--drop` first drops the demo collections (candidates, candidateIdentities,
 *   jobOpportunities, savedLists, offers; never apiKeys), then seeds;
 * - `--append` adds the data set of `--seed` to what is there; refused when that seed's
 *   candidates are already present (same seed, same publicIds), so pick another seed.
 *
 * Exit codes: 0 seeded, 1 failed or refused, 2 bad arguments.
 */

export const USAGE = `Usage: npm run seed -- [--candidates <n>] [--seed <s>] [--append | --drop]

Writes deterministic demo data (reference data, job opportunities, candidates, saved lists)
to MONGODB_URI when set, otherwise to the embedded store on DATA_DIR (through the running
service when it runs there).

  --candidates <n>  number of candidates, 0 to 1000000 (default: DEMO_CANDIDATES)
  --seed <s>        integer seed, 0 to 4294967295; the same seed gives the same data (default: 1)
  --append          add to a database that already holds candidates (use a new seed)
  --drop            drop candidates, identities, job opportunities, saved lists and offers first
  --help            show this help`;

/** The collections `--drop` empties: everything demo data or registrations put there, never API keys. */
export const DROPPED_BY_RESEED = [
  COLLECTIONS.candidates,
  COLLECTIONS.candidateIdentities,
  COLLECTIONS.candidateIdentityKeys,
  COLLECTIONS.jobOpportunities,
  COLLECTIONS.savedLists,
  COLLECTIONS.offers,
] as const;

export interface SeedCliOptions {
  candidates: number;
  seed: number;
  mode: 'refuse' | 'append' | 'drop';
}

export { UsageError };

/** Parses the arguments (without `node` and the script); throws UsageError when they are wrong. */
export function parseSeedArgs(
  argv: readonly string[],
  config: Pick<Config, 'demoCandidates'>,
): SeedCliOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        candidates: { type: 'string' },
        seed: { type: 'string' },
        append: { type: 'boolean' },
        drop: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help) return 'help';
  const candidates =
    values.candidates === undefined ? config.demoCandidates : parseInteger('--candidates', values.candidates);
  if (candidates < 0 || candidates > 1_000_000) throw new UsageError('--candidates must be between 0 and 1000000');
  const seed = values.seed === undefined ? 1 : parseInteger('--seed', values.seed);
  if (!isDemoSeed(seed)) throw new UsageError(`--seed must be between 0 and ${MAX_DEMO_SEED}`);
  if (values.append && values.drop) throw new UsageError('--append and --drop exclude each other');
  return { candidates, seed, mode: values.drop ? 'drop' : values.append ? 'append' : 'refuse' };
}

function parseInteger(name: string, text: string): number {
  if (!/^-?\d{1,15}$/.test(text.trim())) throw new UsageError(`${name} must be an integer, got "${text}"`);
  return Number(text.trim());
}

export interface SeedCliIo {
  stdout: NodeJS.WriteStream | { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
}

/** Refusal of the CLI: printed as is, exit code 1. */
export class SeedRefusedError extends Error {}

/**
 * Seeds `db` as the CLI options say. Separate from the process plumbing so tests can run it
 * on any database.
 */
export async function seedWithOptions(
  db: Db,
  options: SeedCliOptions,
  onProgress?: (progress: SeedProgress) => void,
): Promise<SeedCounts> {
  const candidates = new CandidateRepository(db);
  const existing = await candidates.countAll();
  if (options.mode === 'drop') {
    for (const name of DROPPED_BY_RESEED) await db.collection(name).drop().catch(ignoreMissingCollection);
  } else if (existing > 0 && options.mode === 'refuse') {
    throw new SeedRefusedError(
      `The database already holds ${existing} candidates. Use --drop to replace them with demo data, ` +
        'or --append to add demo data (with a --seed not used on this database before).',
    );
  } else if (existing > 0 && options.candidates > 0) {
    const probe = new DemoGenerator({
      candidates: 1,
      seed: options.seed,
      reference: shippedDemoReference(),
    }).candidatePublicIds();
    if ((await candidates.findExistingPublicIds(probe)).size > 0) {
      throw new SeedRefusedError(`Seed ${options.seed} was already used on this database: append with another --seed.`);
    }
  }
  // Loaded in bulk: while the documents go in, only the unique indexes exist (they are what makes
  // a repeated seed a conflict); every other index is built afterwards over all the data, which
  // costs far less than updating it document by document. A seed that stops half way leaves them
  // to the service, which ensures every index when it starts.
  await ensureIndexes(
    db,
    INDEXES.filter((index) => index.options.unique === true),
  );
  const counts = await seedDemoData(db, { candidates: options.candidates, seed: options.seed, onProgress });
  onProgress?.({ phase: 'indexes', done: 0, total: INDEXES.length });
  await dropSupersededIndexes(db);
  await ensureIndexes(db);
  onProgress?.({ phase: 'indexes', done: INDEXES.length, total: INDEXES.length });
  return counts;
}

function ignoreMissingCollection(error: unknown): void {
  // Dropping a collection that does not exist: NamespaceNotFound (26) on older servers.
  if ((error as { code?: unknown }).code !== 26) throw error;
}

interface ProgressOutput {
  onProgress: (progress: SeedProgress) => void;
  stop(): void;
}

/** Progress output: a bar on a terminal, a plain line per tenth otherwise (logs, CI). */
function progressReporter(io: SeedCliIo, header: string): ProgressOutput {
  const output = io.stdout.isTTY ? progressBar(io) : progressLines(io);
  let started = false;
  return {
    onProgress: (progress) => {
      // The header waits for the first write, so that a refusal is not preceded by "Seeding".
      if (!started) io.stdout.write(`${header}\n`);
      started = true;
      output.onProgress(progress);
    },
    stop: () => output.stop(),
  };
}

function progressBar(io: SeedCliIo): ProgressOutput {
  const bar = new SingleBar(
    {
      format: 'candidates [{bar}] {percentage}% | {value}/{total} | {duration}s',
      hideCursor: true,
      stream: io.stdout as NodeJS.WriteStream,
    },
    Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress: (progress) => {
      if (progress.phase !== 'candidates') return;
      if (!started) bar.start(progress.total, progress.done);
      else bar.update(progress.done);
      started = true;
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

function progressLines(io: SeedCliIo): ProgressOutput {
  let lastTenth = -1;
  return {
    onProgress: (progress) => {
      if (progress.phase !== 'candidates') {
        if (progress.done === 0) io.stdout.write(`${progress.phase}...\n`);
        return;
      }
      const tenth = progress.total === 0 ? 10 : Math.floor((progress.done / progress.total) * 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        io.stdout.write(`candidates ${progress.done}/${progress.total}\n`);
      }
    },
    stop: () => undefined,
  };
}

/** The seed tool in the CLI frame; its store runs in a worker thread (or is the running service's). */
function seedTool(io: SeedCliIo, started: bigint): CliTool<SeedCliOptions> {
  return {
    name: 'seed',
    usage: USAGE,
    prefix: 'error: ',
    store: 'worker',
    parse: (argv, config) => {
      // The configuration is read only for the default of --candidates: --help and a usage error need none.
      const options = parseSeedArgs(argv, {
        get demoCandidates() {
          return config().demoCandidates;
        },
      });
      return options === 'help' ? HELP : options;
    },
    run: async (options, { store, config, db }) => {
      const target = !store.embedded
        ? 'MONGODB_URI'
        : store.embedded.shared
          ? `the running store on ${config.dataDir} (process ${store.embedded.pid()})`
          : `embedded store on ${config.dataDir}`;
      const progress = progressReporter(
        io,
        `Seeding ${options.candidates} candidates (seed ${options.seed}) into ${target}, database ${config.mongodbDb}`,
      );
      try {
        const counts = await seedWithOptions(db, options, progress.onProgress);
        progress.stop();
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        io.stdout.write(
          `Wrote ${counts.candidates} candidates, ${counts.jobOpportunities} job opportunities, ` +
            `${counts.savedLists} saved lists and ${counts.referenceDocuments} reference documents in ${seconds.toFixed(1)} s\n`,
        );
      } catch (error) {
        progress.stop();
        if (error instanceof SeedRefusedError) throw error;
        throw new Error(`seeding failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    },
  };
}

/** The CLI: returns the exit code. Without `config`, it is read from the environment. */
export function runSeedCli(argv: readonly string[], io: SeedCliIo = process, config?: Config): Promise<number> {
  const output = {
    out: (line: string) => io.stdout.write(`${line}\n`),
    err: (line: string) => io.stderr.write(`${line}\n`),
  };
  return runCli(seedTool(io, process.hrtime.bigint()), argv, output, { config });
}

if (require.main === module) {
  runSeedCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
