import fs from 'node:fs';
import path from 'node:path';
import { DATA_FILE_MODE } from './persistence/data-directory-checks';
import { STORE_URI_FILE } from './persistence/store-files';
import { holderOf } from './persistence/store-lock';

/**
 * Where the store holding a data directory can be reached, for other processes of the same user
 * (a CLI beside the running service). Two stores on one data directory would corrupt it, so a
 * second process does not open the files: it connects to the store that holds them.
 *
 * The holder writes its connection string to DATA_DIR/store.uri (mode 0600, in the 0700 data
 * directory) once it listens, and removes it when it closes. The lock file says whether the
 * holder is alive (and is the process that wrote it): a file left by a store killed with kill -9
 * is ignored, and removed by the next store that opens the directory.
 */
export { STORE_URI_FILE };

/** Records `uri` as the address of the store holding `dataDir` (the caller holds its lock). */
export function publishStoreUri(dataDir: string, uri: string): void {
  const file = path.join(dataDir, STORE_URI_FILE);
  const temporary = `${file}.tmp`;
  fs.writeFileSync(temporary, uri, { mode: DATA_FILE_MODE });
  fs.renameSync(temporary, file);
}

/** Removes the address of `dataDir` (the store is closing, or a new one is opening). */
export function withdrawStoreUri(dataDir: string): void {
  fs.rmSync(path.join(dataDir, STORE_URI_FILE), { force: true });
}

/** The live store holding `dataDir` and its connection string; undefined when none is reachable. */
export interface RunningStore {
  readonly pid: number;
  readonly uri: string;
}

/**
 * The store a live process runs on `dataDir`, when it has published an address: undefined when
 * no live process holds the directory, or the holder does not listen yet (it is still loading)
 * or listens nowhere this user can reach.
 */
export function runningStore(dataDir: string): RunningStore | undefined {
  const directory = path.resolve(dataDir);
  const pid = holderOf(directory);
  if (pid === undefined) return undefined;
  let uri: string;
  try {
    uri = fs.readFileSync(path.join(directory, STORE_URI_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
  return uri === '' ? undefined : { pid, uri };
}
