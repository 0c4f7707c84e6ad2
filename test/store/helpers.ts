import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temporary directory, removed by the returned cleanup. */
export function makeTempDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** The journal file(s) of a store data directory. */
export function journalFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => /^journal-\d+\.log$/.test(name))
    .map((name) => path.join(dir, name));
}
