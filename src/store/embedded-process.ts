import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface EmbeddedStoreProcess {
  readonly uri: string;
  readonly port: number;
  readonly pid: number;
  /** SIGTERM, then wait for the process to exit (it flushes and closes first). */
  stop(): Promise<void>;
  /** Sends a signal (default SIGKILL) and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** How long a store may take to load its data before spawning is given up. */
const READY_TIMEOUT_MS = 120_000;
/** How long a SIGTERM'ed store gets to close before it is killed. */
const STOP_TIMEOUT_MS = 30_000;

interface ReadyMessage {
  type: 'ready';
  uri: string;
  port: number;
}

function isReadyMessage(message: unknown): message is ReadyMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'ready';
}

/**
 * The CLI to run: the TypeScript source under tsx when this module itself runs from source
 * (tests, tsx), the compiled JavaScript next to it otherwise (dist/src/store/cli.js).
 */
function cliCommand(): { script: string; execArgv: string[] } {
  if (__filename.endsWith('.ts')) {
    return { script: path.join(__dirname, 'cli.ts'), execArgv: ['--import', pathToFileURL(require.resolve('tsx')).href] };
  }
  return { script: path.join(__dirname, 'cli.js'), execArgv: [] };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function waitUntilReady(child: ChildProcess): Promise<ReadyMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`embedded store did not become ready within ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    const onMessage = (message: unknown): void => {
      if (!isReadyMessage(message)) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup();
      reject(new Error(`embedded store exited before it was ready (code ${code}, signal ${signal}); see its log on stderr`));
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

/**
 * Runs the embedded store in a child process (the service's `npm start` uses this). The child
 * reports readiness over IPC and exits when this process disconnects, so it never outlives it.
 * Port 0 (the default) lets the child pick a free port; `uri` tells which.
 */
export async function spawnEmbeddedStore(options: { dbPath?: string; memory?: boolean; port?: number }): Promise<EmbeddedStoreProcess> {
  const { script, execArgv } = cliCommand();
  const args = ['--port', String(options.port ?? 0), ...(options.memory ? ['--memory'] : ['--dbpath', options.dbPath ?? '.data/'])];
  const child = fork(script, args, { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = await waitUntilReady(child);

  const signal = async (name: NodeJS.Signals): Promise<void> => {
    const done = exited(child);
    child.kill(name);
    await done;
  };
  return {
    uri: ready.uri,
    port: ready.port,
    pid: child.pid!,
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
