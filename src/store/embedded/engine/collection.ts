import { calculateObjectSize, UUID, type Document } from 'bson';
import { CommandError } from '../errors';
import type { Change } from './change-log';
import { duplicateKeyError } from './duplicate-key';
import { classifyIndexRequest, describeIndex, ID_INDEX_NAME, idIndexSpec, type IndexSpec } from './index-spec';
import { SortedIndex } from './sorted-index';
import type { StoredRecord } from './stored-record';
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
  private bytes = 0;
  /** Identifies this incarnation of the collection (listCollections' info.uuid). */
  readonly uuid = new UUID();

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Document,
    private readonly log: (change: Change) => void,
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
    return this.bytes;
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

  insert(doc: Document): StoredRecord {
    const keys = this.indexKeys(doc);
    this.assertUnique(keys);
    const record: StoredRecord = { seq: this.nextSeq++, doc, size: calculateObjectSize(doc) };
    this.records.add(record);
    for (const [index, indexKeys] of keys) index.insert(record, indexKeys);
    this.bytes += record.size;
    this.log({ t: 'put', db: this.db, c: this.name, d: doc });
    return record;
  }

  replace(record: StoredRecord, doc: Document): void {
    const keys = this.indexKeys(doc);
    this.assertUnique(keys, record);
    for (const [index, newKeys] of keys) {
      const oldKeys = index.keysOf(record.doc);
      if (sameKeys(oldKeys, newKeys)) continue;
      index.remove(record, oldKeys);
      index.insert(record, newKeys);
    }
    const size = calculateObjectSize(doc);
    this.bytes += size - record.size;
    record.doc = doc;
    record.size = size;
    this.log({ t: 'put', db: this.db, c: this.name, d: doc });
  }

  remove(record: StoredRecord): void {
    if (!this.records.delete(record)) return;
    for (const index of this.indexes.values()) index.remove(record, index.keysOf(record.doc));
    this.bytes -= record.size;
    this.log({ t: 'del', db: this.db, c: this.name, id: record.doc._id });
  }

  /** Adds a document without index maintenance; `rebuildIndexes` must follow (snapshot loading). */
  bulkLoad(doc: Document): void {
    const record: StoredRecord = { seq: this.nextSeq++, doc, size: calculateObjectSize(doc) };
    this.records.add(record);
    this.bytes += record.size;
  }

  rebuildIndexes(): void {
    for (const index of this.indexes.values()) index.load(this.records);
  }

  /** Creates an index over the existing documents; false when an identical one exists. */
  createIndex(spec: IndexSpec): boolean {
    if (classifyIndexRequest(spec, this.indexList().map((index) => index.spec)) === 'exists') return false;
    const index = new SortedIndex(spec);
    index.load(this.records);
    if (spec.unique) this.assertNoDuplicates(index);
    this.indexes.set(spec.name, index);
    const { v: _version, ...raw } = describeIndex(spec);
    this.log({ t: 'createIndex', db: this.db, c: this.name, spec: raw });
    return true;
  }

  dropIndex(name: string): void {
    if (name === ID_INDEX_NAME) throw new CommandError('InvalidOptions', 'cannot drop _id index');
    if (!this.indexes.delete(name)) throw new CommandError('IndexNotFound', `index not found with name [${name}]`);
    this.log({ t: 'dropIndex', db: this.db, c: this.name, name });
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
