import { createHash, randomUUID } from 'node:crypto';

/**
 * Public ids of candidates, saved lists, job matches and offers: the 16 bytes of a UUID v4,
 * base64url without padding (22 characters of `[A-Za-z0-9_-]`). Short enough for URLs,
 * and the 122 random bits make them unguessable, unlike sequential numbers.
 */
const PUBLIC_ID = /^[A-Za-z0-9_-]{22}$/;

/** The rule a public id follows, as both transports state it when refusing one. */
export const PUBLIC_ID_RULE = '22 characters of A-Z, a-z, 0-9, _ or -';

/** A new random public id. */
export function newPublicId(): string {
  return publicIdFromUuid(randomUUID());
}

/** True when `value` has the shape of a public id. */
export function isPublicId(value: unknown): value is string {
  return typeof value === 'string' && PUBLIC_ID.test(value);
}

/**
 * The public id of a UUID given in its canonical text form. Lets seeded data derive
 * reproducible ids from a seeded UUID generator.
 */
export function publicIdFromUuid(uuid: string): string {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new TypeError('not a UUID');
  return Buffer.from(hex, 'hex').toString('base64url');
}

/**
 * The public id of the write of one request, derived from its retry token (a secret-free hash of
 * the caller, its Idempotency-Key and its body): every attempt of the request names its write
 * with the same id, so the unique index on the id refuses a second copy. 128 bits of a SHA-256
 * of a token no one else can form keep it as unguessable as a random one.
 */
export function publicIdOfRetry(kind: string, retryToken: string): string {
  return createHash('sha256').update(`${kind}\n${retryToken}`).digest().subarray(0, 16).toString('base64url');
}
