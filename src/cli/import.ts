import { createReadStream, statSync, type ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { Presets, SingleBar } from 'cli-progress';
import { MAX_IMPORT_LINE_BYTES, readImportLines } from '../candidates/import-lines';
import { ImportRepository } from '../candidates/import-repository';
import { ImportService, type ImportSummary } from '../candidates/import-service';
import { runAsCommand, type CliOutput } from './cli-support';
import { HELP, runCli, UsageError, type CliTool } from './cli-frame';
import type { Clock } from '../common/clock';
import { ensureIndexes } from '../app/indexes';

/**
 * `npm run import -- <file.ndjson | ->`: loads candidates from the system of record (one
 * candidate per line, the contract's Candidate JSON) through ImportService.
 */

export const USAGE = `Usage: npm run import -- <file.ndjson>
       npm run import -- -            (or no argument, with a pipe or file on stdin)

Imports candidates, one per line in the Candidate JSON of GET /v1/candidates/{publicId}
(no identity data), upserted by publicId and validated as the API validates them. A line
that fails is refused whole and reported on stderr with its line number and reason (never
its content); the others are imported. Blank lines are skipped. Importing the same file
again changes nothing.

The file is UTF-8 (a byte order mark at its start is skipped); lines end in LF or CRLF. A
line that is not valid UTF-8, or longer than ${MAX_IMPORT_LINE_BYTES} bytes (8 MiB), is refused.

Prints a summary: inserted, updated, unchanged, refused.
Exit codes: 0 every line imported, 1 some lines refused (the others imported),
2 bad arguments (the file cannot be opened, too), 3 the import stopped on an error (lines
before it stay imported).

Store: MONGODB_URI when set; otherwise the embedded store on DATA_DIR (that of the running
service when it runs).`;

export const EXIT = { imported: 0, refused: 1, usage: 2, failed: 3 } as const;

/** Where the lines come from when no file is named, and whether stderr is a terminal (for the bar). */
export interface ImportIo {
  stdin: Readable & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

const PROCESS_IO: ImportIo = { stdin: process.stdin, stderr: process.stderr };

/** The import tool in the CLI frame: every rule lives in ImportService. */
function importTool(io: ImportIo): CliTool<{ file: string | undefined }, { input: Readable; started: bigint }> {
  return {
    name: 'import',
    usage: USAGE,
    exitCodes: { failed: EXIT.failed },
    parse: (argv) => {
      if (argv.length === 1 && ['help', '--help', '-h'].includes(argv[0])) return HELP;
      if (argv.length > 1 || (argv.length === 0 && io.stdin.isTTY === true))
        throw new UsageError('one file (or - for stdin) is required');
      return { file: argv.length === 0 || argv[0] === '-' ? undefined : argv[0] };
    },
    // The file is opened before the store: a missing or unreadable one needs no store, and is a bad argument.
    prepare: async ({ file }) => {
      const started = process.hrtime.bigint();
      if (file === undefined) return { started, input: io.stdin };
      try {
        return { started, input: await openFile(file) };
      } catch (error) {
        throw new UsageError(`cannot read ${file}: ${whyUnreadable(error)}`);
      }
    },
    release: ({ input }) => {
      if (input !== io.stdin) input.destroy();
    },
    run: async ({ file }, { db, output, clock, services, prepared: { input, started } }) => {
      let bar: Progress | undefined;
      try {
        await ensureIndexes(db);
        const reference = services().repositories.referenceCache;
        await reference.load();
        if (reference.keys('countries').length === 0) {
          output.err(
            'import: the store holds no reference data (countries, occupations, ...): start the service on it once, ' +
              'or run npm run seed -- --candidates 0',
          );
          return EXIT.failed;
        }
        bar = progressBar(io, file);
        const lines = readImportLines(input as AsyncIterable<Buffer | string>);
        const summary = await new ImportService(new ImportRepository(db), reference, clock).importLines(lines, {
          refused: (lineNumber, reason) => {
            const write = () => output.err(`line ${lineNumber}: refused: ${reason}`);
            if (bar) bar.print(write);
            else write();
          },
          progress: () => bar?.update((input as ReadStream).bytesRead),
        });
        bar?.stop();
        bar = undefined;
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        output.out(`${summaryLine(summary)} in ${seconds.toFixed(1)} s.`);
        return summary.refused > 0 ? EXIT.refused : EXIT.imported;
      } finally {
        bar?.stop();
      }
    },
  };
}

/** Runs the command and resolves with the process exit code. */
export async function runImportCli(
  argv: readonly string[],
  output: CliOutput,
  env: Record<string, string | undefined> = process.env,
  clock?: Clock,
  io: ImportIo = PROCESS_IO,
): Promise<number> {
  return runCli(importTool(io), argv, output, { env, clock });
}

/** The summary, as printed: the four counts, then the blank lines skipped if any. */
export function summaryLine(summary: ImportSummary): string {
  const blank = summary.blank > 0 ? ` (${summary.blank} blank line${summary.blank === 1 ? '' : 's'} skipped)` : '';
  return (
    `Imported: ${summary.inserted} inserted, ${summary.updated} updated, ${summary.unchanged} unchanged, ` +
    `${summary.refused} refused${blank}`
  );
}

/** Why a file could not be opened, in words (the errno code when it is another). */
function whyUnreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EISDIR: 'it is a directory',
  };
  return (code !== undefined ? words[code] : undefined) ?? code ?? String(error);
}

/** The file, opened (a missing or unreadable file fails here, before the store is opened). */
function openFile(path: string): Promise<ReadStream> {
  return new Promise((resolve, reject) => {
    const stream = createReadStream(path);
    stream.once('open', () => resolve(stream));
    stream.once('error', reject);
  });
}

/** The progress shown on a terminal: bytes of the file read. */
interface Progress {
  update(bytesRead: number): void;
  /** Writes a line (a refusal) above the bar, which goes on below it. */
  print(write: () => void): void;
  stop(): void;
}

/** A bar on a terminal (stderr), for a file; none otherwise (logs, pipes, stdin). */
function progressBar(io: ImportIo, path: string | undefined): Progress | undefined {
  if (path === undefined || io.stderr.isTTY !== true) return undefined;
  const bar = new SingleBar(
    {
      format: 'import [{bar}] {percentage}% | {duration}s',
      hideCursor: true,
      stream: io.stderr,
    },
    Presets.shades_classic,
  );
  const total = Math.max(1, statSync(path).size);
  let value = 0;
  bar.start(total, value);
  return {
    update: (bytesRead) => bar.update((value = Math.min(total, bytesRead))),
    print: (write) => {
      bar.stop();
      write();
      bar.start(total, value);
    },
    stop: () => bar.stop(),
  };
}

if (require.main === module) runAsCommand('import', runImportCli);
