import { deserialize } from 'bson';
import { decodeTyped } from './typed-numbers';

/**
 * One document of a collection, by its record number: its bytes are read from the storage
 * engine on first use and kept by this object, which stands for the version it read. Records
 * are made per read (a scan, a lookup by _id); updates store new bytes under the same number,
 * so cursors and replies holding a record's bytes keep the version the query matched.
 */
export class StoredRecord {
  private bytes: Uint8Array | undefined;

  constructor(
    /** Insertion sequence: natural order, and the tie-breaker between equal index keys. */
    readonly seq: number,
    private readonly read: (seq: number) => Uint8Array | undefined,
    bytes?: Uint8Array,
  ) {
    this.bytes = bytes;
  }

  /** The document as BSON. */
  get bson(): Uint8Array {
    const bytes = this.stored();
    if (bytes === undefined) throw new Error(`record ${this.seq} is not stored`);
    return bytes;
  }

  /** The bytes, read now if not yet (and kept); undefined when the record is not stored. */
  stored(): Uint8Array | undefined {
    this.bytes ??= this.read(this.seq);
    return this.bytes;
  }

  /**
   * A decoded copy, each number of the BSON type it is stored as (typed-numbers.ts), made anew
   * on every read of this property: read it once per use.
   */
  get doc(): Document {
    return decodeTyped(this.bson);
  }

  /** A decoded copy with every number a JavaScript number, for mingo's expressions (aggregation). */
  get plainDoc(): Document {
    return deserialize(this.bson);
  }

  /** BSON size of the document, for collStats / dbStats. */
  get size(): number {
    return this.bson.length;
  }
}

type Document = ReturnType<typeof deserialize>;
