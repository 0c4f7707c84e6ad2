import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';

/** The one MongoClient of the process and its database; created once and passed in. */
export interface Database {
  readonly client: MongoClient;
  readonly db: Db;
  /** What the client was made from, so that a second client can be made the same way (connection-watch.ts). */
  readonly uri: string;
  readonly options: MongoClientOptions;
  /**
   * Closes the client. Bounded: the driver's close() after its server became unreachable has
   * been seen never to return (it ends the client's sessions against a server that is gone), so
   * after the server-selection timeout (twice over) it is given up, the client left to the exit
   * of the process, and `false` returned.
   */
  close(): Promise<boolean>;
}

/** `close()`, or false when it has not settled within `ms` (a failed close counts as settled). */
export async function closeWithin(close: () => Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([close().then(() => true as const), abandoned]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The driver's timeouts for the service. Server selection and connect: MONGODB_TIMEOUT_MS, so a
 * request during an outage fails (503) within it. Socket: REQUEST_TIMEOUT_MS, so an operation
 * on a hung (not dead) server ends no later than the request that made it; the driver applies
 * it only while an operation awaits its reply, never to idle pooled connections.
 */
export function driverTimeouts(settings: { mongodbTimeoutMs: number; requestTimeoutMs: number }): MongoClientOptions {
  return {
    serverSelectionTimeoutMS: settings.mongodbTimeoutMs,
    connectTimeoutMS: settings.mongodbTimeoutMs,
    socketTimeoutMS: settings.requestTimeoutMs,
  };
}

/**
 * Connects the official driver to `uri` (a real MongoDB or the embedded store).
 * Short server-selection and connect timeouts make requests fail fast during an outage
 * instead of queueing for the driver's default 30 s.
 */
export async function connectDatabase(
  uri: string,
  dbName: string,
  options: MongoClientOptions = {},
): Promise<Database> {
  const clientOptions: MongoClientOptions = {
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    // Command events feed the command-count tests and the mongodb_command* metrics (src/observability).
    monitorCommands: true,
    ...options,
  };
  const client = new MongoClient(uri, clientOptions);
  await client.connect();
  return {
    client,
    db: client.db(dbName),
    uri,
    options: clientOptions,
    close: () => closeWithin(() => client.close(), 2 * (clientOptions.serverSelectionTimeoutMS ?? 30_000)),
  };
}
