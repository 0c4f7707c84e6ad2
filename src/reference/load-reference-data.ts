import { isDeepStrictEqual } from 'node:util';
import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import { isDuplicateKeyError } from '../store/duplicate-key';
import { REFERENCE_DATA_COLLECTIONS } from './reference-indexes';
import { REFERENCE_COLLECTIONS } from './reference-data';
import { REFERENCE_COLLECTION_NAMES, type ReferenceCollection } from './reference-repository';

/**
 * Writes every reference document that is not stored as shipped: a missing one is inserted, one
 * that differs is replaced by the shipped one of the same key. Idempotent: running it again,
 * or after a release changed a name, leaves exactly the shipped data, and a start over data that
 * is already current only reads (about a thousand documents), never writes. Documents no longer
 * shipped are left in place, since candidates may still point at them. Returns the number of
 * documents per collection.
 */
export async function loadReferenceData(db: Db): Promise<Record<ReferenceCollection, number>> {
  const counts = {} as Record<ReferenceCollection, number>;
  for (const collection of REFERENCE_COLLECTION_NAMES) {
    const { keyField: field, load } = REFERENCE_COLLECTIONS[collection];
    const docs: readonly Document[] = load();
    const store = db.collection(REFERENCE_DATA_COLLECTIONS[collection]);
    const stored = new Map<unknown, Document>();
    for (const doc of await store.find({}, { projection: { _id: 0 } }).toArray()) stored.set(doc[field], doc);
    const missing = docs.filter((doc) => !stored.has(doc[field]));
    const changed = docs.filter((doc) => stored.has(doc[field]) && !isDeepStrictEqual(stored.get(doc[field]), doc));
    if (missing.length > 0) {
      try {
        await store.insertMany(
          missing.map((doc) => ({ ...doc })),
          { ordered: false },
        );
      } catch (error) {
        // Another instance starting at the same time inserted some of them: replace those instead.
        if (!isDuplicateKeyError(error)) throw error;
        changed.push(...missing);
      }
    }
    if (changed.length > 0) {
      const operations: AnyBulkWriteOperation<Document>[] = changed.map((doc) => ({
        replaceOne: { filter: { [field]: doc[field] as unknown }, replacement: { ...doc }, upsert: true },
      }));
      await store.bulkWrite(operations, { ordered: false });
    }
    counts[collection] = docs.length;
  }
  return counts;
}
