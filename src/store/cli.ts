import { startEmbeddedStore, type EmbeddedStore } from './embedded';

const USAGE = `usage: store [--port <n>] [--dbpath <dir> | --memory] [--standalone]

Runs the embedded MongoDB-wire-compatible store on 127.0.0.1.
  --port <n>       TCP port (default 27017; 0 picks a free port)
  --dbpath <dir>   data directory (default .data/ in the current directory)
  --memory         keep data in memory only
  --standalone     behave as a standalone mongod (no replica set, no transactions)
`;

interface CliOptions {
  port: number;
  dbPath?: string;
  memory: boolean;
  standalone: boolean;
}

class UsageError extends Error {}

function parseArguments(args: readonly string[]): CliOptions {
  const options: CliOptions = { port: 27017, memory: false, standalone: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--memory') {
      options.memory = true;
    } else if (arg === '--standalone') {
      options.standalone = true;
    } else if (arg === '--port') {
      const port = Number(args[++i]);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port needs a number from 0 to 65535`);
      options.port = port;
    } else if (arg === '--dbpath') {
      const dir = args[++i];
      if (!dir) throw new UsageError('--dbpath needs a directory');
      options.dbPath = dir;
    } else {
      throw new UsageError(`unknown argument ${arg}`);
    }
  }
  if (options.memory && options.dbPath) throw new UsageError('give either --dbpath or --memory, not both');
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
    port: options.port,
    ...(options.memory ? { memory: true } : { dbPath: options.dbPath }),
    standalone: options.standalone,
    log,
  });

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
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  if (process.send) {
    // Started by spawnEmbeddedStore: report readiness, and never outlive the parent.
    process.on('disconnect', () => stop('parent disconnected'));
    process.send({ type: 'ready', uri: store.uri, port: store.port });
  }
  process.stdout.write(`${store.uri}\n`);
}

main().catch((error: unknown) => {
  log('error', 'store failed to start', { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
