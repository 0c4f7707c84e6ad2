import fs from 'node:fs';
import path from 'node:path';

/**
 * DATA_DIR named as operators name them, for the tests that every way of opening the store opens
 * it (test/store/data-directory-names*.test.ts).
 */
export interface DataDirName {
  /** what the name shows */
  readonly label: string;
  /** DATA_DIR as the operator writes it, under `root` (a fresh temporary directory) */
  readonly make: (root: string) => string;
}

export const DATA_DIR_NAMES: readonly DataDirName[] = [
  { label: 'with a dot, like /srv/cd.data', make: (root) => path.join(root, 'srv', 'cd.data') },
  {
    label: 'relative, with a dot, like ./run.1',
    make: (root) => `.${path.sep}${path.relative(process.cwd(), path.join(root, 'run.1'))}`,
  },
  { label: 'with spaces', make: (root) => path.join(root, 'Candidate Directory', 'data dir') },
  { label: 'in unicode', make: (root) => path.join(root, 'données-réfugiés.数据') },
  {
    label: 'a symbolic link to a directory',
    make: (root) => {
      fs.mkdirSync(path.join(root, 'volumes', 'v1'), { recursive: true });
      fs.symlinkSync(path.join(root, 'volumes', 'v1'), path.join(root, 'current.data'));
      return path.join(root, 'current.data');
    },
  },
  {
    label: 'an existing empty directory',
    make: (root) => {
      fs.mkdirSync(path.join(root, 'empty.d'), { mode: 0o755 });
      return path.join(root, 'empty.d');
    },
  },
];

/** The engine's files are in the directory (through the link, for a link), not beside it. */
export function expectStoreFilesIn(dataDir: string): void {
  expect(fs.statSync(dataDir).isDirectory()).toBe(true);
  expect(fs.readdirSync(dataDir)).toEqual(expect.arrayContaining(['data.mdb', 'lock.mdb']));
}
