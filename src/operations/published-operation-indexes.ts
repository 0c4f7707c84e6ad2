import type { IndexSpec } from '../store/indexes';

/** The operations published for API keys whose policy is `published` (part of the operator contract). */
export const PUBLISHED_OPERATION_COLLECTION = 'publishedOperations';

/** One document per key and operation id: publishing the same manifest twice stores nothing new. */
export const publishedOperationIndexes: readonly IndexSpec[] = [
  {
    collection: PUBLISHED_OPERATION_COLLECTION,
    key: { keyId: 1, operationId: 1 },
    options: { name: 'publishedOperations_keyId_operationId', unique: true },
  },
];
