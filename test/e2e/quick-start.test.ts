import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  logRecords,
  socketAcceptsConnections,
  startServiceProcess,
  type ServiceProcess,
} from '../support/service-process';

/** `npm start` on its own data directory, with a small demo store. */
function startService(dataDir: string): Promise<ServiceProcess> {
  return startServiceProcess({ DATA_DIR: dataDir, DEMO_CANDIDATES: '60', LOG_LEVEL: 'info' }, 60_000);
}

/** `npm start` expected to fail: resolves with its exit code and output once it exits. */
function runServiceToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/app/main.ts'], {
    cwd: path.resolve(__dirname, '../..'),
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

function stop(service: ServiceProcess): Promise<number | null> {
  service.child.kill('SIGTERM');
  return service.exited;
}

async function countCandidates(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: '{ candidates(includeEmployed: true) { totalElements } }' }),
  });
  const body = (await response.json()) as { data: { candidates: { totalElements: number } } };
  return body.data.candidates.totalElements;
}

describe('quick start: the service on its embedded store', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-quick-start-'));

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('when started on an empty data directory, then it serves health, demo data and a demo key, and keeps them across a restart', async () => {
    const first = await startService(dataDir);
    const { key, storeSocket } = first;
    try {
      const health = await fetch(`${first.url}/healthz`);
      expect(health.status).toBe(200);
      expect(key).toBeDefined();
      expect(await countCandidates(first.url, key!)).toBe(60);
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGTERM');
    }
    expect(await first.exited).toBe(0);
    expect(await socketAcceptsConnections(storeSocket)).toBe(false);

    const second = await startService(dataDir);
    try {
      expect(second.output()).not.toContain('shown only now');
      expect(await countCandidates(second.url, key!)).toBe(60);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, 180_000);

  test('when stdout is not a terminal, then the demo key is never written to it: it goes to a file of DATA_DIR with mode 0600, and the log names only that file', async () => {
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-demo-key-'));
    try {
      // Act: stdout of the service is a pipe, as under a container runtime or a log collector.
      const service = await startService(keyDir);
      try {
        // Assert: the file holds a working key, readable by this user only.
        const file = path.join(keyDir, 'demo-api-key.txt');
        expect(service.demoKeyFile).toBe(file);
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        const key = fs.readFileSync(file, 'utf8').trim();
        expect(key).toMatch(/^cdk_[A-Za-z0-9_-]{43}$/);
        expect(await countCandidates(service.url, key)).toBe(60);
        // ... the key is nowhere in stdout or stderr, and the log line names the file.
        expect(service.output()).not.toContain(key);
        const named = logRecords(service.output()).filter((record) => record.file === file);
        expect(named).toHaveLength(1);
        expect(named[0].msg).toMatch(/demo API key written/);
      } finally {
        expect(await stop(service)).toBe(0);
      }
    } finally {
      fs.rmSync(keyDir, { recursive: true, force: true });
    }
  }, 180_000);

  test('when the port is in use, then the start fails naming PORT and the file that keeps the demo key, and a start on a free port serves that key', async () => {
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-busy-port-'));
    const occupant = net.createServer();
    await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve));
    const { port } = occupant.address() as net.AddressInfo;
    try {
      // Act: seeds the store and creates the demo key, then cannot listen.
      const failed = await runServiceToExit({ DATA_DIR: keyDir, DEMO_CANDIDATES: '60', PORT: String(port) });
      const file = path.join(keyDir, 'demo-api-key.txt');
      expect(failed.code).toBe(1);
      expect(failed.output).toContain(`127.0.0.1:${port}: the port is in use`);
      expect(failed.output).toMatch(/PORT=\d+ npm start/);
      expect(failed.output).not.toContain(`PORT=${port} npm start`);
      expect(failed.output).toContain(`kept in ${file}`);
      const key = fs.readFileSync(file, 'utf8').trim();
      expect(failed.output).not.toContain(key);

      // Assert: the next start (a free port) names the same file, and its key works.
      const service = await startService(keyDir);
      try {
        expect(service.output()).toContain(`Demo API key: in ${file}`);
        expect(service.key).toBeUndefined();
        expect(await countCandidates(service.url, key)).toBe(60);
      } finally {
        expect(await stop(service)).toBe(0);
      }
    } finally {
      await new Promise((resolve) => occupant.close(resolve));
      fs.rmSync(keyDir, { recursive: true, force: true });
    }
  }, 180_000);
});
