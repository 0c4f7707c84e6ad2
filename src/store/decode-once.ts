import { BSON, type Collection, type Document, type Filter, type FindOptions } from 'mongodb';

/**
 * `collection.find(filter, options).toArray()`, each document decoded once.
 *
 * With command monitoring on (connectDatabase sets it: the command metrics and the tests'
 * command counts need its events), the driver decodes every reply whole to put it in its
 * CommandSucceededEvent, and then decodes each document again for the cursor: every document
 * read twice. Asked for raw documents, it leaves them as bytes in the event (`fieldsAsRaw` of
 * the batch) and hands them over as bytes, decoded here once, with the driver's own defaults
 * (promoted values, UTF-8 validated).
 */
export async function findDecodedOnce<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  options: FindOptions = {},
): Promise<T[]> {
  const documents = (await collection.find(filter, { ...options, raw: true }).toArray()) as unknown as Uint8Array[];
  return documents.map((bytes) => BSON.deserialize(bytes) as T);
}

/** findOne through findDecodedOnce: the first document, or null. */
export async function findOneDecodedOnce<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  options: FindOptions = {},
): Promise<T | null> {
  const [first] = await findDecodedOnce(collection, filter, { ...options, limit: 1, batchSize: 1 });
  return first ?? null;
}

/**
 * `collection.find(filter, options).toArray()` as the stored bytes of each document, decoded
 * never: for readers that write their answer from the bytes (src/rest/transcoder/). The driver
 * serves `raw: true` the same from MongoDB and from the embedded store.
 */
export async function findRaw<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  options: FindOptions = {},
): Promise<Uint8Array[]> {
  return (await collection.find(filter, { ...options, raw: true }).toArray()) as unknown as Uint8Array[];
}
