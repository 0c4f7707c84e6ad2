import type { Collection, Db } from 'mongodb';
import { advanceReadEpoch } from '../cache/read-epoch';
import { conflictOnDuplicate } from '../store/duplicate-key';
import { API_KEY_COLLECTION } from './api-key-indexes';
import type { Permission } from './permissions';

/** One document of `apiKeys`. The key itself is never stored, only its SHA-256. */
export interface ApiKeyDoc {
  /** short public id, `key_` + 12 base64url chars: unique */
  id: string;
  name: string;
  /** the first characters of the key, shown in lists so operators can recognise it */
  prefix: string;
  /** SHA-256 hex of the whole key: unique */
  keyHash: string;
  permissions: Permission[];
  createdDate: Date;
  expiresAt?: Date;
  revokedAt?: Date;
  /** this key's own budgets per minute; absent: the service defaults (RATE_LIMIT_READS/WRITES) */
  rateLimit?: { reads: number; writes: number };
  /** true for internal load-test keys: never rate limited, nothing counted */
  unlimited?: boolean;
  /** the ε this key may spend on statistics per budget period; absent: STATISTICS_BUDGET */
  statisticsBudget?: number;
  /** which GraphQL operations the key may run; absent (keys made before the policy existed): `any` */
  operations?: OperationPolicy;
}

/** `any`: every document; `published`: only the operations published for the key (and every /v1 route). */
export type OperationPolicy = 'any' | 'published';
export const OPERATION_POLICIES: readonly OperationPolicy[] = ['any', 'published'];

/** A key record as the rest of the code sees it: no `_id`, no hash. */
export type ApiKeyRecord = Omit<ApiKeyDoc, 'keyHash'>;

export interface ApiKeyRepository {
  /** Throws ConflictError when the id or the key hash already exists. */
  insert(doc: ApiKeyDoc): Promise<void>;
  findByKeyHash(keyHash: string): Promise<ApiKeyRecord | null>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  /** Every key, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Sets revokedAt unless already set (the first revocation time stays); null when `id` is unknown. */
  revoke(id: string, at: Date): Promise<ApiKeyRecord | null>;
  /** Sets the key's own statistics budget (ε per period); null when `id` is unknown. */
  setStatisticsBudget(id: string, statisticsBudget: number): Promise<ApiKeyRecord | null>;
  /** Sets the settable fields given; null when `id` is unknown. Takes effect at once on every instance. */
  update(id: string, changes: KeyChanges): Promise<ApiKeyRecord | null>;
}

/** What an operator may change on an existing key (`npm run keys -- update`). */
export interface KeyChanges {
  operations?: OperationPolicy;
  statisticsBudget?: number;
}

export function createApiKeyRepository(db: Db): ApiKeyRepository {
  const collection: Collection<ApiKeyDoc> = db.collection<ApiKeyDoc>(API_KEY_COLLECTION);

  const findById = async (id: string) => {
    const doc = await collection.findOne({ id });
    return doc === null ? null : toRecord(doc);
  };

  return {
    async insert(doc) {
      // A copy: insertOne adds `_id` to the object it is given.
      await conflictOnDuplicate(
        () => collection.insertOne({ ...doc }),
        'An API key with the same id or value already exists.',
      );
    },

    async findByKeyHash(keyHash) {
      const doc = await collection.findOne({ keyHash });
      return doc === null ? null : toRecord(doc);
    },

    findById,

    async list() {
      const docs = await collection.find({}).sort({ createdDate: 1, id: 1 }).toArray();
      return docs.map(toRecord);
    },

    async revoke(id, at) {
      await collection.updateOne({ id, revokedAt: { $exists: false } }, { $set: { revokedAt: at } });
      // Cached key records of every instance stop being used from here on. Also when the key
      // was revoked already: a retry after a failure between the two writes must still mark it.
      await advanceReadEpoch(db);
      return findById(id);
    },

    async setStatisticsBudget(id, statisticsBudget) {
      await collection.updateOne({ id }, { $set: { statisticsBudget } });
      // Cached key records of every instance are read again with the new budget.
      await advanceReadEpoch(db);
      return findById(id);
    },

    async update(id, changes) {
      const set: Partial<ApiKeyDoc> = {};
      if (changes.operations !== undefined) set.operations = changes.operations;
      if (changes.statisticsBudget !== undefined) set.statisticsBudget = changes.statisticsBudget;
      if (Object.keys(set).length > 0) await collection.updateOne({ id }, { $set: set });
      // As revoke: cached key records of every instance stop being used from here on.
      await advanceReadEpoch(db);
      return findById(id);
    },
  };
}

/** Copies the known fields only, so neither `_id` nor the hash nor stray fields leave the repository. */
function toRecord(doc: ApiKeyDoc): ApiKeyRecord {
  const record: ApiKeyRecord = {
    id: doc.id,
    name: doc.name,
    prefix: doc.prefix,
    permissions: [...doc.permissions],
    createdDate: doc.createdDate,
  };
  if (doc.expiresAt !== undefined && doc.expiresAt !== null) record.expiresAt = doc.expiresAt;
  if (doc.revokedAt !== undefined && doc.revokedAt !== null) record.revokedAt = doc.revokedAt;
  if (doc.rateLimit !== undefined && doc.rateLimit !== null)
    record.rateLimit = { reads: doc.rateLimit.reads, writes: doc.rateLimit.writes };
  if (doc.unlimited === true) record.unlimited = true;
  if (typeof doc.statisticsBudget === 'number') record.statisticsBudget = doc.statisticsBudget;
  if (doc.operations === 'published') record.operations = 'published';
  return record;
}
