import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';

/** The one MongoClient of the process and its database; created once and passed in. */
export interface Database {
  readonly client: MongoClient;
  readonly db: Db;
  close(): Promise<void>;
}

/**
 * Connects the official driver to `uri` (a real MongoDB or the embedded store).
 * Short server-selection and connect timeouts make requests fail fast during an outage
 * instead of queueing for the driver's default 30 s.
 */
export async function connectDatabase(uri: string, dbName: string, options: MongoClientOptions = {}): Promise<Database> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    // Command events feed the command-count tests and, later, the metrics.
    monitorCommands: true,
    ...options,
  });
  await client.connect();
  return {
    client,
    db: client.db(dbName),
    close: () => client.close(),
  };
}
