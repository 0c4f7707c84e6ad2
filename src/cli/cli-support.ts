/** What the command-line tools write to: stdout for results (a key, a table), stderr for the rest. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/**
 * Runs a tool's main function on this process's arguments when its file is the entry point:
 * its result becomes the exit code, and an error that escapes it is one line on stderr
 * (prefixed by the tool's name) and exit code 1.
 */
export function runAsCommand(
  name: string,
  main: (argv: readonly string[], output: CliOutput) => Promise<number>,
): void {
  main(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

/** Rows under a header as a text table, each column as wide as its widest cell, two spaces apart. */
export function alignedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * What a tool says when the embedded store on DATA_DIR is held by a process it cannot connect to.
 * A running service's store publishes its address and the tools connect to it (openStore); this
 * is the rare rest: a store still loading its data, or one that listens nowhere this user can reach.
 */
export function heldStoreMessage(tool: string, held: { dataDir: string; pid: number }): string {
  return (
    `${tool}: the embedded store on DATA_DIR=${held.dataDir} is held by process ${held.pid}, which does not accept connections yet ` +
    '(it may still be loading its data). Run this command again in a moment, or set MONGODB_URI (and MONGODB_DB) to the MongoDB the service uses.'
  );
}
