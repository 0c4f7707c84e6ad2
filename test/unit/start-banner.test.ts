import fs from 'node:fs';
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

  test('when the port is in use, then the failure names the port, how to choose another and the kept key file, never the key', () => {
    const keyFile = path.join(dataDir, DEMO_KEY_FILE);
    const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), {
      code: 'EADDRINUSE',
    });

    const message = startFailureMessage(inUse, { host: '127.0.0.1', port: 8080 }, { createdKey: KEY, keyFile });

    expect(message).toContain('127.0.0.1:8080: the port is in use');
    expect(message).toContain('PORT=8081 npm start');
    expect(message).toContain(`kept in ${keyFile}`);
    expect(message).not.toContain(KEY);
    expect(startFailureMessage(inUse, { host: '127.0.0.1', port: 8080 }, {})).not.toContain('demo API key');
  });
});
