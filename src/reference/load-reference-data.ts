import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import { REFERENCE_DATA_COLLECTIONS } from './reference-indexes';
import { REFERENCE_COLLECTIONS } from './reference-data';
import { REFERENCE_COLLECTION_NAMES, type ReferenceCollection } from './reference-repository';

/**
 * Writes every reference document, replacing the stored one of the same key (upsert).
 * Idempotent: running it again, or after a release changed a name, leaves exactly the
 * shipped data. Documents no longer shipped are left in place, since candidates may still
 * point at them. Returns the number of documents per collection.
 */
export async function loadReferenceData(db: Db): Promise<Record<ReferenceCollection, number>> {
  const counts = {} as Record<ReferenceCollection, number>;
  for (const collection of REFERENCE_COLLECTION_NAMES) {
    const { keyField: field, load } = REFERENCE_COLLECTIONS[collection];
    const docs: readonly Document[] = load();
    const operations: AnyBulkWriteOperation<Document>[] = docs.map((doc) => ({
      replaceOne: { filter: { [field]: doc[field] as unknown }, replacement: { ...doc }, upsert: true },
    }));
    if (operations.length > 0)
      await db.collection(REFERENCE_DATA_COLLECTIONS[collection]).bulkWrite(operations, { ordered: false });
    counts[collection] = docs.length;
  }
  return counts;
}
