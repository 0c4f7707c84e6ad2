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
