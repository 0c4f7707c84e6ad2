import { deserialize, serialize, type Document } from 'bson';

/** A file of the data directory that holds documents, read back at given offsets. */
export interface RecordSource {
  /** `length` bytes from `offset`, in a buffer the caller may keep. */
  read(offset: number, length: number): Uint8Array;
}

/** Where a document's bytes are in a data file. */
export interface RecordPlace {
  readonly source: RecordSource;
  readonly offset: number;
  readonly length: number;
}

/**
 * One document of a collection, kept as its BSON bytes: in memory until they are durable in a
 * data file (snapshot or journal), then only as the place of those bytes in that file, read
 * back on every use. A store of 100,000 candidates holds some 450 MB of BSON; the page cache
 * keeps it for reads without it counting in the store's memory. Documents are never mutated in
 * place: an update gives the record new bytes, so cursors and replies holding the old bytes
 * keep a consistent version.
 */
export class StoredRecord {
  private bytes: Uint8Array | undefined;
  private source: RecordSource | undefined;
  private offset = 0;
  private length: number;
  /** Counts the versions of the document, so bytes written out are only dropped if still current. */
  private version = 0;

  constructor(
    /** Insertion sequence: natural order, and the tie-breaker between equal index keys. */
    readonly seq: number,
    doc: Document | Uint8Array,
  ) {
    this.bytes = doc instanceof Uint8Array ? doc : serialize(doc);
    this.length = this.bytes.length;
  }

  /** A record whose bytes are only in a data file (loading a snapshot, replaying a journal). */
  static inFile(seq: number, place: RecordPlace): StoredRecord {
    const record = new StoredRecord(seq, EMPTY_DOCUMENT);
    record.placeInFile(place.source, place.offset, place.length);
    return record;
  }

  /** The document as BSON. */
  get bson(): Uint8Array {
    return this.bytes ?? this.source!.read(this.offset, this.length);
  }

  /** A decoded copy, made anew on every read of this property: read it once per use. */
  get doc(): Document {
    return deserialize(this.bson);
  }

  /** BSON size of the document, for collStats / dbStats. */
  get size(): number {
    return this.length;
  }

  /** True while the bytes are held in memory (not yet durable in a data file). */
  get inMemory(): boolean {
    return this.bytes !== undefined;
  }

  /** Marks the current version, for `writtenTo`. */
  get currentVersion(): number {
    return this.version;
  }

  /** Gives the record the bytes of another version of its document, or their place in a file. */
  replaceWith(doc: Document, place?: RecordPlace): void {
    this.version++;
    if (place) {
      this.placeInFile(place.source, place.offset, place.length);
      return;
    }
    this.bytes = serialize(doc);
    this.length = this.bytes.length;
    this.source = undefined;
  }

  /**
   * The bytes of `version` are durable in `source` at `offset`: the record lets go of its copy,
   * unless the document changed since (its newer bytes are written later).
   */
  writtenTo(source: RecordSource, offset: number, version: number): void {
    if (version === this.version) this.placeInFile(source, offset, this.length);
  }

  private placeInFile(source: RecordSource, offset: number, length: number): void {
    this.bytes = undefined;
    this.source = source;
    this.offset = offset;
    this.length = length;
  }
}

const EMPTY_DOCUMENT = new Uint8Array([5, 0, 0, 0, 0]);
