import { deserialize, serialize, UUID, type Document } from 'bson';
import { CommandError } from '../errors';
import type { Change } from './change-log';
import { duplicateKeyError } from './duplicate-key';
import { fieldNames, onlyTopLevelFields, withIdFirstInPlace } from './raw-bson';
import { classifyIndexRequest, describeIndex, ID_INDEX_NAME, idIndexSpec, type IndexSpec } from './index-spec';
import { SortedIndex, type IndexEntry } from './sorted-index';
import { StoredRecord, type RecordPlace } from './stored-record';
import { compareValues } from './value-order';

type IndexKeys = Map<SortedIndex, unknown[][]>;

function sameKeys(a: readonly unknown[][], b: readonly unknown[][]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i].length !== b[i].length) return false;
    for (let j = 0; j < a[i].length; j++) if (compareValues(a[i][j], b[i][j]) !== 0) return false;
  }
  return true;
}

/**
 * The documents of one collection and their indexes. Every mutation checks all unique indexes
 * before touching anything, so a rejected write leaves documents and indexes as they were.
 */
export class Collection {
  private readonly records = new Set<StoredRecord>();
  private readonly indexes = new Map<string, SortedIndex>();
  private nextSeq = 1;
  /** Identifies this incarnation of the collection (listCollections' info.uuid). */
  readonly uuid = new UUID();

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Document,
    private readonly log: (change: Change, record?: StoredRecord, before?: Uint8Array) => void,
  ) {
    this.indexes.set(ID_INDEX_NAME, new SortedIndex(idIndexSpec()));
  }

  get namespace(): string {
    return `${this.db}.${this.name}`;
  }

  get count(): number {
    return this.records.size;
  }

  /** Total BSON size of the documents. */
  get dataSize(): number {
    let bytes = 0;
    for (const record of this.records) bytes += record.size;
    return bytes;
  }

  get idIndex(): SortedIndex {
    return this.indexes.get(ID_INDEX_NAME)!;
  }

  indexList(): SortedIndex[] {
    return [...this.indexes.values()];
  }

  getIndex(name: string): SortedIndex | undefined {
    return this.indexes.get(name);
  }

  naturalOrder(): Iterable<StoredRecord> {
    return this.records;
  }

  findById(id: unknown): StoredRecord | undefined {
    const key = [id];
    let found: StoredRecord | undefined;
    this.idIndex.scan({ start: key, startInclusive: true, end: key, endInclusive: true }, false, (entry) => {
      found = entry.record;
      return false;
    });
    return found;
  }

  /** `place`: where `doc` is in a data file as the store keeps it, _id first (journal replay). */
  insert(doc: Document, place?: RecordPlace): StoredRecord {
    const keys = this.indexKeys(doc);
    this.assertUnique(keys);
    const seq = this.nextSeq++;
    const record = place ? StoredRecord.inFile(seq, place) : new StoredRecord(seq, withIdFirstInPlace(serialize(doc)));
    this.records.add(record);
    for (const [index, indexKeys] of keys) index.insert(record, indexKeys);
    this.log({ t: 'put', db: this.db, c: this.name, d: doc }, record);
    return record;
  }

  /** Throws what `insert(doc)` would throw (a key that cannot be indexed, a duplicate key), changing nothing. */
  checkInsert(doc: Document): void {
    this.assertUnique(this.indexKeys(doc));
  }

  replace(record: StoredRecord, doc: Document, place?: RecordPlace): void {
    const keys = this.indexKeys(doc);
    this.assertUnique(keys, record);
    const oldBson = record.bson;
    const old = deserialize(oldBson);
    for (const [index, newKeys] of keys) {
      const oldKeys = index.keysOf(old);
      if (sameKeys(oldKeys, newKeys)) continue;
      index.remove(record, oldKeys);
      index.insert(record, newKeys);
    }
    record.replaceWith(doc, place);
    this.log({ t: 'put', db: this.db, c: this.name, d: doc }, record, oldBson);
  }

  remove(record: StoredRecord): void {
    if (!this.records.delete(record)) return;
    const bson = record.bson;
    const doc = deserialize(bson);
    for (const index of this.indexes.values()) index.remove(record, index.keysOf(doc));
    this.log({ t: 'del', db: this.db, c: this.name, id: doc._id }, undefined, bson);
  }

  /**
   * Snapshot loading into a new, empty collection: creates the indexes of `specs`, then takes
   * each document's bytes (only read during the call, so they may be a view of a read buffer),
   * with the place of those bytes in the data file when the record is to keep only that. The
   * indexes are sorted once, by `finish`, which also checks the unique ones.
   */
  bulkLoader(specs: readonly IndexSpec[]): { add(bson: Uint8Array, place?: RecordPlace): void; finish(): void } {
    const created = this.newIndexes(specs);
    const filler = this.indexFiller([...this.indexes.values(), ...created]);
    return {
      add: (bson, place) => {
        const seq = this.nextSeq++;
        const record = place
          ? StoredRecord.inFile(seq, place)
          : new StoredRecord(seq, Uint8Array.prototype.slice.call(bson));
        this.records.add(record);
        filler.add(record, bson);
      },
      finish: () => {
        filler.fill();
        for (const index of created) if (index.spec.unique) this.assertNoDuplicates(index);
        for (const index of created) this.indexes.set(index.name, index);
      },
    };
  }

  /** Creates an index over the existing documents; false when an identical one exists. */
  createIndex(spec: IndexSpec): boolean {
    return this.createIndexes([spec]) === 1;
  }

  /**
   * Creates indexes over the existing documents, reading each document once for all of them;
   * those identical to an existing one are left out. All or nothing: returns how many were made.
   */
  createIndexes(specs: readonly IndexSpec[]): number {
    const created = this.newIndexes(specs);
    this.build(created);
    for (const index of created) if (index.spec.unique) this.assertNoDuplicates(index);
    for (const index of created) {
      this.indexes.set(index.name, index);
      const { v: _version, ...raw } = describeIndex(index.spec);
      this.log({ t: 'createIndex', db: this.db, c: this.name, spec: raw });
    }
    return created.length;
  }

  dropIndex(name: string): void {
    if (name === ID_INDEX_NAME) throw new CommandError('InvalidOptions', 'cannot drop _id index');
    if (!this.indexes.delete(name)) throw new CommandError('IndexNotFound', `index not found with name [${name}]`);
    this.log({ t: 'dropIndex', db: this.db, c: this.name, name });
  }

  /** Indexes for those of `specs` that neither exist nor repeat an earlier one, not yet added. */
  private newIndexes(specs: readonly IndexSpec[]): SortedIndex[] {
    const created: SortedIndex[] = [];
    for (const spec of specs) {
      const existing = [...this.indexes.values(), ...created].map((index) => index.spec);
      if (classifyIndexRequest(spec, existing) !== 'exists') created.push(new SortedIndex(spec));
    }
    return created;
  }

  /** Fills `indexes` from the stored documents in one pass. */
  private build(indexes: readonly SortedIndex[]): void {
    if (indexes.length === 0) return;
    const filler = this.indexFiller(indexes);
    for (const record of this.records) filler.add(record, record.bson);
    filler.fill();
  }

  /**
   * Collects the entries of documents for `indexes`, then sorts each index once (`fill`).
   * Decodes of a document only the top-level fields the indexes read (all of it when a partial
   * filter may look anywhere).
   */
  private indexFiller(indexes: readonly SortedIndex[]): {
    add(record: StoredRecord, bson: Uint8Array): void;
    fill(): void;
  } {
    const entries = indexes.map((): IndexEntry[] => []);
    const whole = indexes.some((index) => index.spec.partialFilterExpression !== undefined);
    const names = fieldNames(indexes.flatMap((index) => index.spec.fields.map((field) => field.parts[0])));
    return {
      add: (record, bson) => {
        const doc = whole ? deserialize(bson) : deserialize(onlyTopLevelFields(bson, names));
        for (let i = 0; i < indexes.length; i++)
          for (const key of indexes[i].keysOf(doc)) entries[i].push({ key, record });
      },
      fill: () => {
        for (let i = 0; i < indexes.length; i++) indexes[i].loadEntries(entries[i]);
      },
    };
  }

  private indexKeys(doc: Document): IndexKeys {
    const keys: IndexKeys = new Map();
    for (const index of this.indexes.values()) keys.set(index, index.keysOf(doc));
    return keys;
  }

  private assertUnique(keys: IndexKeys, self?: StoredRecord): void {
    for (const [index, indexKeys] of keys) {
      if (!index.spec.unique) continue;
      const conflict = index.conflictingKey(indexKeys, self);
      if (conflict) throw duplicateKeyError(this.namespace, index.spec, conflict);
    }
  }

  private assertNoDuplicates(index: SortedIndex): void {
    let previous: { key: readonly unknown[]; record: StoredRecord } | undefined;
    for (const entry of index.all()) {
      if (previous && previous.record !== entry.record && index.compareKeys(previous.key, entry.key) === 0) {
        throw duplicateKeyError(this.namespace, index.spec, entry.key);
      }
      previous = entry;
    }
  }
}
