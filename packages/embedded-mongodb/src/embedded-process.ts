import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataDirectoryInUseError } from './persistence/data-directory';
import { storeSocket, type StoreSocket } from './store-socket';

export interface EmbeddedStoreProcess {
  /** mongodb://<%2F-encoded socket path>/?directConnection=true */
  readonly uri: string;
  /** The Unix domain socket the store listens on (mode 0600); it opens no TCP port. */
  readonly socketPath: string;
  readonly pid: number;
  /** Resolves when the process has exited, however it ended. */
  readonly exited: Promise<StoreExit>;
  /** SIGTERM, then wait for the process to exit (it flushes and closes first). */
  stop(): Promise<void>;
  /** Sends a signal (default SIGKILL) and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** How long a store may take to load its data before spawning is given up. */
const READY_TIMEOUT_MS = 120_000;
/** How long a SIGTERM'ed store gets to close before it is killed. */
const STOP_TIMEOUT_MS = 30_000;

/** How a store process ended: its exit code, or the signal that ended it. */
export interface StoreExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface ReadyMessage {
  type: 'ready';
  uri: string;
}

/** What the CLI reports over IPC when it cannot start, just before it exits. */
export interface FailedMessage {
  type: 'failed';
  message: string;
  /** Set when the data directory is held by another live process. */
  inUse?: { dataDir: string; pid: number };
}

/** The store reported why it would not start (bad data directory, permissions): starting it again would not help. */
class StoreStartRefusedError extends Error {}

function isReadyMessage(message: unknown): message is ReadyMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'ready';
}

function isFailedMessage(message: unknown): message is FailedMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'failed';
}

/**
 * The CLI to run: the TypeScript source under tsx when this module itself runs from source
 * (tests, tsx), the compiled JavaScript next to it otherwise (dist/cli.js).
 */
function cliCommand(): { script: string; execArgv: string[] } {
  if (__filename.endsWith('.ts')) {
    return {
      script: path.join(__dirname, 'cli.ts'),
      execArgv: ['--import', pathToFileURL(require.resolve('tsx')).href],
    };
  }
  return { script: path.join(__dirname, 'cli.js'), execArgv: [] };
}

function exited(child: ChildProcess): Promise<StoreExit> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

function waitUntilReady(child: ChildProcess): Promise<ReadyMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`embedded store did not become ready within ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    let failed: FailedMessage | undefined;
    const onMessage = (message: unknown): void => {
      if (isFailedMessage(message)) failed = message;
      if (!isReadyMessage(message)) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      const settle = (): void => {
        cleanup();
        if (failed?.inUse) reject(new DataDirectoryInUseError(failed.inUse.dataDir, failed.inUse.pid));
        else
          reject(
            failed !== undefined
              ? new StoreStartRefusedError(`embedded store failed to start: ${failed.message}`)
              : new Error(
                  `embedded store exited before it was ready (code ${code}, signal ${signal}); see its log on stderr`,
                ),
          );
      };
      // A message sent just before exiting may still be in the channel: it is read before the channel closes.
      if (child.connected) child.once('disconnect', settle);
      else settle();
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Where child stores started from now on write their log: undefined is this process's stderr. */
let childLogFile: string | undefined;

/**
 * Sends the log of the child stores started from now on (their stderr, JSON lines) to `file`
 * (appended), or back to this process's stderr with undefined. The repository's jest environment
 * gives each test file one and prints a test's lines only when it failed.
 */
export function routeChildStoreLogs(file: string | undefined): void {
  childLogFile = file;
}

function childLog(): 'inherit' | number {
  return childLogFile === undefined ? 'inherit' : fs.openSync(childLogFile, 'a');
}

/**
 * Runs the embedded store in a child process (the service's `npm start` uses this). The child
 * reports readiness over IPC and exits when this process disconnects, so it never outlives it.
 * It listens only on a Unix domain socket (mode 0600): `socket`, else the one `storeSocket`
 * chooses for the data directory (released when the process is stopped or killed).
 */
export async function spawnEmbeddedStore(options: {
  dbPath?: string;
  memory?: boolean;
  socket?: StoreSocket;
}): Promise<EmbeddedStoreProcess> {
  const ownSocket =
    options.socket === undefined ? storeSocket(options.memory ? undefined : (options.dbPath ?? '.data/')) : undefined;
  const socket = options.socket ?? ownSocket!;
  const { script, execArgv } = cliCommand();
  const args = ['--socket', socket.path, ...(options.memory ? ['--memory'] : ['--dbpath', options.dbPath ?? '.data/'])];
  const log = childLog();
  const child = fork(script, args, { execArgv, stdio: ['ignore', 'ignore', log, 'ipc'] });
  if (typeof log === 'number') fs.closeSync(log);
  const exit = exited(child);
  if (ownSocket) void exit.then(() => ownSocket.release());
  let ready: ReadyMessage;
  try {
    ready = await waitUntilReady(child);
  } catch (error) {
    ownSocket?.release();
    throw error;
  }

  const signal = async (name: NodeJS.Signals): Promise<void> => {
    const done = exited(child);
    child.kill(name);
    await done;
  };
  return {
    uri: ready.uri,
    socketPath: socket.path,
    pid: child.pid!,
    exited: exit,
    stop: async () => {
      const done = exited(child);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await done;
      clearTimeout(timer);
      if (child.connected) child.disconnect();
    },
    kill: (name = 'SIGKILL') => signal(name),
  };
}

/** When a store that keeps dying is restarted, and when it is given up. */
export interface StoreRestartPolicy {
  backoffMs: number;
  maxRestarts: number;
  windowMs: number;
}

/** Longest wait before a restart, however often the store died. */
const MAX_BACKOFF_MS = 30_000;

export interface SupervisedStore {
  /** The same across restarts: the socket stays where it is, so the driver reconnects by itself. */
  readonly uri: string;
  readonly socketPath: string;
  /** The pid of the store child running now. */
  pid(): number;
  /** Resolves when the store died more than `maxRestarts` times within `windowMs`: it is not restarted again. */
  readonly gaveUp: Promise<Error>;
  stop(): Promise<void>;
}

/**
 * The embedded store of the service, restarted when it dies: after `backoffMs`, doubled for
 * each further death within `windowMs`; after more than `maxRestarts` deaths within `windowMs`
 * it is given up (`gaveUp` resolves), so that the service can exit and its own supervisor act.
 */
export async function superviseEmbeddedStore(
  dbPath: string,
  policy: StoreRestartPolicy,
  events: { restarting(details: StoreExit & { delayMs: number; error?: string }): void; restarted(pid: number): void },
): Promise<SupervisedStore> {
  const socket = storeSocket(dbPath);
  let deaths: number[] = [];
  /** Counts a death: the delay before the next start, or undefined when the store is to be given up. */
  const nextDelay = (): number | undefined => {
    const now = Date.now();
    deaths = deaths.filter((at) => now - at < policy.windowMs);
    if (deaths.length >= policy.maxRestarts) return undefined;
    deaths.push(now);
    return Math.min(policy.backoffMs * 2 ** (deaths.length - 1), MAX_BACKOFF_MS);
  };
  let current: EmbeddedStoreProcess;
  try {
    // A store that dies while it starts (killed before it reported ready) is started again under
    // the same policy as one that dies later; one that refused to start (a data directory held by
    // another process, or not ours) is not.
    for (;;) {
      try {
        current = await spawnEmbeddedStore({ dbPath, socket });
        break;
      } catch (error) {
        const refused = error instanceof DataDirectoryInUseError || error instanceof StoreStartRefusedError;
        const delayMs = refused ? undefined : nextDelay();
        if (delayMs === undefined) throw error;
        events.restarting({ code: null, signal: null, delayMs, error: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  } catch (error) {
    socket.release();
    throw error;
  }
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let starting: Promise<void> | undefined;
  let giveUp!: (error: Error) => void;
  const gaveUp = new Promise<Error>((resolve) => (giveUp = resolve));

  const died = (exit: StoreExit, error?: string): void => {
    if (stopping) return;
    const delayMs = nextDelay();
    if (delayMs === undefined) {
      giveUp(new Error(`the embedded store died ${deaths.length + 1} times within ${policy.windowMs} ms`));
      return;
    }
    events.restarting({ ...exit, delayMs, ...(error === undefined ? {} : { error }) });
    timer = setTimeout(() => {
      starting = restart();
    }, delayMs);
  };
  const watch = (store: EmbeddedStoreProcess): void => {
    void store.exited.then((exit) => {
      if (store === current) died(exit);
    });
  };
  const restart = async (): Promise<void> => {
    if (stopping) return;
    try {
      current = await spawnEmbeddedStore({ dbPath, socket });
    } catch (error) {
      died({ code: null, signal: null }, error instanceof Error ? error.message : String(error));
      return;
    }
    events.restarted(current.pid);
    watch(current);
  };
  watch(current);

  return {
    uri: current.uri,
    socketPath: socket.path,
    pid: () => current.pid,
    gaveUp,
    stop: async () => {
      stopping = true;
      clearTimeout(timer);
      await starting;
      await current.stop();
      socket.release();
    },
  };
}
