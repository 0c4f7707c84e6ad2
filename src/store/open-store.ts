import {
  DataDirectoryInUseError,
  runningStore,
  startEmbeddedStore,
  storeSocket,
  superviseEmbeddedStore,
  type StoreExit,
  type StoreLog,
  type SupervisedStore,
} from 'embedded-mongodb';
import type { MongoClientOptions } from 'mongodb';
import type { Config } from '../config';
import { connectDatabase, type Database } from './mongo';
import { startStoreThread } from './store-thread';

export { DataDirectoryInUseError };

/**
 * How the embedded store runs when MONGODB_URI is unset (a set MONGODB_URI ignores it):
 * - `child`: a supervised child process, restarted when it dies (the service);
 * - `worker`: a worker thread of this process (the seed CLI: the store decodes and stores
 *   one batch while this thread makes the next);
 * - `in-process`: in this thread, for the length of one command (the keys CLI).
 */
export type EmbeddedRun =
  | {
      run: 'child';
      events: {
        restarting(details: StoreExit & { delayMs: number; error?: string }): void;
        restarted(details: { pid: number; socketPath: string }): void;
      };
    }
  | { run: 'worker' }
  | { run: 'in-process'; log?: StoreLog };

export interface OpenStoreOptions {
  embedded: EmbeddedRun;
  /** The driver's options for the connection (timeouts); the driver's defaults of connectDatabase otherwise. */
  driver?: MongoClientOptions;
}

/** The embedded store behind an OpenedStore. */
export interface EmbeddedStoreHandle {
  /** The Unix domain socket it listens on (mode 0600). */
  readonly socketPath: string;
  /**
   * The process running it: a child's pid (it changes when the child is restarted), this
   * process, or (`shared`) the process that held the data directory when it was opened.
   */
  pid(): number;
  /** True when another process runs the store (a CLI beside the running service), which stays up after close. */
  readonly shared: boolean;
  /** Resolves when a `child` store kept dying and was given up; never resolves otherwise. */
  readonly gaveUp: Promise<Error>;
}

export interface OpenedStore {
  /** The one driver connection, to MONGODB_URI or to the embedded store. */
  readonly database: Database;
  /** Absent when MONGODB_URI names the store. */
  readonly embedded: EmbeddedStoreHandle | undefined;
  /**
   * Closes the connection, then stops the embedded store (its engine closed). False when the
   * driver's close was given up (Database.close).
   */
  close(): Promise<boolean>;
}

/**
 * The store while the driver waits on a `worker` store: the thread answers nothing while it
 * builds indexes over every candidate (8 s at 100,000 candidates, over a minute at 1,000,000),
 * and the driver's server monitor must not take that for an outage (its check times out after
 * connectTimeoutMS, 5 s by default here; at 60 s a seed of 1,000,000 failed in its index build).
 */
const STORE_THREAD_TIMEOUTS: MongoClientOptions = { connectTimeoutMS: 600_000 };

const NEVER = new Promise<Error>(() => undefined);

/** A store running in this thread on `dataDir`, on a socket of this user only. */
export interface InProcessStore {
  readonly uri: string;
  readonly socketPath: string;
  close(): Promise<void>;
}

/**
 * Starts the embedded store on `dataDir` in this thread (the keys CLI, the seed CLI's store
 * thread). It listens on a Unix domain socket of this user only, like the service's store:
 * never a TCP port open to every local user. Rejects with DataDirectoryInUseError when a live
 * process holds the data directory.
 */
export async function startInProcessStore(dataDir: string, log?: StoreLog): Promise<InProcessStore> {
  const socket = storeSocket(dataDir);
  try {
    const store = await startEmbeddedStore({ dbPath: dataDir, socketPath: socket.path, ...(log ? { log } : {}) });
    return {
      uri: store.uri,
      socketPath: socket.path,
      close: async () => {
        try {
          await store.close();
        } finally {
          socket.release();
        }
      },
    };
  } catch (error) {
    socket.release();
    throw error;
  }
}

interface StartedEmbedded {
  readonly uri: string;
  readonly handle: EmbeddedStoreHandle;
  readonly driver: MongoClientOptions;
  stop(): Promise<void>;
}

async function startEmbedded(config: Config, embedded: EmbeddedRun): Promise<StartedEmbedded> {
  switch (embedded.run) {
    case 'child': {
      const { events } = embedded;
      // A restart comes after superviseEmbeddedStore has resolved: `supervised` is set by then.
      const supervised: SupervisedStore = await superviseEmbeddedStore(
        config.dataDir,
        {
          backoffMs: config.storeRestartBackoffMs,
          maxRestarts: config.storeMaxRestarts,
          windowMs: config.storeRestartWindowMs,
        },
        {
          restarting: (details) => events.restarting(details),
          restarted: (pid) => events.restarted({ pid, socketPath: supervised.socketPath }),
        },
      );
      return {
        uri: supervised.uri,
        handle: {
          socketPath: supervised.socketPath,
          pid: () => supervised.pid(),
          gaveUp: supervised.gaveUp,
          shared: false,
        },
        driver: {},
        stop: () => supervised.stop(),
      };
    }
    case 'worker': {
      const thread = await startStoreThread(config.dataDir);
      return {
        uri: thread.uri,
        handle: { socketPath: thread.socketPath, pid: () => process.pid, gaveUp: NEVER, shared: false },
        driver: STORE_THREAD_TIMEOUTS,
        stop: () => thread.close(),
      };
    }
    case 'in-process': {
      const store = await startInProcessStore(config.dataDir, embedded.log);
      return {
        uri: store.uri,
        handle: { socketPath: store.socketPath, pid: () => process.pid, gaveUp: NEVER, shared: false },
        driver: {},
        stop: () => store.close(),
      };
    }
  }
}

/**
 * The store another process runs on DATA_DIR, when it held the directory as this process tried
 * to open it: the CLI connects to the running service's store (as a second instance of the
 * service would) instead of opening the files, which would corrupt them. Rethrows `inUse` when
 * the holder publishes no address (it is still loading its data, or listens on nothing this
 * user can reach).
 */
function runningEmbedded(config: Config, inUse: DataDirectoryInUseError): StartedEmbedded {
  const running = runningStore(config.dataDir);
  if (running === undefined) throw inUse;
  const host = new URL(running.uri).hostname;
  return {
    uri: running.uri,
    handle: {
      socketPath: host.endsWith('.sock') ? decodeURIComponent(host) : '',
      pid: () => running.pid,
      gaveUp: NEVER,
      shared: true,
    },
    driver: {},
    stop: async () => undefined,
  };
}

/**
 * The store of the configuration, connected: MONGODB_URI when set, otherwise the embedded store
 * on DATA_DIR, run as `options.embedded` says. The service and every CLI open their store here.
 * Two stores on one data directory would corrupt it: when a live process already runs the store
 * on DATA_DIR (a running service, say), a CLI (`worker` or `in-process`) connects to that store
 * instead, and the service (`child`) rejects with DataDirectoryInUseError, as every run does
 * when the holder cannot be reached.
 */
export async function openStore(config: Config, options: OpenStoreOptions): Promise<OpenedStore> {
  if (config.mongodbUri !== '') {
    const database = await connectDatabase(config.mongodbUri, config.mongodbDb, options.driver);
    return { database, embedded: undefined, close: () => database.close() };
  }
  let embedded: StartedEmbedded;
  try {
    embedded = await startEmbedded(config, options.embedded);
  } catch (error) {
    if (!(error instanceof DataDirectoryInUseError) || options.embedded.run === 'child') throw error;
    embedded = runningEmbedded(config, error);
  }
  let database: Database;
  try {
    database = await connectDatabase(embedded.uri, config.mongodbDb, { ...options.driver, ...embedded.driver });
  } catch (error) {
    await embedded.stop();
    throw error;
  }
  return {
    database,
    embedded: embedded.handle,
    close: async () => {
      const closed = await database.close();
      await embedded.stop();
      return closed;
    },
  };
}
