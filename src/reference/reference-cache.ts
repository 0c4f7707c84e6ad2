import { deepFreeze } from '../common/deep-freeze';
import {
  REFERENCE_COLLECTION_NAMES,
  referenceKeyField,
  type ReferenceCollection,
  type ReferenceDocs,
  type ReferenceKey,
} from './reference-repository';

/** What the snapshot is read from: the reference repository (its `list` gives every document in key order). */
export interface ReferenceSource {
  list<C extends ReferenceCollection>(collection: C): Promise<ReferenceDocs[C][]>;
}

type Snapshot = { [C in ReferenceCollection]: ReadonlyMap<unknown, Readonly<ReferenceDocs[C]>> };

/**
 * The reference data (countries, languages, levels, occupations, education levels and majors)
 * as stored when this instance started. It is public, the same for every caller, and does not
 * change while the process runs (the start upserts it, and nothing else writes it), so it is
 * read once instead of on every request: the resolvers of reference fields look their keys up
 * here (`find`, synchronous). STYLE forbids module-level caches of caller data; this is neither: it holds no
 * caller's data, and it belongs to the app instance (built in createServices, loaded at start).
 *
 * Documents are frozen: a resolver that mutated one would otherwise change what the next
 * request sees.
 */
export class ReferenceCache {
  private snapshot: Promise<Snapshot> | undefined;
  /** the snapshot once read, for synchronous lookups */
  private current: Snapshot | undefined;

  constructor(private readonly source: ReferenceSource) {}

  /** Reads every reference collection once; call at start. Later calls reuse that read. */
  async load(): Promise<void> {
    await this.loaded();
  }

  /**
   * The document of one key, null when the key is absent or names nothing. Synchronous: the
   * resolvers of reference fields answer from the snapshot without a promise or a loader (there
   * is nothing to batch). Only after `load`.
   */
  find<C extends ReferenceCollection>(collection: C, key: ReferenceKey<C> | null | undefined): ReferenceDocs[C] | null {
    if (this.current === undefined) throw new Error('reference data read before ReferenceCache.load()');
    if (key === null || key === undefined) return null;
    return (this.current[collection] as ReadonlyMap<unknown, ReferenceDocs[C]>).get(key) ?? null;
  }

  /** Every key of a collection, in key order (the whole known domain of a value). Only after `load`. */
  keys<C extends ReferenceCollection>(collection: C): ReferenceKey<C>[] {
    if (this.current === undefined) throw new Error('reference data read before ReferenceCache.load()');
    return [...(this.current[collection] as ReadonlyMap<ReferenceKey<C>, unknown>).keys()];
  }

  private loaded(): Promise<Snapshot> {
    this.snapshot ??= this.read().catch((error: unknown) => {
      // A failed read (database unreachable at start) is not remembered: the next call tries again.
      this.snapshot = undefined;
      throw error;
    });
    return this.snapshot;
  }

  private async read(): Promise<Snapshot> {
    const entries = await Promise.all(
      REFERENCE_COLLECTION_NAMES.map(async (collection) => {
        const field = referenceKeyField(collection);
        const docs = await this.source.list(collection);
        const byKey = new Map<unknown, unknown>(
          docs.map((doc) => [(doc as unknown as Record<string, unknown>)[field], deepFreeze(doc)]),
        );
        return [collection, byKey] as const;
      }),
    );
    this.current = Object.fromEntries(entries) as unknown as Snapshot;
    return this.current;
  }
}
