/** The collection of API keys (part of the operator contract, like every collection name). */
export const API_KEY_COLLECTION = 'apiKeys';

/**
 * One index of `apiKeys`. `name` and `unique` are what the central ensureIndexes reads
 * (src/store/indexes.ts IndexSpec); `options` repeats them in the driver's createIndex shape.
 */
export interface ApiKeyIndexSpec {
  readonly collection: 'apiKeys';
  readonly name: string;
  readonly key: Readonly<Record<string, 1 | -1>>;
  readonly unique?: boolean;
  readonly options: { readonly unique?: boolean; readonly name: string };
}

function uniqueIndex(name: string, field: string): ApiKeyIndexSpec {
  return { collection: 'apiKeys', name, key: { [field]: 1 }, unique: true, options: { unique: true, name } };
}

/**
 * Indexes the API key repository relies on: `keyHash` makes authentication one indexed
 * lookup, and both unique indexes turn a duplicate into a ConflictError instead of two
 * records answering to one key or one id.
 */
export const apiKeyIndexes: ApiKeyIndexSpec[] = [
  uniqueIndex('apiKeys_id_unique', 'id'),
  uniqueIndex('apiKeys_keyHash_unique', 'keyHash'),
];
