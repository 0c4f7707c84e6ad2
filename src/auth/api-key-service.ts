import { EpochCache } from '../cache/epoch-cache';
import { BadUserInputError, NotFoundError, UnauthenticatedError } from '../errors';
import { generateApiKey, generateKeyId, hashApiKey, isWellFormedApiKey, shownPrefix } from './api-key-format';
import {
  OPERATION_POLICIES,
  type ApiKeyRecord,
  type ApiKeyRepository,
  type OperationPolicy,
} from './api-key-repository';
import { authorize } from './authorize';
import { isPermission, PERMISSIONS, type Permission } from './permissions';
import { systemClock, type Clock } from '../common/clock';

export type { ApiKeyRecord, OperationPolicy } from './api-key-repository';

export interface CreateKeyInput {
  name: string;
  permissions: readonly string[];
  /** whole days from now; absent: the key does not expire */
  expiresInDays?: number;
  /**
   * A fixed key value instead of a random one. Only for the demo key of the embedded store
   * (DEMO_API_KEY); it must have the format of a generated key.
   */
  value?: string;
  /** this key's own budgets per minute instead of the service defaults */
  rateLimit?: { reads: number; writes: number };
  /** never rate limited (internal load tests); excludes `rateLimit` */
  unlimited?: boolean;
  /** the ε this key may spend on statistics per budget period instead of STATISTICS_BUDGET */
  statisticsBudget?: number;
  /** which GraphQL operations the key may run; absent: `any` */
  operations?: string;
}

export interface CreatedKey {
  /** the key itself: shown once, never stored */
  key: string;
  record: ApiKeyRecord;
}

export const MAX_NAME_LENGTH = 100;
export const MAX_EXPIRES_IN_DAYS = 3650;
/** Highest per-minute budget a key may be given; beyond it, make the key unlimited. */
export const MAX_RATE_LIMIT_PER_MINUTE = 1_000_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * One message for every authentication failure (missing, malformed, unknown, revoked,
 * expired): telling them apart would help whoever is probing keys, not the caller.
 */
export const INVALID_KEY_MESSAGE = 'A valid API key is required.';

export class ApiKeyService {
  /** key records by key hash, each valid for the read epoch it was looked up under */
  private readonly known: EpochCache<string, ApiKeyRecord>;

  constructor(
    private readonly keys: ApiKeyRepository,
    /** injectable so expiry can be tested without waiting */
    private readonly clock: Clock = systemClock,
    /** how many key records `authenticate` keeps between requests (READ_CACHE_ENTRIES); 0: none */
    cachedKeys = 0,
  ) {
    this.known = new EpochCache(cachedKeys);
  }

  async createKey(input: CreateKeyInput): Promise<CreatedKey> {
    const name = validateName(input.name);
    const permissions = validatePermissions(input.permissions);
    const expiresInDays = validateExpiresInDays(input.expiresInDays);
    const rateLimit = validateRateLimit(input.rateLimit, input.unlimited);
    const operations = validateOperationPolicy(input.operations);
    if (input.value !== undefined && !isWellFormedApiKey(input.value)) {
      throw new BadUserInputError('The fixed key value does not have the format of an API key.', {
        parameter: 'value',
        rule: 'format',
      });
    }

    const key = input.value ?? generateApiKey();
    const createdDate = this.clock.now();
    const record: ApiKeyRecord = { id: generateKeyId(), name, prefix: shownPrefix(key), permissions, createdDate };
    if (expiresInDays !== undefined) record.expiresAt = new Date(createdDate.getTime() + expiresInDays * DAY_MS);
    if (rateLimit !== undefined) record.rateLimit = rateLimit;
    if (input.unlimited === true) record.unlimited = true;
    if (input.statisticsBudget !== undefined)
      record.statisticsBudget = validateStatisticsBudget(input.statisticsBudget);
    if (operations === 'published') record.operations = 'published';

    await this.keys.insert({ ...record, keyHash: hashApiKey(key) });
    return { key, record };
  }

  /**
   * The record of the presented key, or UnauthenticatedError. Given the read epoch the request
   * read (src/cache/read-epoch.ts), a record looked up under the same epoch is reused: a
   * revocation advances the epoch, so it still takes effect at once, on every instance. Without
   * an epoch the store is asked every time. Unknown keys are never remembered. Expiry is
   * checked on every call.
   *
   * The lookup is by SHA-256 of the key through a unique index rather than by comparing
   * secrets: any timing difference of the index walk depends on the hash of the guess, which
   * tells an attacker nothing about the hash (let alone the key) of a real one, so no
   * constant-time comparison is needed.
   */
  async authenticate(presentedKey: string | undefined, epoch?: string): Promise<ApiKeyRecord> {
    // Malformed input is rejected before touching the store: the format is public anyway.
    if (!isWellFormedApiKey(presentedKey)) throw new UnauthenticatedError(INVALID_KEY_MESSAGE);
    const keyHash = hashApiKey(presentedKey);
    let record = epoch === undefined ? undefined : this.known.get(keyHash, epoch);
    if (record === undefined) {
      const found = await this.keys.findByKeyHash(keyHash);
      if (found === null) throw new UnauthenticatedError(INVALID_KEY_MESSAGE);
      record = epoch === undefined ? found : this.known.set(keyHash, epoch, found);
    }
    if (record.revokedAt !== undefined) throw new UnauthenticatedError(INVALID_KEY_MESSAGE);
    if (record.expiresAt !== undefined && record.expiresAt.getTime() <= this.clock.now().getTime()) {
      throw new UnauthenticatedError(INVALID_KEY_MESSAGE);
    }
    return record;
  }

  /** Throws ForbiddenError unless the key holds `permission` (ADMIN implies every permission). */
  requirePermission(record: Pick<ApiKeyRecord, 'permissions'>, permission: Permission): void {
    authorize(record, permission);
  }

  listKeys(): Promise<ApiKeyRecord[]> {
    return this.keys.list();
  }

  /** Revokes the key at once; revoking a revoked key keeps its first revocation time. */
  async revokeKey(id: string): Promise<ApiKeyRecord> {
    const record = await this.keys.revoke(id, this.clock.now());
    if (record === null) throw new NotFoundError('No API key has this id.');
    return record;
  }

  /** Gives the key its own statistics budget (ε per period); it applies from the key's next query. */
  async setStatisticsBudget(id: string, statisticsBudget: number): Promise<ApiKeyRecord> {
    const record = await this.keys.setStatisticsBudget(id, validateStatisticsBudget(statisticsBudget));
    if (record === null) throw new NotFoundError('No API key has this id.');
    return record;
  }

  /** Changes the given settings of a key, effective at once on every instance (as revocation). */
  async updateKey(id: string, input: UpdateKeyInput): Promise<ApiKeyRecord> {
    const operations = validateOperationPolicy(input.operations);
    const statisticsBudget =
      input.statisticsBudget === undefined ? undefined : validateStatisticsBudget(input.statisticsBudget);
    const record = await this.keys.update(id, { operations, statisticsBudget });
    if (record === null) throw new NotFoundError('No API key has this id.');
    return record;
  }
}

/** What `updateKey` may change; each absent field stays as it is. */
export interface UpdateKeyInput {
  operations?: string;
  /** ε per statistics budget period */
  statisticsBudget?: number;
}

function validateOperationPolicy(policy: string | undefined): OperationPolicy | undefined {
  if (policy === undefined) return undefined;
  const found = OPERATION_POLICIES.find((known) => known === policy);
  if (found === undefined) {
    throw new BadUserInputError(`The operation policy is one of ${OPERATION_POLICIES.join(', ')}.`, {
      parameter: 'operations',
      rule: 'enum',
    });
  }
  return found;
}

function validateName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed === '') throw new BadUserInputError('A key name is required.', { parameter: 'name', rule: 'required' });
  // eslint-disable-next-line no-control-regex -- control characters are what the name must not hold
  if (trimmed.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new BadUserInputError(`A key name has at most ${MAX_NAME_LENGTH} printable characters.`, {
      parameter: 'name',
      rule: 'format',
    });
  }
  return trimmed;
}

function validatePermissions(permissions: readonly unknown[] | undefined): Permission[] {
  if (!Array.isArray(permissions) || permissions.length === 0) {
    throw new BadUserInputError('At least one permission is required.', { parameter: 'permissions', rule: 'required' });
  }
  const valid: Permission[] = [];
  for (const permission of permissions) {
    if (!isPermission(permission)) {
      throw new BadUserInputError(`Unknown permission; expected some of ${PERMISSIONS.join(', ')}.`, {
        parameter: 'permissions',
        rule: 'enum',
      });
    }
    if (!valid.includes(permission)) valid.push(permission);
  }
  return valid;
}

function validateExpiresInDays(days: number | undefined): number | undefined {
  if (days === undefined) return undefined;
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRES_IN_DAYS) {
    throw new BadUserInputError(`expiresInDays must be a whole number from 1 to ${MAX_EXPIRES_IN_DAYS}.`, {
      parameter: 'expiresInDays',
      rule: 'range',
    });
  }
  return days;
}

function validateRateLimit(
  rateLimit: { reads: number; writes: number } | undefined,
  unlimited: boolean | undefined,
): { reads: number; writes: number } | undefined {
  if (rateLimit === undefined) return undefined;
  if (unlimited === true) {
    throw new BadUserInputError('A key is either unlimited or has its own rate limit, not both.', {
      parameter: 'rateLimit',
      rule: 'exclusive',
    });
  }
  const valid = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= MAX_RATE_LIMIT_PER_MINUTE;
  if (!valid(rateLimit.reads) || !valid(rateLimit.writes)) {
    throw new BadUserInputError(`Rate limits are whole numbers per minute from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}.`, {
      parameter: 'rateLimit',
      rule: 'range',
    });
  }
  return { reads: rateLimit.reads, writes: rateLimit.writes };
}

/** A key's own statistics budget: ε per period, 0 (no statistics) to 1,000,000, at most three decimals. */
export function validateStatisticsBudget(budget: number): number {
  const milli = budget * 1000;
  if (!Number.isFinite(budget) || budget < 0 || budget > 1_000_000 || Math.abs(milli - Math.round(milli)) > 1e-6) {
    throw new BadUserInputError('The statistics budget must be an ε from 0 to 1,000,000 with at most three decimals.', {
      parameter: 'statisticsBudget',
      rule: 'range',
    });
  }
  return Math.round(milli) / 1000;
}
