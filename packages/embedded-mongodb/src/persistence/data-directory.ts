import fs from 'node:fs';
import path from 'node:path';
import { deserialize } from 'bson';
import type { Catalog } from '../engine/catalog';
import type { Change } from '../engine/change-log';
import { embeddedDocument, hasIdFirst } from '../engine/raw-bson';
import type { RecordPlace } from '../engine/stored-record';
import type { StoreLog } from '../store-log';
import { DataFile } from './data-file';
import { Journal } from './journal';
import { RecordFileReader, fsyncDirectory } from './record-file';
import { loadSnapshot, writeSnapshot } from './snapshot';

const SNAPSHOT = 'snapshot.bin';
const LOCK = 'store.lock';
const JOURNAL_PATTERN = /^journal-(\d+)\.log$/;

const journalName = (generation: number): string => `journal-${generation}.log`;

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A store was asked to open a data directory that a live process holds (its lock file names
 * that process): the one error every way of opening a store (in this thread, a worker thread,
 * a child process) rejects with for it.
 */
export class DataDirectoryInUseError extends Error {
  constructor(
    /** The data directory, resolved to an absolute path. */
    readonly dataDir: string,
    /** The process holding it (this very process when another store of it holds it). */
    readonly pid: number,
  ) {
    super(`data directory ${dataDir} is in use by process ${pid}`);
    this.name = 'DataDirectoryInUseError';
  }
}

/** Files of a data directory: the owner alone reads and writes them, whatever the umask. */
export const DATA_FILE_MODE = 0o600;
/** Folders of a data directory: the owner alone lists and enters them. */
export const DATA_FOLDER_MODE = 0o700;

/**
 * A data directory that another user owns: its owner (or anyone who can write to it) could read
 * the stored documents or change them, so the store refuses it.
 */
export class DataDirectoryPermissionError extends Error {
  constructor(
    /** The data directory, resolved to an absolute path. */
    readonly dataDir: string,
    readonly reason: string,
  ) {
    super(`data directory ${dataDir} ${reason}`);
    this.name = 'DataDirectoryPermissionError';
  }
}

/**
 * Makes `directory` ours alone, before any file is written in it. Created 0700 (and its missing
 * parents). One owned by another user is refused: this process cannot narrow it, and its owner
 * reads whatever is stored there. One of ours open to group or others is narrowed to 0700, and
 * its files to 0600 (data written by an earlier version, or copied in), with a warning: the
 * operator chose the path, and narrowing it costs them nothing.
 */
function secureDirectory(directory: string, log: StoreLog): void {
  fs.mkdirSync(directory, { recursive: true, mode: DATA_FOLDER_MODE });
  const absolute = path.resolve(directory);
  const stat = fs.statSync(directory);
  if (!stat.isDirectory()) throw new DataDirectoryPermissionError(absolute, 'is not a directory');
  const uid = process.getuid?.();
  if (uid === undefined) return; // no POSIX owners (Windows): nothing to check
  if (stat.uid !== uid) {
    throw new DataDirectoryPermissionError(
      absolute,
      `is owned by uid ${stat.uid}, not by uid ${uid} that runs the store: refusing to store data where another user can read or change it (chown it to uid ${uid}, or choose another directory)`,
    );
  }
  if ((stat.mode & 0o077) !== 0) {
    fs.chmodSync(directory, DATA_FOLDER_MODE);
    log('warn', 'data directory was open to other users: narrowed to 0700', {
      directory: absolute,
      mode: (stat.mode & 0o777).toString(8),
    });
  }
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const file = path.join(directory, entry.name);
    const entryStat = fs.lstatSync(file);
    if (entryStat.isSymbolicLink() || entryStat.uid !== uid || (entryStat.mode & 0o077) === 0) continue;
    fs.chmodSync(file, entry.isDirectory() ? DATA_FOLDER_MODE : DATA_FILE_MODE);
    log('warn', 'file of the data directory was open to other users: narrowed', { file: entry.name });
  }
}

/** The live process holding `directory` (its lock file names it), or undefined. */
export function holderOf(directory: string): number | undefined {
  let owner: number;
  try {
    owner = Number.parseInt(fs.readFileSync(path.join(directory, LOCK), 'utf8'), 10);
  } catch {
    return undefined;
  }
  return Number.isInteger(owner) && isProcessAlive(owner) ? owner : undefined;
}

/** One process per data directory: a second store on the same files would corrupt them. */
function acquireLock(lockPath: string): void {
  try {
    fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx', mode: DATA_FILE_MODE });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const owner = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10);
  if (Number.isInteger(owner) && isProcessAlive(owner)) {
    throw new DataDirectoryInUseError(path.dirname(lockPath), owner);
  }
  // Left behind by a process that died without closing (kill -9): safe to take over.
  fs.writeFileSync(lockPath, String(process.pid), { mode: DATA_FILE_MODE });
}

/**
 * The on-disk state of a durable store: `snapshot.bin` (all data as of generation G) plus
 * `journal-G.log` (changes since). Opening recovers snapshot + journal, then compacts them into
 * snapshot G+1 (temp file, fsync, rename, fsync directory) before deleting the old journal, so a
 * crash at any step leaves one consistent pair to recover from. Records keep only the place of
 * their documents in the snapshot or the journal, so both stay open for reading until `close`.
 */
export class DataDirectory {
  private constructor(
    private readonly directory: string,
    readonly journal: Journal,
    private readonly snapshot: DataFile | undefined,
  ) {}

  /** `durableMarks`: test only (Journal.open). */
  static async open(directory: string, catalog: Catalog, log: StoreLog, durableMarks?: string): Promise<DataDirectory> {
    secureDirectory(directory, log);
    const lockPath = path.join(directory, LOCK);
    acquireLock(lockPath);
    let snapshot: DataFile | undefined;
    let journalFile: DataFile | undefined;
    try {
      const snapshotPath = path.join(directory, SNAPSHOT);
      let generation = 0;
      if (fs.existsSync(snapshotPath)) {
        snapshot = new DataFile(snapshotPath);
        generation = loadSnapshot(snapshotPath, catalog, snapshot);
      }
      const journalPath = path.join(directory, journalName(generation));
      journalFile = fs.existsSync(journalPath) ? new DataFile(journalPath) : undefined;
      const replayed = journalFile !== undefined && replayJournal(journalFile, catalog, log);
      if (replayed) {
        const temporary = `${snapshotPath}.tmp`;
        const placements = writeSnapshot(temporary, catalog, generation + 1);
        fs.renameSync(temporary, snapshotPath);
        fsyncDirectory(directory);
        generation++;
        // Every record now reads from the new snapshot; the old one (renamed over) can go.
        const compacted = new DataFile(snapshotPath);
        for (const { record, offset } of placements) record.writtenTo(compacted, offset, record.currentVersion);
        snapshot?.close();
        snapshot = compacted;
        log('info', 'compacted journal into snapshot', { directory, generation });
      }
      journalFile?.close();
      removeStaleJournals(directory, generation);
      const journal = await Journal.open(path.join(directory, journalName(generation)), durableMarks);
      fsyncDirectory(directory);
      catalog.recordChangesTo(journal);
      return new DataDirectory(directory, journal, snapshot);
    } catch (error) {
      snapshot?.close();
      journalFile?.close();
      fs.rmSync(lockPath, { force: true });
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.journal.close();
    this.snapshot?.close();
    fs.rmSync(path.join(this.directory, LOCK), { force: true });
  }
}

type IndexCreation = Extract<Change, { t: 'createIndex' }>;

/**
 * Applies a journal's intact records; true when the journal held anything (or a torn tail).
 * Records keep only the place of their documents in the journal, as the store wrote them; a
 * journal of an older version, whose documents may not start with their _id, is copied instead.
 */
function replayJournal(journal: DataFile, catalog: Catalog, log: StoreLog): boolean {
  const journalPath = journal.path;
  const apply = (change: Change, place?: RecordPlace): void => {
    try {
      catalog.applyChange(change, place);
    } catch (error) {
      log('error', 'journal record could not be applied; skipped', { change: change.t, error: String(error) });
    }
  };
  // Consecutive createIndex changes on one collection (seeding writes its indexes that way) are
  // built together: each document is decoded once, and its entries in all of them share the
  // values, instead of every index holding copies of its own.
  let indexRun: IndexCreation[] = [];
  const applyIndexRun = (): void => {
    const run = indexRun;
    indexRun = [];
    if (run.length > 1) {
      try {
        catalog.applyIndexCreations(
          run[0].db,
          run[0].c,
          run.map((change) => change.spec),
        );
        return;
      } catch {
        // Nothing of the run was built: one at a time, so only the bad ones are skipped and logged.
      }
    }
    for (const change of run) apply(change);
  };

  const reader = new RecordFileReader(journalPath);
  let applied = 0;
  for (const payload of reader.payloads()) {
    const change = deserialize(payload) as Change;
    const first = indexRun[0];
    if (first && !(change.t === 'createIndex' && change.db === first.db && change.c === first.c)) applyIndexRun();
    if (change.t === 'createIndex') indexRun.push(change);
    else apply(change, change.t === 'put' ? placeOfDocument(journal, reader, payload) : undefined);
    applied++;
  }
  applyIndexRun();
  if (reader.discardedBytes > 0) {
    log('warn', 'ignored a torn record at the end of the journal', {
      journal: journalPath,
      bytes: reader.discardedBytes,
    });
  }
  if (applied > 0) log('info', 'replayed journal', { journal: journalPath, changes: applied });
  return applied > 0 || reader.discardedBytes > 0;
}

/** Where the put record `payload`, just read by `reader`, has its document in `file`. */
function placeOfDocument(file: DataFile, reader: RecordFileReader, payload: Uint8Array): RecordPlace | undefined {
  const document = embeddedDocument(payload, 'd');
  if (document === undefined || !hasIdFirst(document)) return undefined;
  return { source: file, offset: reader.fileOffsetOf(document, payload), length: document.length };
}

function removeStaleJournals(directory: string, generation: number): void {
  for (const name of fs.readdirSync(directory)) {
    const match = JOURNAL_PATTERN.exec(name);
    if (match && Number(match[1]) !== generation) fs.rmSync(path.join(directory, name), { force: true });
  }
  fs.rmSync(path.join(directory, `${SNAPSHOT}.tmp`), { force: true });
}
