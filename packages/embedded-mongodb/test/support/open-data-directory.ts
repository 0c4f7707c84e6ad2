/**
 * Run as a child process (tsx), as another user or in another mount namespace than the test:
 * opens a store on the data directory given, writes a document, closes it, and prints `ok`;
 * or prints the error's message on stderr and exits with code 1.
 */
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedStore } from '../../src/index';

async function main(): Promise<void> {
  const dbPath = process.argv[2];
  const socketPath = path.join(os.tmpdir(), `open-data-directory-${process.pid}.sock`);
  const store = await startEmbeddedStore({ dbPath, socketPath });
  const client = await MongoClient.connect(store.uri, { serverSelectionTimeoutMS: 5000 });
  await client.db('probe').collection('people').insertOne({ opened: true });
  await client.close();
  await store.close();
  process.stdout.write('ok\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
