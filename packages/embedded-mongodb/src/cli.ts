import { startEmbeddedStore, type EmbeddedStore } from './index';
import { DataDirectoryInUseError } from './persistence/data-directory';
import { MAX_SOCKET_PATH_BYTES } from './store-socket';
import type { FailedMessage } from './embedded-process';

const USAGE = `usage: store [--port <n> | --socket <path>] [--dbpath <dir> | --memory] [--standalone]

Runs the embedded MongoDB-wire-compatible store on 127.0.0.1.
  --port <n>       TCP port (default 27017; 0 picks a free port). The store has no
                   authentication: every local user can then read and write every collection.
  --socket <path>  listen on a Unix domain socket instead (mode 0600: this user only); the
                   path must end in .sock and fit ${MAX_SOCKET_PATH_BYTES} bytes
  --dbpath <dir>   data directory (default .data/ in the current directory)
  --memory         keep no data (a temporary directory, removed at stop)
  --standalone     behave as a standalone mongod (no replica set, no transactions)
`;

interface CliOptions {
  port: number;
  socketPath?: string;
  dbPath?: string;
  memory: boolean;
  standalone: boolean;
}

class UsageError extends Error {}

function parseArguments(args: readonly string[]): CliOptions {
  const options: CliOptions = { port: 27017, memory: false, standalone: false };
  let portGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--memory') {
      options.memory = true;
    } else if (arg === '--standalone') {
      options.standalone = true;
    } else if (arg === '--port') {
      const port = Number(args[++i]);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port needs a number from 0 to 65535`);
      options.port = port;
      portGiven = true;
    } else if (arg === '--socket') {
      const socketPath = args[++i];
      if (!socketPath?.endsWith('.sock')) throw new UsageError('--socket needs a path ending in .sock');
      if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
        throw new UsageError(`--socket: the path is longer than ${MAX_SOCKET_PATH_BYTES} bytes`);
      options.socketPath = socketPath;
    } else if (arg === '--dbpath') {
      const dir = args[++i];
      if (!dir) throw new UsageError('--dbpath needs a directory');
      options.dbPath = dir;
    } else {
      throw new UsageError(`unknown argument ${arg}`);
    }
  }
  if (options.memory && options.dbPath) throw new UsageError('give either --dbpath or --memory, not both');
  if (portGiven && options.socketPath) throw new UsageError('give either --port or --socket, not both');
  if (!options.memory && !options.dbPath) options.dbPath = '.data/';
  return options;
}

function log(level: string, msg: string, fields?: object): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
}

async function main(): Promise<void> {
  let options: CliOptions;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}`);
    process.exit(2);
  }

  const store: EmbeddedStore = await startEmbeddedStore({
    ...(options.socketPath ? { socketPath: options.socketPath } : { port: options.port }),
    ...(options.memory ? { memory: true } : { dbPath: options.dbPath }),
    standalone: options.standalone,
    log,
  });
  if (!options.socketPath) {
    log(
      'warn',
      'listening on a TCP port without authentication: every local user can read and write every collection, identity data included; use --socket <path> to let only this user in',
      {
        port: store.port,
      },
    );
  }

  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    log('info', 'stopping', { reason });
    store.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log('error', 'close failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  // Under the service (spawnEmbeddedStore) a Ctrl-C on its terminal reaches this process too:
  // the service stops it once requests in flight are answered, so SIGINT is left to the service.
  process.on('SIGINT', () => (process.send ? undefined : stop('SIGINT')));
  process.on('SIGTERM', () => stop('SIGTERM'));

  if (process.send) {
    // Started by spawnEmbeddedStore: report readiness, and never outlive the parent.
    process.on('disconnect', () => stop('parent disconnected'));
    process.send({ type: 'ready', uri: store.uri });
  }
  process.stdout.write(`${store.uri}\n`);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  log('error', 'store failed to start', { error: message });
  if (!process.send) process.exit(1);
  // Started by spawnEmbeddedStore: it rejects with the same error class (a data directory in use, say).
  const failed: FailedMessage = {
    type: 'failed',
    message,
    ...(error instanceof DataDirectoryInUseError ? { inUse: { dataDir: error.dataDir, pid: error.pid } } : {}),
  };
  process.send(failed, () => process.exit(1));
});
