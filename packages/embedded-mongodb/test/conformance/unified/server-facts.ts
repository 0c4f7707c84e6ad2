import { execFileSync } from 'node:child_process';
import { SERVER_VERSION } from '../../../src/commands/handshake';
import type { ServerFacts } from './requirements';

/**
 * What the embedded store reports: its buildInfo.version, and a replica set (its hello answers as
 * the primary of a one-member set, so that the driver sends it transactions).
 */
export const EMBEDDED_SERVER_FACTS: ServerFacts = {
  version: SERVER_VERSION.split('.').map(Number),
  topology: 'replicaset',
};

const PROBE = `
const { MongoClient } = require('mongodb');
(async () => {
  const client = await MongoClient.connect(process.argv[1], { serverSelectionTimeoutMS: 10000 });
  const admin = client.db('admin');
  const build = await admin.command({ buildInfo: 1 });
  const hello = await admin.command({ hello: 1 });
  const topology = hello.msg === 'isdbgrid' ? 'sharded' : hello.setName ? 'replicaset' : 'single';
  process.stdout.write(JSON.stringify({ version: build.versionArray.slice(0, 3), topology }));
  await client.close();
})().catch((error) => { console.error(error); process.exit(1); });
`;

/**
 * Asks a real MongoDB for its version and topology. Synchronous because jest declares tests
 * (and which of them to skip) synchronously.
 */
export function probeServerFacts(uri: string): ServerFacts {
  const output = execFileSync(process.execPath, ['-e', PROBE, uri], {
    cwd: __dirname,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(output) as ServerFacts;
}
