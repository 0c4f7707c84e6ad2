import { deserialize, serialize, type Document } from 'bson';
import type { Catalog } from '../engine/catalog';
import type { Collection } from '../engine/collection';
import { describeIndex, ID_INDEX_NAME, parseIndexSpec } from '../engine/index-spec';
import { documentFieldOffset, embeddedDocument, withDocumentField } from '../engine/raw-bson';
import type { RecordSource, StoredRecord } from '../engine/stored-record';
import { RecordFileReader, RecordFileWriter } from './record-file';

const FORMAT = 'candidate-directory-embedded-store';
const VERSION = 1;
/** `{t: 'doc'}`: a document record is this with the stored document added as `d`. */
const DOCUMENT_RECORD_HEAD = serialize({ t: 'doc' });

/** Where a record's document was written: its offset in the file. */
export interface Placement {
  readonly record: StoredRecord;
  readonly offset: number;
}

/**
 * A snapshot is a record file: a header naming the journal generation it covers, then per
 * collection its definition followed by its documents, then an end marker. It is always
 * written to a temporary file and renamed into place, so it is never seen half-written; the
 * end marker guards against anything else truncating it.
 */
export function writeSnapshot(path: string, catalog: Catalog, generation: number): Placement[] {
  const placements: Placement[] = [];
  const writer = new RecordFileWriter(path);
  writer.write(serialize({ t: 'header', format: FORMAT, version: VERSION, generation }));
  let collections = 0;
  for (const db of catalog.databaseNames()) {
    for (const collection of catalog.collections(db)) {
      collections++;
      writer.write(serialize(collectionRecord(collection)));
      // `{t: 'doc', d: <document>}` around the stored bytes, without decoding them.
      for (const record of collection.naturalOrder()) {
        const bson = record.bson;
        const payload = withDocumentField(DOCUMENT_RECORD_HEAD, 'd', bson);
        placements.push({ record, offset: writer.write(payload) + documentFieldOffset(payload, bson) });
      }
    }
  }
  writer.write(serialize({ t: 'end', collections }));
  writer.close();
  return placements;
}

function collectionRecord(collection: Collection): Document {
  const indexes = collection
    .indexList()
    .filter((index) => index.name !== ID_INDEX_NAME)
    .map((index) => {
      const { v: _version, ...spec } = describeIndex(index.spec);
      return spec;
    });
  return { t: 'collection', db: collection.db, c: collection.name, options: collection.options, indexes };
}

/**
 * Loads a snapshot into an empty catalog; returns the journal generation it covers. With
 * `source` (the same file, open for reading), records keep only the place of their document in
 * it; without, a copy of its bytes.
 */
export function loadSnapshot(path: string, catalog: Catalog, source?: RecordSource): number {
  const reader = new RecordFileReader(path);
  let generation: number | undefined;
  let loader: ReturnType<Collection['bulkLoader']> | undefined;
  let complete = false;
  const finishCollection = (): void => {
    loader?.finish();
    loader = undefined;
  };

  for (const payload of reader.payloads()) {
    // Documents, the bulk of a snapshot, are indexed from the bytes they are in the file.
    const stored = embeddedDocument(payload, 'd');
    if (stored !== undefined) {
      if (!loader) throw new Error(`${path}: document outside a collection`);
      loader.add(stored, source && { source, offset: reader.fileOffsetOf(stored, payload), length: stored.length });
      continue;
    }
    const record = deserialize(payload);
    switch (record.t) {
      case 'header':
        if (record.format !== FORMAT || record.version !== VERSION)
          throw new Error(`${path} is not a snapshot this store can read`);
        generation = record.generation as number;
        break;
      case 'collection':
        finishCollection();
        loader = catalog
          .createCollection(record.db as string, record.c as string, record.options as Document)
          .bulkLoader((record.indexes as Document[]).map(parseIndexSpec));
        break;
      case 'end':
        finishCollection();
        complete = true;
        break;
      default:
        throw new Error(`${path}: unknown record type ${String(record.t)}`);
    }
  }
  if (generation === undefined || !complete) {
    throw new Error(
      `${path} is incomplete or damaged (${reader.discardedBytes} unreadable bytes); refusing to start on partial data`,
    );
  }
  return generation;
}
