import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** The start banner of src/main.ts, written at once and ended by a blank line. */
const BANNER = /Candidate Directory is running at (http:\/\/\S+)\n[\s\S]*?\n\n/;

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** the demo key of the banner, when this start created one */
  key: string | undefined;
  /** port of the embedded store child, from its logged mongodb:// URI */
  storePort: number;
  exited: Promise<number | null>;
  output: () => string;
}

/**
 * `npm start` as a user runs it, from sources (so tests need no build), with only PATH and
 * `env` in its environment; resolves once the banner is printed.
 */
export async function startServiceProcess(env: Record<string, string>, timeoutMs = 90_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), timeoutMs);
    const check = () => {
      const match = BANNER.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
  return {
    child,
    url,
    key: /Demo API key \(shown only now\): (cdk_\S+)/.exec(output)?.[1],
    storePort: Number(/mongodb:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]),
    exited,
    output: () => output,
  };
}

export function portAcceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
