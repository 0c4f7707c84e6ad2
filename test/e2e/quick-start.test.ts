import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** `npm start` as a user runs it (from sources, so the test needs no build), on its own data directory. */
async function startService(dataDir: string): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', DATA_DIR: dataDir, DEMO_CANDIDATES: '60', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 60_000);
    const check = () => {
      const match = /Candidate Directory is running at (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
  return { child, url, output: () => output };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

function portAcceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
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
    const key = /Demo API key \(shown only now\): (cdk_\S+)/.exec(first.output())?.[1];
    const storePort = Number(/mongodb:\/\/127\.0\.0\.1:(\d+)/.exec(first.output())?.[1]);

    const health = await fetch(`${first.url}/healthz`);
    expect(health.status).toBe(200);
    expect(key).toBeDefined();
    expect(await countCandidates(first.url, key!)).toBe(60);
    expect(first.output()).not.toMatch(new RegExp(`"msg":"[^"]*${key}`));

    expect(await stop(first.child)).toBe(0);
    expect(await portAcceptsConnections(storePort)).toBe(false);

    const second = await startService(dataDir);
    try {
      expect(second.output()).not.toContain('shown only now');
      expect(await countCandidates(second.url, key!)).toBe(60);
    } finally {
      expect(await stop(second.child)).toBe(0);
    }
  }, 180_000);
});
