import { deserialize, serialize, type Document } from 'bson';

/**
 * One document of a collection, kept as its BSON bytes: about a third of the memory of the
 * decoded object, and what replies and snapshots copy as they are. Documents are never mutated
 * in place: an update gives the record new bytes, so cursors and replies holding the old bytes
 * keep a consistent version.
 */
export class StoredRecord {
  private bytes: Uint8Array;

  constructor(
    /** Insertion sequence: natural order, and the tie-breaker between equal index keys. */
    readonly seq: number,
    doc: Document | Uint8Array,
  ) {
    this.bytes = doc instanceof Uint8Array ? doc : serialize(doc);
  }

  /** The document as BSON. */
  get bson(): Uint8Array {
    return this.bytes;
  }

  /** A decoded copy, made anew on every read of this property: read it once per use. */
  get doc(): Document {
    return deserialize(this.bytes);
  }

  /** BSON size of the document, for collStats / dbStats. */
  get size(): number {
    return this.bytes.length;
  }

  /** Gives the record the bytes of another version of its document. */
  replaceWith(doc: Document): void {
    this.bytes = serialize(doc);
  }
}
