import { REFERENCE_COLLECTION_NAMES, referenceKeyField, type ReferenceCollection, type ReferenceDocs, type ReferenceKey } from './reference-repository';

/** What the snapshot is read from: the reference repository (its `list` gives every document in key order). */
export interface ReferenceSource {
  list<C extends ReferenceCollection>(collection: C): Promise<ReferenceDocs[C][]>;
}

type Snapshot = { [C in ReferenceCollection]: ReadonlyMap<unknown, Readonly<ReferenceDocs[C]>> };

/**
 * The reference data (countries, languages, levels, occupations, education levels and majors)
 * as stored when this instance started. It is public, the same for every caller, and does not
 * change while the process runs (the start upserts it, and nothing else writes it), so it is
 * read once instead of on every request: the per-request loaders' batch functions look their
 * keys up here. STYLE forbids module-level caches of caller data; this is neither: it holds no
 * caller's data, and it belongs to the app instance (built in createServices, loaded at start).
 *
 * Documents are frozen: a resolver that mutated one would otherwise change what the next
 * request sees.
 */
export class ReferenceCache {
  private snapshot: Promise<Snapshot> | undefined;

  constructor(private readonly source: ReferenceSource) {}

  /** Reads every reference collection once; call at start. Later calls reuse that read. */
  async load(): Promise<void> {
    await this.loaded();
  }

  /** The documents of these keys that exist, in key order (the contract of ReferenceRepository.findByKeys). */
  async findByKeys<C extends ReferenceCollection>(collection: C, keys: readonly ReferenceKey<C>[]): Promise<ReferenceDocs[C][]> {
    const byKey = (await this.loaded())[collection] as ReadonlyMap<unknown, ReferenceDocs[C]>;
    const found: ReferenceDocs[C][] = [];
    for (const key of keys) {
      const doc = byKey.get(key);
      if (doc !== undefined) found.push(doc);
    }
    return found;
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
        const byKey = new Map<unknown, unknown>(docs.map((doc) => [(doc as unknown as Record<string, unknown>)[field], deepFreeze(doc)]));
        return [collection, byKey] as const;
      }),
    );
    return Object.fromEntries(entries) as unknown as Snapshot;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
