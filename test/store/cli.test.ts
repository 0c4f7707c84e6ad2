import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MongoClient } from 'mongodb';

const CLI = path.resolve(__dirname, '../../src/store/cli.ts');

/** Runs the store CLI from source; resolves with its exit code and output once it exits. */
function runCli(args: string[], onStdoutLine?: (line: string, stop: () => void) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
});
