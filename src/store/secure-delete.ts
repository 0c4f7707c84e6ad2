import { STORAGE_ENGINE_NAME } from 'embedded-mongodb';
import type { Db } from 'mongodb';

/**
 * Collections whose deleted documents must not stay readable on the disk, on the store that can
 * promise it: the embedded store keeps a collection created with
 * `storageEngine: { embedded: { secureDelete: true } }` where a commit that deletes from it
 * removes the deleted bytes (its README, "secure-delete collections"). A real MongoDB has no
 * such option (mongod refuses the options of an engine it does not have), so there they are
 * ordinary collections and docs/operators.md says what an operator does instead.
 */

/** Whether `db` is served by the embedded store (its storage engine is listed by buildInfo). */
export async function isEmbeddedStore(db: Db): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return Array.isArray(info.storageEngines) && (info.storageEngines as unknown[]).includes(STORAGE_ENGINE_NAME);
}

/**
 * Creates the collections of `names` as secure-delete collections on the embedded store (before
 * anything else creates them as ordinary ones); idempotent. One that exists as an ordinary
 * collection is made secure-delete when empty, and refused when it holds documents: they would
 * stay on the disk after their deletion, so the start stops with what to do.
 */
export async function ensureSecureDeleteCollections(db: Db, names: readonly string[]): Promise<void> {
  if (names.length === 0 || !(await isEmbeddedStore(db))) return;
  const options = { storageEngine: { [STORAGE_ENGINE_NAME]: { secureDelete: true } } };
  for (const name of names) {
    const [existing] = await db.listCollections({ name }).toArray();
    if (existing !== undefined) {
      const current = (existing as { options?: { storageEngine?: Record<string, { secureDelete?: boolean }> } })
        .options;
      if (current?.storageEngine?.[STORAGE_ENGINE_NAME]?.secureDelete === true) continue;
      if ((await db.collection(name).estimatedDocumentCount()) > 0)
        throw new Error(
          `collection ${name} holds documents but was not created for secure deletion; ` +
            'restore the data directory from a backup made by `npm run backup`, or copy its documents out, drop it and start again',
        );
      await db.collection(name).drop();
    }
    await db.createCollection(name, options).catch((error: unknown) => {
      // Another instance or tool created it meanwhile, with the same options.
      if ((error as { codeName?: unknown }).codeName !== 'NamespaceExists') throw error;
    });
  }
}

/**
 * Rewrites the storage of `name` without its free space (the `compact` command) on the embedded
 * store, where that removes the bytes of deleted documents from the disk; resolves with the bytes
 * freed, or undefined on a real MongoDB, where compaction is the operator's (docs/operators.md).
 */
export async function compactOnEmbeddedStore(db: Db, name: string): Promise<number | undefined> {
  if (!(await isEmbeddedStore(db))) return undefined;
  const reply = await db.command({ compact: name });
  return typeof reply.bytesFreed === 'number' ? reply.bytesFreed : 0;
}
