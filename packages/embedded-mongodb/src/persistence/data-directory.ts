import fs from 'node:fs';
import path from 'node:path';
import type { StoreLog } from '../store-log';
import { convertEarlierRelease, earlierReleaseFiles, removeEarlierReleaseFiles } from './earlier-release';
import { fsyncDirectory } from './record-file';
import { StorageEngine } from './storage-engine';
import { DATA_FILE_MODE, DATA_FOLDER_MODE, prepareDataDirectory } from './data-directory-checks';
import { CONVERTING_FOLDER as CONVERTING, ENGINE_FILES } from './store-files';
import { acquireStoreLock, releaseStoreLock } from './store-lock';

export { DATA_FILE_MODE, DATA_FOLDER_MODE, DataDirectoryRefusedError } from './data-directory-checks';
export { DataDirectoryInUseError, holderOf } from './store-lock';

/**
 * The on-disk state of a durable store: the storage engine's files (`data.mdb`, `lock.mdb`)
 * and `store.lock`, naming the process that holds the directory. Opening reads only the
 * catalog: it costs the same at any size. A directory written by an earlier release (a
 * snapshot and a journal) is converted once, first (earlier-release.ts).
 */
export class DataDirectory {
  private constructor(
    private readonly directory: string,
    readonly engine: StorageEngine,
  ) {}

  static async open(directory: string, log: StoreLog): Promise<DataDirectory> {
    prepareDataDirectory(directory, log);
    acquireStoreLock(directory, DATA_FILE_MODE);
    try {
      const hasEngine = fs.existsSync(path.join(directory, ENGINE_FILES[0]));
      if (earlierReleaseFiles(directory).length > 0) {
        // With the engine's file present, the conversion finished and only the clean-up was cut short.
        if (!hasEngine) await convert(directory, log);
        fs.rmSync(path.join(directory, CONVERTING), { recursive: true, force: true });
        removeEarlierReleaseFiles(directory);
        fsyncDirectory(directory);
      }
      const engine = openEngine(directory);
      for (const name of ENGINE_FILES) fs.chmodSync(path.join(directory, name), DATA_FILE_MODE);
      try {
        await engine.recover();
      } catch (error) {
        await engine.close();
        throw error;
      }
      return new DataDirectory(directory, engine);
    } catch (error) {
      releaseStoreLock(directory);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.engine.close();
    releaseStoreLock(this.directory);
  }
}

/** The engine on `directory`; a failure names the directory (LMDB's own messages do not). */
function openEngine(directory: string): StorageEngine {
  try {
    return StorageEngine.open(directory);
  } catch (error) {
    throw new Error(`data directory ${directory}: the storage engine could not open it: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Converts an earlier release's snapshot and journal into the engine's files: built aside in
 * `converting/`, fsync'ed, then moved into place with one rename. The old files are removed only
 * after that, so a conversion that fails or is cut short leaves them as they were.
 */
async function convert(directory: string, log: StoreLog): Promise<void> {
  const aside = path.join(directory, CONVERTING);
  fs.rmSync(aside, { recursive: true, force: true });
  fs.mkdirSync(aside, { mode: DATA_FOLDER_MODE });
  const started = Date.now();
  log('info', 'converting the data directory of an earlier release to the storage engine', { directory });
  const engine = StorageEngine.open(aside);
  let converted: ReturnType<typeof convertEarlierRelease>;
  try {
    converted = convertEarlierRelease(directory, engine, log);
  } catch (error) {
    await engine.close();
    fs.rmSync(aside, { recursive: true, force: true });
    throw error;
  }
  await engine.close();
  fs.chmodSync(path.join(aside, ENGINE_FILES[0]), DATA_FILE_MODE);
  fsyncDirectory(aside);
  fs.renameSync(path.join(aside, ENGINE_FILES[0]), path.join(directory, ENGINE_FILES[0]));
  fsyncDirectory(directory);
  fs.rmSync(aside, { recursive: true, force: true });
  log('info', 'converted the data directory of an earlier release', {
    directory,
    ...converted,
    ms: Date.now() - started,
  });
}
