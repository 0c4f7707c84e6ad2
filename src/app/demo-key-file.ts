import fs from 'node:fs';
import path from 'node:path';

/**
 * The file in DATA_DIR that holds the demo key from the start that created it until it has been
 * shown on a terminal: a start that fails after creating the key (its port in use) keeps it
 * there, and a start whose stdout is not a terminal leaves it there for good.
 */
export const DEMO_KEY_FILE = 'demo-api-key.txt';

/** Writes `key` to DATA_DIR/demo-api-key.txt, mode 0600 even when the file already existed; returns the file's path. */
export function writeDemoKeyFile(dataDir: string, key: string): string {
  const file = demoKeyFilePath(dataDir);
  // Opened with mode 0600 and truncated, then set to 0600: `mode` applies only to a file this call creates.
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, `${key}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

export function demoKeyFilePath(dataDir: string): string {
  return path.join(dataDir, DEMO_KEY_FILE);
}
