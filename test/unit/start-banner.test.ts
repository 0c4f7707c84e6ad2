import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_KEY_FILE, showStartBanner, type BannerOutput } from '../../src/app/start-banner';
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
});
