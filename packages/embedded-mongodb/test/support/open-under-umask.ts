/**
 * Run as a child process (tsx): under umask 000, opens a store on the data directory given,
 * writes a document, closes, and opens it again (its engine files reopened),
 * so that every kind of file of a data directory has been created. Prints the mode of the lock
 * file while the store runs (`lock 600`), then `ok`; or the error's message on stderr, exit code 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedStore } from '../../src/index';

async function main(): Promise<void> {
  process.umask(0);
  const dbPath = process.argv[2];
  for (let round = 0; round < 2; round++) {
    const socketPath = path.join(path.dirname(dbPath), `umask-${round}.sock`);
    const store = await startEmbeddedStore({ dbPath, socketPath });
    const client = await MongoClient.connect(store.uri, { serverSelectionTimeoutMS: 5000 });
    await client.db('modes').collection('people').insertOne({ round });
    if (round === 0)
      process.stdout.write(`lock ${(fs.statSync(path.join(dbPath, 'store.lock')).mode & 0o777).toString(8)}\n`);
    await client.close();
    await store.close();
  }
  process.stdout.write('ok\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
