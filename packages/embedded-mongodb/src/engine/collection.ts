import { deserialize, serialize, UUID, type Document } from 'bson';
import { CommandError } from '../errors';
import type { EngineSpace } from '../persistence/engine-space';
import { asBuffer, documentKey, idPrefix, recordNumberOf } from '../persistence/storage-engine';
import type { Change } from './change-log';
import { duplicateKeyError } from './duplicate-key';
import { classifyIndexRequest, describeIndex, ID_INDEX_NAME, idIndexSpec, type IndexSpec } from './index-spec';
import { SortedIndex, type IndexHost } from './sorted-index';
import { StoredRecord } from './stored-record';
import { textIndexFields } from './text/text-spec';
import { fieldNames, onlyTopLevelFields, withIdFirstInPlace } from './raw-bson';
import { compareValues } from './value-order';

type IndexKeys = Map<SortedIndex, unknown[][]>;

/** New indexes filled per pass over the documents: their sorted entries are held until appended. */
const INDEXES_PER_BUILD_PASS = 4;

function sameKeys(a: readonly unknown[][], b: readonly unknown[][]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i].length !== b[i].length) return false;
    for (let j = 0; j < a[i].length; j++) if (compareValues(a[i][j], b[i][j]) !== 0) return false;
  }
  return true;
}

/** What a collection needs of its catalog. */
export interface CollectionHost {
  readonly engine: EngineSpace;
  /** A new id for a collection or an index: never one used before in this data directory. */
  allocateId(): number;
  /** Stores the catalog's definitions (an index made or dropped, a new multikey path). */
  save(): void;
  /** Records a change (a transaction captures its own; durable stores need nothing more). */
  log(change: Change, before?: Uint8Array): void;
}

/** How a collection is stored, as the catalog saves it. */
export interface StoredCollectionDefinition {
  readonly id: number;
  readonly uuid: UUID;
  readonly indexes: readonly { readonly id: number; readonly spec: IndexSpec; readonly multikey: readonly number[] }[];
}

/**
 * The documents of one collection and their indexes, in the storage engine. Every mutation
 * checks all unique indexes before touching anything, so a rejected write leaves documents and
 * indexes as they were; each runs in a (child) transaction of the engine, all or nothing.
 */
export class Collection {
  private readonly indexes = new Map<string, SortedIndex>();
  private nextSeq: number;
  /** What this collection's indexes need of it (one object for all of them). */
  private readonly indexHost: IndexHost;
  /** Counts the writes to this collection (committed or not): what cached range counts are valid for. */
  private generation = 0;
  private readonly prefix: Buffer;
  private readonly afterLast: Buffer;
  readonly id: number;
  /** Identifies this incarnation of the collection (listCollections' info.uuid). */
  readonly uuid: UUID;

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Document,
    private readonly host: CollectionHost,
    stored?: StoredCollectionDefinition,
  ) {
    this.id = stored?.id ?? host.allocateId();
    this.uuid = stored?.uuid ?? new UUID();
    this.prefix = idPrefix(this.id);
    this.afterLast = idPrefix(this.id + 1);
    this.indexHost = {
      engine: host.engine,
      record: (seq) => this.record(seq),
      generation: () => this.generation,
    };

    if (stored) {
      for (const { id, spec, multikey } of stored.indexes) {
        const index = new SortedIndex(spec, id, this.indexHost);
        index.restoreMultikey(multikey);
        this.indexes.set(spec.name, index);
      }
    } else {
      this.indexes.set(ID_INDEX_NAME, new SortedIndex(idIndexSpec(), host.allocateId(), this.indexHost));
    }
    const last = host.engine.documents.getKeys({ start: this.afterLast, end: this.prefix, reverse: true, limit: 1 });
    let lastSeq = 0;
    for (const key of last as Iterable<Buffer>) lastSeq = recordNumberOf(key);
    this.nextSeq = lastSeq + 1;
  }

  get namespace(): string {
    return `${this.db}.${this.name}`;
  }

  /** What the catalog stores of this collection. */
  get definition(): StoredCollectionDefinition {
    return {
      id: this.id,
      uuid: this.uuid,
      indexes: this.indexList().map((index) => ({
        id: index.id,
        spec: index.spec,
        multikey: [...index.multikeyFields],
      })),
    };
  }

  get count(): number {
    return this.host.engine.count(this.id);
  }

  /** Total BSON size of the documents. */
  get dataSize(): number {
    let bytes = 0;
    for (const { value } of this.host.engine.documents.getRange({ start: this.prefix, end: this.afterLast }))
      bytes += value.length;
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

  /** The documents in insertion order, each read as it is reached. */
  naturalOrder(): Iterable<StoredRecord> {
    const range = this.host.engine.documents.getRange({ start: this.prefix, end: this.afterLast, snapshot: false });
    const read = this.reader;
    return (function* () {
      for (const { key, value } of range) yield new StoredRecord(recordNumberOf(key), read, value);
    })();
  }

  /** The record `seq` (its bytes read on first use). */
  record(seq: number): StoredRecord {
    return new StoredRecord(seq, this.reader);
  }

  private readonly reader = (seq: number): Uint8Array | undefined =>
    this.host.engine.documents.getBinary(documentKey(this.id, seq));

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
    const bson = withIdFirstInPlace(serialize(doc));
    this.generation++;
    const seq = this.host.engine.write(() => {
      const seq = this.nextSeq++;
      this.host.engine.documents.putSync(documentKey(this.id, seq), asBuffer(bson));
      this.host.engine.addCount(this.id, 1);
      for (const [index, indexKeys] of keys) index.insert(seq, indexKeys);
      this.saveMultikeyPaths();
      return seq;
    });
    this.host.log({ t: 'put', db: this.db, c: this.name, d: doc });
    return new StoredRecord(seq, this.reader, bson);
  }

  /** Throws what `insert(doc)` would throw (a key that cannot be indexed, a duplicate key), changing nothing. */
  checkInsert(doc: Document): void {
    this.assertUnique(this.indexKeys(doc));
  }

  replace(record: StoredRecord, doc: Document): void {
    const keys = this.indexKeys(doc);
    this.assertUnique(keys, record.seq);
    const oldBson = record.bson;
    const old = deserialize(oldBson);
    const bson = withIdFirstInPlace(serialize(doc));
    this.generation++;
    this.host.engine.write(() => {
      for (const [index, newKeys] of keys) {
        const oldKeys = index.keysOf(old);
        if (sameKeys(oldKeys, newKeys)) continue;
        index.remove(record.seq, oldKeys);
        index.insert(record.seq, newKeys);
      }
      this.host.engine.documents.putSync(documentKey(this.id, record.seq), asBuffer(bson));
      this.host.engine.replaced();
      this.saveMultikeyPaths();
    });
    this.host.log({ t: 'put', db: this.db, c: this.name, d: doc }, oldBson);
  }

  remove(record: StoredRecord): void {
    // Read (and kept by the record) before it goes: callers answer with the removed documents.
    const bson = record.stored();
    if (bson === undefined) return;
    const doc = deserialize(bson);
    this.generation++;
    this.host.engine.write(() => {
      for (const index of this.indexes.values()) index.remove(record.seq, index.keysOf(doc));
      this.host.engine.documents.removeSync(documentKey(this.id, record.seq));
      this.host.engine.addCount(this.id, -1);
    });
    this.host.log({ t: 'del', db: this.db, c: this.name, id: doc._id }, bson);
  }

  /** Removes every document and index entry (the collection is being dropped). */
  clear(): void {
    this.generation++;
    this.host.engine.atomic(() => {
      for (const index of this.indexes.values()) index.clear();
      const { documents } = this.host.engine;
      for (const key of documents.getKeys({ start: this.prefix, end: this.afterLast }) as Iterable<Buffer>)
        documents.removeSync(key);
      this.host.engine.forgetCount(this.id);
    });
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
    return this.host.engine.atomic(() => {
      const created = this.newIndexes(specs);
      if (created.length === 0) return 0;
      for (let i = 0; i < created.length; i += INDEXES_PER_BUILD_PASS)
        this.build(created.slice(i, i + INDEXES_PER_BUILD_PASS));
      for (const index of created) {
        this.indexes.set(index.name, index);
        const { v: _version, ...raw } = describeIndex(index.spec);
        this.host.log({ t: 'createIndex', db: this.db, c: this.name, spec: raw });
      }
      this.host.save();
      return created.length;
    });
  }

  /**
   * Fills new indexes from the stored documents in one pass: each index's entries are collected,
   * sorted, and appended to the B-tree in order (its id is the newest, so its entries come after
   * every stored one), which fills pages whole instead of splitting them at random. Of each
   * document only the top-level fields the indexes read are decoded (all of it when a partial
   * filter may look anywhere).
   */
  private build(indexes: readonly SortedIndex[]): void {
    const whole = indexes.some(
      (index) =>
        index.spec.partialFilterExpression !== undefined || (index.spec.text && !textIndexFields(index.spec.text)),
    );
    const names = fieldNames(
      indexes.flatMap((index) =>
        index.spec.text ? (textIndexFields(index.spec.text) ?? []) : index.spec.fields.map((field) => field.parts[0]),
      ),
    );
    const entries = indexes.map((): string[] => []);
    for (const record of this.naturalOrder()) {
      const doc = whole ? record.doc : deserialize(onlyTopLevelFields(record.bson, names));
      for (let i = 0; i < indexes.length; i++)
        for (const key of indexes[i].keysOf(doc)) entries[i].push(indexes[i].sortableEntry(key, record.seq));
    }
    for (let i = 0; i < indexes.length; i++) {
      const conflict = indexes[i].appendSorted(entries[i]);
      if (conflict) throw duplicateKeyError(this.namespace, indexes[i].spec, conflict);
    }
  }

  dropIndex(name: string): void {
    if (name === ID_INDEX_NAME) throw new CommandError('InvalidOptions', 'cannot drop _id index');
    const index = this.indexes.get(name);
    if (!index) throw new CommandError('IndexNotFound', `index not found with name [${name}]`);
    this.host.engine.atomic(() => {
      index.clear();
      this.indexes.delete(name);
      this.host.save();
    });
    this.host.log({ t: 'dropIndex', db: this.db, c: this.name, name });
  }

  /** Indexes for those of `specs` that neither exist nor repeat an earlier one, not yet added. */
  private newIndexes(specs: readonly IndexSpec[]): SortedIndex[] {
    const created: SortedIndex[] = [];

    for (const spec of specs) {
      const existing = [...this.indexes.values(), ...created].map((index) => index.spec);
      if (classifyIndexRequest(spec, existing) !== 'exists')
        created.push(new SortedIndex(spec, this.host.allocateId(), this.indexHost));
    }
    return created;
  }

  /** Saves new multikey paths with the write that found them; should it roll back, they stay to save. */

  private saveMultikeyPaths(): void {
    // Runs after every write: allocates nothing unless a path is new.
    let anyChanged = false;
    for (const index of this.indexes.values()) anyChanged ||= index.multikeyChanged;
    if (!anyChanged) return;
    const changed = [...this.indexes.values()].filter((index) => index.multikeyChanged);
    this.host.save();
    for (const index of changed) {
      index.multikeyChanged = false;
      this.host.engine.onRollback(() => {
        index.multikeyChanged = true;
      });
    }
  }

  private indexKeys(doc: Document): IndexKeys {
    const keys: IndexKeys = new Map();
    for (const index of this.indexes.values()) {
      const indexKeys = index.keysOf(doc);
      index.checkKeys(indexKeys);
      keys.set(index, indexKeys);
    }
    return keys;
  }

  private assertUnique(keys: IndexKeys, self?: number): void {
    for (const [index, indexKeys] of keys) {
      if (!index.spec.unique) continue;
      const conflict = index.conflictingKey(indexKeys, self);
      if (conflict) throw duplicateKeyError(this.namespace, index.spec, conflict);
    }
  }
}
