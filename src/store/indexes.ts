import type { Db, IndexDescription } from 'mongodb';

/**
 * One index: its collection, key pattern and options as `createIndex` takes them. The name
 * is explicit, so that an operator can recognise the index and a changed key fails loudly.
 * Each area declares the indexes of its own collections (`src/<area>/*-indexes.ts`); the
 * composition root (src/app/indexes.ts) gathers them and hands them to ensureIndexes.
 */
export interface IndexSpec {
  readonly collection: string;
  /** ascending (1), descending (-1), or a field of the collection's one text index ('text') */
  readonly key: Readonly<Record<string, 1 | -1 | 'text'>>;
  readonly options: {
    readonly name: string;
    readonly unique?: boolean;
    readonly expireAfterSeconds?: number;
    readonly partialFilterExpression?: Readonly<Record<string, unknown>>;
    /** a text index: the weight of each field (1 when not named) */
    readonly weights?: Readonly<Record<string, number>>;
    /** a text index: the language of its stemming and stop words */
    readonly default_language?: string;
    /** a text index: the field of a document that names its language instead (default `language`) */
    readonly language_override?: string;
  };
}

/** An index an earlier release created and the current one no longer has, dropped by name at start. */
export interface SupersededIndex {
  readonly collection: string;
  readonly name: string;
}

/** Drops the indexes of `superseded` that exist; idempotent. */
export async function dropSupersededIndexes(db: Db, superseded: readonly SupersededIndex[]): Promise<void> {
  for (const { collection, name } of superseded) {
    await db
      .collection(collection)
      .dropIndex(name)
      .catch((error: unknown) => {
        // IndexNotFound (27), NamespaceNotFound (26): nothing to drop.
        const code = (error as { code?: unknown }).code;
        if (code !== 27 && code !== 26) throw error;
      });
  }
}

/**
 * Creates every index of `indexes`, once per collection. Idempotent: an index that already
 * exists with the same name and key is left alone. An index of the same name with another
 * key or options makes this throw (the server's IndexOptionsConflict / IndexKeySpecsConflict):
 * such drift is for an operator to resolve, never silently dropped at start.
 */
export async function ensureIndexes(db: Db, indexes: readonly IndexSpec[]): Promise<void> {
  const byCollection = new Map<string, IndexDescription[]>();
  for (const spec of indexes) {
    const descriptions = byCollection.get(spec.collection) ?? [];
    descriptions.push({ ...spec.options, key: { ...spec.key } });
    byCollection.set(spec.collection, descriptions);
  }
  for (const [collection, descriptions] of byCollection) {
    await db.collection(collection).createIndexes(descriptions);
  }
}
