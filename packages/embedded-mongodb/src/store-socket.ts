import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareDataDirectory } from './persistence/data-directory-checks';
import { STORE_SOCKET_FILE } from './persistence/store-files';
import { SILENT_LOG } from './store-log';

/**
 * Where the embedded store listens when only this service (this user) may reach it: a Unix
 * domain socket, never a TCP port, which every local user could connect to (the store has no
 * authentication, and `candidateIdentities` holds identity data in clear).
 */

export { STORE_SOCKET_FILE };

/** Longest socket path Linux accepts: `sun_path` is 108 bytes with its terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;

export interface StoreSocket {
  /** Absolute path of the socket file. */
  readonly path: string;
  /** Removes what was made for the socket (a private directory outside DATA_DIR); idempotent. */
  release(): void;
}

/**
 * The socket of the embedded store on `dataDir`: DATA_DIR/store.sock, with DATA_DIR prepared as
 * the store prepares it (created mode 0700, or narrowed to it when it holds only the store's
 * files; data-directory-checks.ts). The socket file itself is mode 0600 (server.ts). When that path is longer than a socket path may be, the
 * socket goes to a new private directory (mode 0700) under the system's temporary directory
 * instead, made for this store and removed by `release()`. Without `dataDir` (an in-memory
 * store) it always goes there.
 */
export function storeSocket(dataDir: string | undefined): StoreSocket {
  if (dataDir !== undefined) {
    const directory = path.resolve(dataDir);
    // Refused here (a file, read-only, another user's) as the store would refuse it, before a child is started for it.
    prepareDataDirectory(directory, SILENT_LOG);
    const inDataDir = path.join(directory, STORE_SOCKET_FILE);
    if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH_BYTES) return { path: inDataDir, release: () => undefined };
  }
  // mkdtemp creates the directory with mode 0700.
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-store-'));
  const socketPath = path.join(directory, STORE_SOCKET_FILE);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    fs.rmSync(directory, { recursive: true, force: true });
    throw new Error(
      `the embedded store's socket path would be longer than ${MAX_SOCKET_PATH_BYTES} bytes both in DATA_DIR and in the temporary directory (${os.tmpdir()}): set a shorter DATA_DIR or TMPDIR`,
    );
  }
  return { path: socketPath, release: () => fs.rmSync(directory, { recursive: true, force: true }) };
}
