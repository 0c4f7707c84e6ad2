import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEMO_KEY_FILE, showStartBanner, startFailureMessage, type BannerOutput } from '../../src/app/start-banner';
import { writeDemoKeyFile } from '../../src/app/demo-key-file';
import { createLogger } from '../../src/logger';
import { LogCapture } from '../support/log-capture';

const URL = 'http://127.0.0.1:8080';
/** Not a key of any store: these tests only look at where it is written. */
const KEY = `cdk_${'k'.repeat(43)}`;

function output(isTTY: boolean): BannerOutput & { text: () => string } {
  let text = '';
  return { isTTY, write: (chunk: string) => (text += chunk), text: () => text };
}

describe('start banner and the demo key', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-banner-'))));
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('when stdout is a terminal, then the key is shown in the banner, and neither a file nor a log line holds it', () => {
    const terminal = output(true);
    const logs = new LogCapture();

    showStartBanner(
      URL,
      { createdKey: KEY },
      { output: terminal, dataDir, logger: createLogger({ logLevel: 'trace' }, logs) },
    );

    expect(terminal.text()).toContain(`Demo API key (shown only now): ${KEY}`);
    expect(fs.existsSync(path.join(dataDir, DEMO_KEY_FILE))).toBe(false);
    expect(logs.lines().join('\n')).not.toContain(KEY);
  });

  test('when stdout is not a terminal, then the key goes to a file of DATA_DIR with mode 0600, and stdout and the log hold only its path', () => {
    const pipe = output(false);
    const logs = new LogCapture();

    showStartBanner(
      URL,
      { createdKey: KEY },
      { output: pipe, dataDir, logger: createLogger({ logLevel: 'trace' }, logs) },
    );

    const file = path.join(dataDir, DEMO_KEY_FILE);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(KEY);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(pipe.text()).not.toContain(KEY);
    expect(pipe.text()).toContain(file);
    expect(logs.lines().join('\n')).not.toContain(KEY);
    expect(logs.records()).toContainEqual(
      expect.objectContaining({ file, msg: expect.stringMatching(/demo API key written/) }),
    );
  });

  test('when the key file exists with a wider mode, then writing a new key leaves it 0600 and holding only the new key', () => {
    const file = path.join(dataDir, DEMO_KEY_FILE);
    fs.writeFileSync(file, 'an older, longer content that must not survive\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);

    showStartBanner(
      URL,
      { createdKey: KEY },
      { output: output(false), dataDir, logger: createLogger({ logLevel: 'silent' }) },
    );

    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${KEY}\n`);
  });

  test('when stdout is a terminal and the start wrote the key file before listening, then the banner shows the key and removes the file', () => {
    const keyFile = writeDemoKeyFile(dataDir, KEY);
    const terminal = output(true);

    showStartBanner(
      URL,
      { createdKey: KEY, keyFile },
      { output: terminal, dataDir, logger: createLogger({ logLevel: 'silent' }) },
    );

    expect(terminal.text()).toContain(`Demo API key (shown only now): ${KEY}`);
    expect(fs.existsSync(keyFile)).toBe(false);
  });

  test('when a later start finds the key file of an earlier one, then the banner names the file (never the key); without it, it says how to get another', () => {
    const keyFile = writeDemoKeyFile(dataDir, KEY);
    const kept = output(true);
    showStartBanner(URL, {}, { output: kept, dataDir, logger: createLogger({ logLevel: 'silent' }) });
    expect(kept.text()).toContain(`Demo API key: in ${keyFile}`);
    expect(kept.text()).not.toContain(KEY);

    fs.rmSync(keyFile);
    const gone = output(true);
    showStartBanner(URL, {}, { output: gone, dataDir, logger: createLogger({ logLevel: 'silent' }) });
    expect(gone.text()).toContain('`npm run keys -- create` makes another');
  });

  test('when the port is in use, then the failure names the port, how to choose another and the kept key file, never the key', async () => {
    const keyFile = path.join(dataDir, DEMO_KEY_FILE);
    const taken = await occupiedPorts(1);
    const inUse = Object.assign(new Error(`listen EADDRINUSE: address already in use 127.0.0.1:${taken.ports[0]}`), {
      code: 'EADDRINUSE',
    });
    try {
      const message = await startFailureMessage(
        inUse,
        { host: '127.0.0.1', port: taken.ports[0] },
        { createdKey: KEY, keyFile },
      );

      expect(message).toContain(`127.0.0.1:${taken.ports[0]}: the port is in use`);
      expect(message).toMatch(/PORT=\d+ npm start/);
      expect(message).toContain(`kept in ${keyFile}`);
      expect(message).not.toContain(KEY);
      expect(await startFailureMessage(inUse, { host: '127.0.0.1', port: taken.ports[0] }, {})).not.toContain(
        'demo API key',
      );
    } finally {
      await taken.close();
    }
  });

  test('when the port and the one after it are in use, then the hint names a port near them that is free (probed), not a fixed one', async () => {
    const taken = await occupiedPorts(2);
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    try {
      const message = await startFailureMessage(inUse, { host: '127.0.0.1', port: taken.ports[0] }, {});

      const suggested = Number(/PORT=(\d+) npm start/.exec(message)?.[1]);
      expect(suggested).toBeGreaterThan(taken.ports[1]);
      expect(suggested).toBeLessThanOrEqual(taken.ports[0] + 20);
      expect(await canListen('127.0.0.1', suggested)).toBe(true);
    } finally {
      await taken.close();
    }
  });
});

/** `count` consecutive ports, each held by a listening server (found by trying from a port the system chose). */
async function occupiedPorts(count: number): Promise<{ ports: number[]; close: () => Promise<void> }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const first = await listenOn('127.0.0.1', 0);
    const start = (first.address() as net.AddressInfo).port;
    const servers = [first];
    for (let port = start + 1; port < start + count && port <= 65535; port++) {
      const next = await listenOn('127.0.0.1', port).catch(() => undefined);
      if (next === undefined) break;
      servers.push(next);
    }
    const close = () => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))).then(() => {});
    if (servers.length === count) return { ports: servers.map((_, i) => start + i), close };
    await close();
  }
  throw new Error(`could not hold ${count} consecutive ports`);
}

function listenOn(host: string, port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => resolve(server));
  });
}

async function canListen(host: string, port: number): Promise<boolean> {
  const server = await listenOn(host, port).catch(() => undefined);
  if (server === undefined) return false;
  await new Promise((done) => server.close(done));
  return true;
}
