import { serialize, type Document } from 'bson';

/** Documents per first batch when the client names no batchSize (MongoDB's default). */
export const DEFAULT_FIRST_BATCH = 101;

/** Room for the documents of one reply: 16 MB minus space for the reply envelope. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024 - 64 * 1024;

/** Cursors idle this long are dropped, as mongod does after cursorTimeoutMillis. */
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

/** Turns a stored document into what the client sees (projection). */
export type Presenter = (doc: Document) => Document;

export const AS_STORED: Presenter = (doc) => doc;

/**
 * A server-side cursor over an already computed result: references to stored documents, which
 * are never mutated in place, so later batches see the versions the query matched.
 */
export class ServerCursor {
  private position = 0;
  lastUsed = Date.now();

  constructor(
    readonly id: number,
    readonly ns: string,
    private readonly docs: Document[],
    private readonly present: Presenter,
  ) {}

  get exhausted(): boolean {
    return this.position >= this.docs.length;
  }

  /** Encodes up to `maxDocs` further documents, stopping before the reply would pass 16 MB. */
  nextBatch(maxDocs: number): Uint8Array[] {
    this.lastUsed = Date.now();
    const end = Math.min(this.docs.length, this.position + maxDocs);
    const batch: Uint8Array[] = [];
    let bytes = 0;
    while (this.position < end) {
      const encoded = serialize(this.present(this.docs[this.position]));
      if (batch.length > 0 && bytes + encoded.length > MAX_BATCH_BYTES) break;
      batch.push(encoded);
      bytes += encoded.length;
      this.position++;
    }
    return batch;
  }
}

/** The open cursors of one store. */
export class CursorRegistry {
  private readonly cursors = new Map<number, ServerCursor>();
  // Ids start at a random point so ids from before a restart are unlikely to be reused.
  private nextId = 1 + Math.floor(Math.random() * 2 ** 31);

  open(ns: string, docs: Document[], present: Presenter): ServerCursor {
    const cursor = new ServerCursor(this.nextId++, ns, docs, present);
    this.cursors.set(cursor.id, cursor);
    return cursor;
  }

  get(id: number): ServerCursor | undefined {
    return this.cursors.get(id);
  }

  close(id: number): boolean {
    return this.cursors.delete(id);
  }

  get size(): number {
    return this.cursors.size;
  }

  /** Drops cursors nobody has read from within the idle timeout. */
  sweep(now = Date.now()): void {
    for (const [id, cursor] of this.cursors) {
      if (now - cursor.lastUsed > IDLE_TIMEOUT_MS) this.cursors.delete(id);
    }
  }
}
