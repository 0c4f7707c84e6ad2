import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DataDirectoryInUseError } from 'embedded-mongodb';

/** The embedded store running in a worker thread of this process (openStore's `worker`). */
export interface StoreThread {
  /** mongodb://<%2F-encoded socket path>/?directConnection=true: a Unix domain socket of this user only */
  readonly uri: string;
  readonly socketPath: string;
  /** Stops the store (every acknowledged write is committed) and ends its thread. */
  close(): Promise<void>;
}

export interface StoreThreadData {
  dataDir: string;
}

export type StoreThreadRequest = { type: 'close' };

export type StoreThreadReply =
  | { type: 'ready'; uri: string; socketPath: string }
  | { type: 'closed' }
  | { type: 'failed'; message: string; inUse?: { dataDir: string; pid: number } };

/**
 * What the worker runs: the compiled module next to this one, or, when this module runs from
 * source (tests, tsx), the TypeScript module behind tsx's require hook, which a worker does not
 * inherit from its parent.
 */
function workerScript(): { script: string; evaluate: boolean } {
  const file = path.join(__dirname, `store-thread-worker${path.extname(__filename)}`);
  if (!__filename.endsWith('.ts')) return { script: file, evaluate: false };
  return {
    script: `require(${JSON.stringify(require.resolve('tsx/cjs'))});\nrequire(${JSON.stringify(file)});`,
    evaluate: true,
  };
}

/** Resolves with the worker's next reply; rejects when the worker fails or ends without one. */
function nextReply(worker: Worker): Promise<StoreThreadReply> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: StoreThreadReply): void => {
      cleanup();
      resolve(message);
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`the embedded store thread ended unexpectedly (exit code ${code})`));
    };
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

/**
 * Starts the embedded store on `dataDir` in a worker thread of this process. Seeding then keeps
 * two cores busy: the store decodes, indexes and commits one batch while this thread generates
 * and encodes the next, and each thread's garbage collector works on its own, smaller heap.
 * Rejects with the store's own error when it cannot start (DataDirectoryInUseError for a data
 * directory in use).
 */
export async function startStoreThread(dataDir: string): Promise<StoreThread> {
  const { script, evaluate } = workerScript();
  const worker = new Worker(script, { eval: evaluate, workerData: { dataDir } satisfies StoreThreadData });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const started = await nextReply(worker);
  if (started.type !== 'ready') {
    await exited;
    if (started.type === 'failed' && started.inUse)
      throw new DataDirectoryInUseError(started.inUse.dataDir, started.inUse.pid);
    throw new Error(started.type === 'failed' ? started.message : 'the embedded store thread did not start');
  }

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const closed = nextReply(worker);
    worker.postMessage({ type: 'close' } satisfies StoreThreadRequest);
    const outcome = await closed;
    await exited;
    if (outcome.type === 'failed') throw new Error(`closing the embedded store failed: ${outcome.message}`);
  };
  return {
    uri: started.uri,
    socketPath: started.socketPath,
    close: () => (closing ??= close()),
  };
}
