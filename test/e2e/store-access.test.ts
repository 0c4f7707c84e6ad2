import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

/**
 * Who can reach the embedded store under `npm start`: only the service. The store has no
 * authentication and holds identity data in clear, so it listens on a Unix domain socket that
 * only the service's user may open, never on a TCP port that every local user can connect to.
 *
 * What the store child listens on is read from /proc (Linux): the child's open sockets, matched
 * against the kernel's tables of listening TCP sockets and of Unix domain sockets.
 */

const PROC_AVAILABLE = fs.existsSync('/proc/net/tcp') && fs.existsSync('/proc/net/unix');
if (!PROC_AVAILABLE)
  console.warn(
    "store-access.test.ts: skipped, /proc/net is not available (not Linux): the store child's sockets cannot be listed",
  );
const onLinux = PROC_AVAILABLE ? test : test.skip;

/** Pids of the direct children of `pid`. */
function childPids(pid: number): number[] {
  return fs
    .readdirSync(`/proc/${pid}/task`)
    .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/))
    .filter((child) => child !== '')
    .map(Number);
}

function commandLine(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
}

/** Inodes of the sockets process `pid` holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1]);
  }
  return inodes;
}

/** Inodes of every TCP socket in state LISTEN (IPv4 and IPv6). */
function listeningTcpInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns[3] === '0A') inodes.add(columns[9]); // 0A: TCP_LISTEN
    }
  }
  return inodes;
}

/** Inodes of the Unix domain sockets bound to `socketPath`. */
function unixSocketInodes(socketPath: string): Set<string> {
  const inodes = new Set<string>();
  for (const line of fs.readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns[7] === socketPath) inodes.add(columns[6]);
  }
  return inodes;
}

describe('access to the embedded store under npm start', () => {
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-store-access-'));
    // As a user's umask leaves it: other users may enter the directory.
    fs.chmodSync(dataDir, 0o755);
  });

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  onLinux(
    'when the service runs on its embedded store, then the store listens on a socket in DATA_DIR that only this user may open, on no TCP port, and no log line names a port of it',
    async () => {
      // Act
      service = await startServiceProcess({ DATA_DIR: dataDir, DEMO_CANDIDATES: '5', LOG_LEVEL: 'info' }, 60_000);

      // Assert: the store child (tsx may run esbuild as another child) holds the socket
      // DATA_DIR/store.sock and no listening TCP socket.
      const [storePid, ...others] = childPids(service.child.pid!).filter((pid) =>
        /embedded-mongodb\/(dist|src)\/cli\.[jt]s\b/.test(commandLine(pid)),
      );
      expect(others).toEqual([]);
      const held = socketInodes(storePid);
      const listeningTcp = [...held].filter((inode) => listeningTcpInodes().has(inode));
      expect(listeningTcp).toEqual([]);
      const socketPath = path.join(dataDir, 'store.sock');
      expect([...unixSocketInodes(socketPath)].some((inode) => held.has(inode))).toBe(true);
      expect(service.storeSocket).toBe(socketPath);
      expect(service.storePid).toBe(storePid);
      // ... the socket file and DATA_DIR (snapshot and journal beside it) are this user's only.
      expect(fs.statSync(socketPath).isSocket()).toBe(true);
      expect(fs.statSync(socketPath).mode & 0o777).toBe(0o600);
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
      // ... and beside the service's own URL, no host:port and no port field is logged.
      const logged = service.output().split(service.url).join('<service url>');
      expect(logged).not.toMatch(/\b\d{1,3}(?:\.\d{1,3}){3}:\d+|localhost:\d+|"port":\s*\d+/);
    },
    120_000,
  );
});
