import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MongoClient } from 'mongodb';

const CLI = path.resolve(__dirname, '../src/cli.ts');

/** Runs the store CLI from source; resolves with its exit code and output once it exits. */
function runCli(
  args: string[],
  onStdoutLine?: (line: string, stop: () => void) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let firstLineSeen = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (firstLineSeen || !stdout.includes('\n')) return;
    firstLineSeen = true;
    onStdoutLine?.(stdout.split('\n')[0], () => child.kill('SIGTERM'));
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('store CLI', () => {
  it('when given an unknown argument, then it prints the usage and exits with 2', async () => {
    // Act
    const { code, stderr } = await runCli(['--bogus']);

    // Assert
    expect(code).toBe(2);
    expect(stderr).toContain('usage: store');
  });

  it('when started in memory on port 0, then it prints a usable URI and exits cleanly on SIGTERM', async () => {
    // Arrange
    let pinged: unknown;

    // Act
    const { code, stdout } = await runCli(['--memory', '--port', '0'], (uri, stop) => {
      void MongoClient.connect(uri)
        .then(async (client) => {
          pinged = await client.db('admin').command({ ping: 1 });
          await client.close();
        })
        .finally(stop);
    });

    // Assert
    expect(stdout).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/\?directConnection=true\n/);
    expect(pinged).toMatchObject({ ok: 1 });
    expect(code).toBe(0);
  });

  it('when it opens a TCP port, then it warns that every local user can reach the store', async () => {
    // Act
    const { code, stdout, stderr } = await runCli(['--memory', '--port', '0'], (_uri, stop) => stop());

    // Assert: one warn line naming the port of the URI it printed.
    const port = Number(/:(\d+)\//.exec(stdout)?.[1]);
    const warnings = logLines(stderr).filter((line) => line.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({
        port,
        msg: expect.stringMatching(/TCP port without authentication: every local user/),
      }),
    ]);
    expect(code).toBe(0);
  });

  it('when given a socket, then it listens there with mode 0600, opens no TCP port, and does not warn', async () => {
    // Arrange
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-cli-socket-'));
    const socketPath = path.join(directory, 'store.sock');
    let pinged: unknown;
    let mode: number | undefined;

    try {
      // Act
      const { code, stdout, stderr } = await runCli(['--memory', '--socket', socketPath], (uri, stop) => {
        mode = fs.statSync(socketPath).mode & 0o777;
        void MongoClient.connect(uri)
          .then(async (client) => {
            pinged = await client.db('admin').command({ ping: 1 });
            await client.close();
          })
          .finally(stop);
      });

      // Assert
      expect(stdout).toBe(`mongodb://${encodeURIComponent(socketPath)}/?directConnection=true\n`);
      expect(mode).toBe(0o600);
      expect(pinged).toMatchObject({ ok: 1 });
      expect(logLines(stderr).filter((line) => line.level === 'warn')).toEqual([]);
      expect(stderr).not.toMatch(/"port"/);
      expect(code).toBe(0);
      // The socket file goes with the store.
      expect(fs.existsSync(socketPath)).toBe(false);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it('when given both a port and a socket, then it prints the usage and exits with 2', async () => {
    const { code, stderr } = await runCli(['--memory', '--port', '0', '--socket', '/tmp/x.sock']);

    expect(code).toBe(2);
    expect(stderr).toContain('either --port or --socket');
  });
});

function logLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
