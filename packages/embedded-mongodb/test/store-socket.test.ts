import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_SOCKET_PATH_BYTES, storeSocket } from '../src/store-socket';

describe('where the embedded store socket goes', () => {
  let root: string;
  beforeEach(() => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-socket-'))));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  test('when DATA_DIR is short enough, then the socket is DATA_DIR/store.sock and DATA_DIR is narrowed to mode 0700', () => {
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);

    const socket = storeSocket(dataDir);

    expect(socket.path).toBe(path.join(dataDir, 'store.sock'));
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  test('when DATA_DIR/store.sock would pass 107 bytes, then the socket goes to a private temporary directory that release() removes', () => {
    const dataDir = path.join(root, 'd'.repeat(120));

    const socket = storeSocket(dataDir);

    try {
      expect(Buffer.byteLength(socket.path)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES);
      expect(socket.path.startsWith(dataDir)).toBe(false);
      expect(path.basename(socket.path)).toBe('store.sock');
      expect(fs.statSync(path.dirname(socket.path)).mode & 0o777).toBe(0o700);
    } finally {
      socket.release();
    }
    expect(fs.existsSync(path.dirname(socket.path))).toBe(false);
  });
});
