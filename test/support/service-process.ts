import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** The start banner of src/app/main.ts, written at once and ended by a blank line. */
const BANNER = /Candidate Directory is running at (http:\/\/\S+)\n[\s\S]*?\n\n/;

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /**
   * The demo key this start created, if any. stdout is a pipe here, not a terminal, so the
   * service writes the key to a file and logs that file's path: read from there.
   */
  key: string | undefined;
  /** the file the log line names, when this start created a demo key */
  demoKeyFile: string | undefined;
  /** the Unix domain socket of the embedded store child, from the service's log */
  storeSocket: string;
  /** the pid of the embedded store child, from the service's log */
  storePid: number;
  exited: Promise<number | null>;
  output: () => string;
}

/**
 * `npm start` as a user runs it, from sources (so tests need no build), with only PATH and
 * `env` in its environment; resolves once the banner is printed.
 */
export async function startServiceProcess(env: Record<string, string>, timeoutMs = 90_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/app/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), timeoutMs);
    const check = () => {
      const match = BANNER.exec(output);
      // The log line naming the demo key's file may reach the pipe after the banner.
      if (match && (!match[0].includes('Demo API key: written to') || demoKeyFileOf(output) !== undefined)) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
  const demoKeyFile = demoKeyFileOf(output);
  const storeStarted = logRecords(output).find((record) => record.msg === 'embedded MongoDB-compatible store started');
  return {
    child,
    url,
    key: demoKeyFile === undefined ? undefined : fs.readFileSync(demoKeyFile, 'utf8').trim(),
    demoKeyFile,
    storeSocket: storeStarted?.socket as string,
    storePid: storeStarted?.pid as number,
    exited,
    output: () => output,
  };
}

export function portAcceptsConnections(port: number): Promise<boolean> {
  return acceptsConnections(net.connect(port, '127.0.0.1'));
}

export function socketAcceptsConnections(socketPath: string): Promise<boolean> {
  return acceptsConnections(net.connect(socketPath));
}

function acceptsConnections(socket: net.Socket): Promise<boolean> {
  return new Promise((resolve) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The file named by the log line saying the demo key was written to it. */
function demoKeyFileOf(output: string): string | undefined {
  const record = logRecords(output).find(
    (r) => typeof r.file === 'string' && /demo API key written/.test(String(r.msg)),
  );
  return record?.file as string | undefined;
}

/** The JSON log lines of `output` (the banner and other text are skipped). */
export function logRecords(output: string): Record<string, unknown>[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
