import path from 'node:path';
import { DataDirectory } from './persistence/data-directory';
import { StorageEngine } from './persistence/storage-engine';
import { StoreRuntime } from './runtime';
import { WireServer } from './server';
import { publishStoreUri, withdrawStoreUri } from './store-address';
import { SILENT_LOG } from './store-log';
import { DEFAULT_TTL_MONITOR_SLEEP_SECS, TtlMonitor } from './ttl-monitor';

export { DataDirectoryInUseError, DataDirectoryRefusedError } from './persistence/data-directory';
export type { StoreLog } from './store-log';
export {
  routeChildStoreLogs,
  spawnEmbeddedStore,
  superviseEmbeddedStore,
  type EmbeddedStoreProcess,
  type StoreExit,
  type StoreRestartPolicy,
  type SupervisedStore,
} from './embedded-process';
export { runningStore, STORE_URI_FILE, type RunningStore } from './store-address';
export { MAX_SOCKET_PATH_BYTES, STORE_SOCKET_FILE, storeSocket, type StoreSocket } from './store-socket';
// The wire protocol's framing, for tools that sit between a driver and the store (a fault-injecting proxy).
export { decodeOpMsg } from './wire/op-msg';
export { OpCode, readHeader } from './wire/protocol';
export { DEFAULT_TTL_MONITOR_SLEEP_SECS } from './ttl-monitor';
// Backups of a data directory: the createBackup command's output made into a backup, and restores.
export {
  BackupError,
  finishBackup,
  isArchiveName,
  prepareBackupTarget,
  restoreBackup,
  verifyBackup,
  type BackupManifest,
} from './backup/backup-archive';
export type { BackedUpCollection } from './commands/maintenance';
export { isSecureDelete, STORAGE_ENGINE_NAME } from './engine/catalog';

export interface EmbeddedStoreOptions {
  /**
   * Unix domain socket to listen on instead of TCP (its path must end in `.sock`, the driver's
   * sign of a socket host, and fit 107 bytes); the file gets mode 0600. `port` and `host` are
   * then unused.
   */
  socketPath?: string;
  /** TCP port; default 27017, 0 picks a free port. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Directory of the storage engine's files; give this or `memory`. */
  dbPath?: string;
  /** Keep nothing: the engine's files go to a private temporary directory, removed at close (tests). */
  memory?: boolean;
  /**
   * Behave as a standalone mongod: no replica set in hello, transactions refused. Default false:
   * the store reports itself as the primary of a one-member replica set and runs transactions.
   */
  standalone?: boolean;
  log?: (level: 'info' | 'warn' | 'error', msg: string, fields?: object) => void;
  /** Seconds between two passes of the TTL monitor (mongod's `ttlMonitorSleepSecs`); default 60. */
  ttlMonitorSleepSecs?: number;
  /** The store's clock, in milliseconds since the epoch, which TTL expiry is measured by; default Date.now. */
  now?: () => number;
}

export interface EmbeddedStore {
  /** mongodb://127.0.0.1:<port>/?directConnection=true, or mongodb://<%2F-encoded socket path>/?directConnection=true */
  readonly uri: string;
  /** The TCP port; 0 on a Unix domain socket. */
  readonly port: number;
  /** Stops listening, closes connections, closes the storage engine. */
  close(): Promise<void>;
}

const DEFAULT_PORT = 27017;
const DEFAULT_HOST = '127.0.0.1';
/** How often idle cursors are looked for. */
const CURSOR_SWEEP_MS = 60_000;

/**
 * Starts a MongoDB-wire-compatible store: a development and test stand-in for a MongoDB 7.0
 * (a one-member replica set, or a standalone), durable under `dbPath` or in memory.
 */
export async function startEmbeddedStore(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
  if ((options.dbPath === undefined) === (options.memory !== true)) {
    throw new Error('startEmbeddedStore needs exactly one of dbPath or memory: true');
  }
  const log = options.log ?? SILENT_LOG;
  const { socketPath } = options;
  const host = socketPath ?? options.host ?? DEFAULT_HOST;
  const dbPath = options.dbPath === undefined ? undefined : path.resolve(options.dbPath);
  const dataDirectory = dbPath === undefined ? undefined : await DataDirectory.open(dbPath, log);
  const engine = dataDirectory?.engine ?? StorageEngine.temporary();
  const closeStorage = async (): Promise<void> => {
    if (dataDirectory) await dataDirectory.close();
    else await engine.close();
  };
  let runtime: StoreRuntime;
  try {
    runtime = new StoreRuntime(log, host, dbPath, engine, options.standalone === true);
  } catch (error) {
    await closeStorage();
    throw error;
  }
  // An address left by a holder killed with kill -9 must not be taken for this store's.
  if (dbPath !== undefined) withdrawStoreUri(dbPath);

  const server = new WireServer(runtime);
  try {
    if (socketPath === undefined) runtime.port = await server.listen(host, options.port ?? DEFAULT_PORT);
    else await server.listenOnSocket(socketPath);
  } catch (error) {
    await closeStorage();
    throw error;
  }
  const sweeper = setInterval(() => runtime.cursors.sweep(), CURSOR_SWEEP_MS);
  sweeper.unref();
  const ttl = new TtlMonitor(runtime, {
    sleepSecs: options.ttlMonitorSleepSecs ?? DEFAULT_TTL_MONITOR_SLEEP_SECS,
    now: options.now ?? Date.now,
  });
  ttl.start();
  const where = socketPath === undefined ? { host, port: runtime.port } : { socket: socketPath };
  const uri =
    socketPath === undefined
      ? `mongodb://${host}:${runtime.port}/?directConnection=true`
      : `mongodb://${encodeURIComponent(socketPath)}/?directConnection=true`;
  // Other processes of this user (a CLI beside the service) connect here instead of opening the files.
  if (dbPath !== undefined) publishStoreUri(dbPath, uri);
  log('info', 'embedded store listening', { ...where, dbPath: dbPath ?? '(memory)' });

  let closing: Promise<void> | undefined;
  return {
    uri,
    port: runtime.port,
    close: () => {
      closing ??= (async () => {
        if (dbPath !== undefined) withdrawStoreUri(dbPath);
        clearInterval(sweeper);
        await ttl.stop();
        await server.close();
        await closeStorage();
        log('info', 'embedded store closed', where);
      })();
      return closing;
    },
  };
}
