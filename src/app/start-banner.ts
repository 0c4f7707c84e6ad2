import fs from 'node:fs';
import net from 'node:net';
import type { Logger } from '../logger';
import type { DemoBootstrap } from './demo-bootstrap';
import { demoKeyFilePath, writeDemoKeyFile } from './demo-key-file';

export { DEMO_KEY_FILE, writeDemoKeyFile } from './demo-key-file';

/** Where the banner goes: process.stdout in `npm start`. */
export interface BannerOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** What tells the person who ran `npm start` how to get the demo key, `file` when it is there. */
function howToGetTheKey(file: string | undefined): string {
  return file === undefined
    ? 'printed at the start that created it, or DEMO_API_KEY; `npm run keys -- create` makes another.'
    : `in ${file} (\`cat ${file}\`), kept from the start that created it.`;
}

/**
 * For the person who ran `npm start`: where to go, and the demo key this start created. The key
 * is printed only to a terminal, and its file (written before the service listened) is then
 * removed. When stdout is not one (a container, a pipe, a log collector) it is the stream of the
 * JSON logs, so the key stays in DATA_DIR/demo-api-key.txt (mode 0600) and only that file's path
 * is logged. A later start names that file while it exists (the start that created the key
 * failed before showing it, or stdout was not a terminal).
 */
export function showStartBanner(
  url: string,
  demo: DemoBootstrap | undefined,
  options: { output: BannerOutput; dataDir: string; logger: Logger },
): void {
  const lines = [
    '',
    `Candidate Directory is running at ${url}`,
    `  GraphQL playground: ${url}/graphql`,
    `  REST API:           ${url}/v1/candidates (OpenAPI: ${url}/openapi.json)`,
  ];
  if (demo?.createdKey && options.output.isTTY) {
    lines.push(`  Demo API key (shown only now): ${demo.createdKey}`);
    fs.rmSync(demo.keyFile ?? demoKeyFilePath(options.dataDir), { force: true });
  } else if (demo?.createdKey) {
    const file = demo.keyFile ?? writeDemoKeyFile(options.dataDir, demo.createdKey);
    options.logger.info(
      { file },
      'demo API key written to a file readable only by this user (stdout is not a terminal)',
    );
    lines.push(`  Demo API key: written to ${file} (stdout is not a terminal)`);
  } else if (demo) {
    lines.push(`  Demo API key: ${howToGetTheKey(keptKeyFile(options.dataDir))}`);
  }
  options.output.write(`${lines.join('\n')}\n\n`);
}

/** DATA_DIR/demo-api-key.txt when it exists. */
function keptKeyFile(dataDir: string): string | undefined {
  const file = demoKeyFilePath(dataDir);
  return fs.existsSync(file) ? file : undefined;
}

/** How many ports after the one in use are probed for the hint. */
const PORTS_PROBED = 20;

/**
 * What `npm start` prints when the service could not listen (after the store was prepared): why,
 * what to do about a port in use (with a port near it that was free a moment ago, found by
 * listening on it), and where the demo key is when this start created one.
 */
export async function startFailureMessage(
  error: unknown,
  listen: { host: string; port: number },
  demo: DemoBootstrap | undefined,
): Promise<string> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  let reason: string;
  if (code === 'EADDRINUSE') {
    const free = await freePortNear(listen.host, listen.port);
    const choose =
      free === undefined
        ? `choose a free port: PORT=<port> npm start (none of the ${PORTS_PROBED} ports after ${listen.port} is free)`
        : `choose another port: PORT=${free} npm start (free now)`;
    reason = `Could not listen on ${listen.host}:${listen.port}: the port is in use. Stop what uses it, or ${choose}`;
  } else {
    reason = `Could not listen on ${listen.host}:${listen.port}: ${error instanceof Error ? error.message : String(error)}`;
  }
  const lines = [reason];
  if (demo?.keyFile)
    lines.push(
      `The demo API key this start created is kept in ${demo.keyFile} (\`cat ${demo.keyFile}\`); the next start names it too.`,
    );
  return lines.join('\n');
}

/** The first port after `port` (then before it, near 65535) that `host` lets this process listen on. */
async function freePortNear(host: string, port: number): Promise<number | undefined> {
  const candidates = Array.from({ length: PORTS_PROBED }, (_, i) => port + 1 + i).map((p) =>
    p > 65535 ? port - (p - 65535) : p,
  );
  for (const candidate of candidates) {
    if (candidate >= 1 && (await canListen(host, candidate))) return candidate;
  }
  return undefined;
}

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
