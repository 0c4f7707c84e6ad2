import { serialize } from 'bson';

/** Documents per first batch when the client names no batchSize (MongoDB's default). */
export const DEFAULT_FIRST_BATCH = 101;

/** Room for the documents of one reply: 16 MB minus space for the reply envelope. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024 - 64 * 1024;

/** Cursors idle this long are dropped, as mongod does after cursorTimeoutMillis. */
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

/** Turns one item of a result into the BSON the client gets (a projection, or nothing to do). */
export type Encoder = (item: never) => Uint8Array;

/** Items that are documents: serialised as they are. */
export const SERIALIZED: Encoder = (doc: object) => serialize(doc);

/**
 * A server-side cursor over an already computed result: stored documents' bytes (or computed
 * documents), which are never changed in place, so later batches see the versions the query
 * matched.
 */
export class ServerCursor {
  private position = 0;
  lastUsed = Date.now();

  constructor(
    readonly id: number,
    readonly ns: string,
    private readonly items: readonly unknown[],
    private readonly encode: (item: unknown) => Uint8Array,
  ) {}

  get exhausted(): boolean {
    return this.position >= this.items.length;
  }

  /** Encodes up to `maxDocs` further documents, stopping before the reply would pass 16 MB. */
  nextBatch(maxDocs: number): Uint8Array[] {
    this.lastUsed = Date.now();
    const end = Math.min(this.items.length, this.position + maxDocs);
    const batch: Uint8Array[] = [];
    let bytes = 0;
    while (this.position < end) {
      const encoded = this.encode(this.items[this.position]);
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

  /** A cursor over `items`, each encoded by `encode` when its batch is sent. */
  open<T>(ns: string, items: readonly T[], encode: (item: T) => Uint8Array): ServerCursor {
    const cursor = new ServerCursor(this.nextId++, ns, items, encode as (item: unknown) => Uint8Array);
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
