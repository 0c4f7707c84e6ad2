import fs from 'node:fs';
import path from 'node:path';
import { deserialize, type Document } from 'bson';
import { Catalog } from '../engine/catalog';
import type { Change } from '../engine/change-log';
import { parseIndexSpec } from '../engine/index-spec';
import type { StoreLog } from '../store-log';
import { RecordFileReader } from './record-file';
import type { StorageEngine } from './storage-engine';

/**
 * The data directory of the release before the storage engine: `snapshot.bin` (every
 * collection's definition and documents as of journal generation G, framed records ending with
 * an end marker) and `journal-G.log` (the changes since, framed records; a torn tail is ignored,
 * as that release did). Read only to convert it.
 */
const SNAPSHOT = 'snapshot.bin';
const SNAPSHOT_FORMAT = 'candidate-directory-embedded-store';
const SNAPSHOT_VERSION = 1;
const JOURNAL_PATTERN = /^journal-(\d+)\.log$/;

/** Values as stored (an int stays an int, a Long a Long), so the documents are converted byte for byte. */
const EXACT = { promoteValues: false, promoteLongs: false, promoteBuffers: false } as const;

/** Documents inserted per engine transaction while converting. */
const BATCH = 1000;

/**
 * The earlier release's files present in `directory` (also a snapshot's temporary file); none
 * unless its data is there (a snapshot, or the first journal of a directory never snapshotted):
 * a `journal-3.log` of someone else's in a shared directory is not the store's to convert or remove.
 */
export function earlierReleaseFiles(directory: string): string[] {
  const names = fs.readdirSync(directory);
  if (!names.includes(SNAPSHOT) && !names.includes('journal-0.log')) return [];
  return names.filter((name) => name === SNAPSHOT || name === `${SNAPSHOT}.tmp` || JOURNAL_PATTERN.test(name));
}

/** Removes them, the snapshot and the first journal last: a removal cut short is finished at the next open. */
export function removeEarlierReleaseFiles(directory: string): void {
  const last = (name: string) => (name === SNAPSHOT || name === 'journal-0.log' ? 1 : 0);
  const names = earlierReleaseFiles(directory).sort((a, b) => last(a) - last(b));
  for (const name of names) fs.rmSync(path.join(directory, name), { force: true });
}

/**
 * Loads the snapshot and replays the journal into the (empty) engine, as the earlier release
 * recovered them at start: all of the snapshot or a refusal (it is written whole or not at all),
 * then the journal's intact records, each applied or (when it no longer applies) logged and skipped.
 */
export function convertEarlierRelease(
  directory: string,
  engine: StorageEngine,
  log: StoreLog,
): { collections: number; documents: number; journalChanges: number } {
  const catalog = new Catalog(engine);
  const snapshotPath = path.join(directory, SNAPSHOT);
  let generation = 0;
  let documents = 0;
  let collections = 0;
  if (fs.existsSync(snapshotPath)) {
    const loaded = loadSnapshot(snapshotPath, catalog);
    ({ generation, documents, collections } = loaded);
  }
  const journalPath = path.join(directory, `journal-${generation}.log`);
  let journalChanges = 0;
  if (fs.existsSync(journalPath)) {
    const reader = new RecordFileReader(journalPath);
    let batch: Change[] = [];
    const flush = (): void => {
      const changes = batch;
      batch = [];
      engine.write(() => {
        for (const change of changes) {
          try {
            engine.atomic(() => catalog.applyChange(change));
          } catch (error) {
            log('error', 'journal record could not be applied; skipped', { change: change.t, error: String(error) });
          }
        }
      });
    };
    for (const payload of reader.payloads()) {
      batch.push(journalChange(payload));
      journalChanges++;
      if (batch.length >= BATCH) flush();
    }
    flush();
    if (reader.discardedBytes > 0) {
      log('warn', 'ignored a torn record at the end of the journal', {
        journal: journalPath,
        bytes: reader.discardedBytes,
      });
    }
  }
  return { collections, documents, journalChanges };
}

/** A journal record; the documents in it with their values as stored. */
function journalChange(payload: Uint8Array): Change {
  const change = deserialize(payload) as Change;
  return change.t === 'put' || change.t === 'txn' ? (deserialize(payload, EXACT) as Change) : change;
}

function loadSnapshot(
  snapshotPath: string,
  catalog: Catalog,
): { generation: number; documents: number; collections: number } {
  const { engine } = catalog;
  const reader = new RecordFileReader(snapshotPath);
  let generation: number | undefined;
  let collection: ReturnType<Catalog['createCollection']> | undefined;
  let batch: Document[] = [];
  let documents = 0;
  let collections = 0;
  let complete = false;
  const flush = (): void => {
    const docs = batch;
    batch = [];
    if (collection && docs.length > 0) {
      const target = collection;
      engine.write(() => {
        for (const doc of docs) target.insert(doc);
      });
    }
  };
  for (const payload of reader.payloads()) {
    const record = deserialize(payload);
    switch (record.t) {
      case 'header':
        if (record.format !== SNAPSHOT_FORMAT || record.version !== SNAPSHOT_VERSION)
          throw new Error(`${snapshotPath} is not a snapshot this store can read`);
        generation = record.generation as number;
        break;
      case 'collection':
        flush();
        collections++;
        collection = catalog.createCollection(record.db as string, record.c as string, record.options as Document);
        collection.createIndexes((record.indexes as Document[]).map(parseIndexSpec));
        break;
      case 'doc':
        if (!collection) throw new Error(`${snapshotPath}: document outside a collection`);
        batch.push(deserialize(payload, EXACT).d as Document);
        documents++;
        if (batch.length >= BATCH) flush();
        break;
      case 'end':
        flush();
        complete = true;
        break;
      default:
        throw new Error(`${snapshotPath}: unknown record type ${String(record.t)}`);
    }
  }
  if (generation === undefined || !complete) {
    throw new Error(
      `${snapshotPath} is incomplete or damaged (${reader.discardedBytes} unreadable bytes); refusing to convert partial data`,
    );
  }
  return { generation, documents, collections };
}
