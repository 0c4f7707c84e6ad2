import fs from 'node:fs';
import path from 'node:path';
import { forkChild, stopChild, type Child } from './children';
import type { Scenario } from './scenarios';

/**
 * The hand-written peer (peer-server.ts) beside the service: started on the service's own store
 * while the service runs, its answers checked byte for byte against the service's, then measured
 * with the service's cold rotations of search limit=100 and by id.
 */

/** The cold rows the peer answers too, and its keys for them. */
export const PEER_ROWS: Readonly<Record<string, string>> = {
  'rest-search-100-cold': 'peer-search-100-cold',
  'rest-by-id-cold': 'peer-by-id-cold',
};

/** The Unix socket the embedded store of `storePid` listens on, from /proc (its path may be outside DATA_DIR). */
export function storeSocketOf(storePid: number): string | undefined {
  const inodes = new Set<string>();
  try {
    for (const fd of fs.readdirSync(`/proc/${storePid}/fd`)) {
      const link = fs.readlinkSync(`/proc/${storePid}/fd/${fd}`);
      const match = /^socket:\[(\d+)\]$/.exec(link);
      if (match) inodes.add(match[1]);
    }
  } catch {
    return undefined;
  }
  // /proc/net/unix: Num RefCount Protocol Flags Type St Inode Path; a listening socket has flags 00010000.
  for (const line of fs.readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 8 && fields[3] === '00010000' && inodes.has(fields[6])) return fields.slice(7).join(' ');
  }
  return undefined;
}

export interface RunningPeer {
  child: Child;
  url: string;
}

export async function startPeer(
  socketPath: string,
  database: string,
  repo: string,
  logFile: string,
): Promise<RunningPeer> {
  const uri = `mongodb://${encodeURIComponent(socketPath)}/?directConnection=true`;
  const child = forkChild('peer', path.join(__dirname, 'peer-server.ts'), [uri, database], { cwd: repo, logFile });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the peer did not start within 60 s')), 60_000);
      child.process.once('message', (message: { port?: number }) => {
        clearTimeout(timer);
        if (typeof message.port === 'number') resolve(message.port);
        else reject(new Error(`the peer sent ${JSON.stringify(message)}`));
      });
      void child.exited().then(() => reject(new Error('the peer exited')));
    });
    return { child, url: `http://127.0.0.1:${port}` };
  } catch (error) {
    await stopChild(child, 5_000);
    throw error;
  }
}

/**
 * The same requests to the service and to the peer: each answer must be 200 with the same
 * bytes. Returns the requests whose answers differ (empty when all are identical).
 */
export async function differingAnswers(
  serviceUrl: string,
  peerUrl: string,
  apiKey: string,
  requests: readonly string[],
): Promise<string[]> {
  const differing: string[] = [];
  for (const request of requests) {
    const [ours, theirs] = await Promise.all(
      [serviceUrl, peerUrl].map(async (base) => {
        const response = await fetch(`${base}${request}`, {
          headers: { 'x-api-key': apiKey },
          signal: AbortSignal.timeout(60_000),
        });
        return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
      }),
    );
    if (ours.status !== 200 || theirs.status !== 200 || !ours.body.equals(theirs.body))
      differing.push(
        `${request} (service ${ours.status}, ${ours.body.length} bytes; peer ${theirs.status}, ${theirs.body.length} bytes)`,
      );
  }
  return differing;
}

/** The peer's rows: the service's cold scenarios of PEER_ROWS, renamed. */
export function peerScenarios(cold: readonly Scenario[]): Scenario[] {
  return cold
    .filter((scenario) => scenario.key in PEER_ROWS)
    .map((scenario) => ({
      ...scenario,
      key: PEER_ROWS[scenario.key],
      label: `Peer: Express + mongodb driver + res.json, ${scenario.label.replace(/^REST /, '')}`,
    }));
}
