import { createHash, randomBytes } from 'node:crypto';

/**
 * Format of API keys: `cdk_` + 32 random bytes (256 bits) in base64url, 43 characters.
 * The recognisable prefix lets secret scanners and people tell the key apart from other tokens.
 */
export const API_KEY_PREFIX = 'cdk_';
const KEY_RANDOM_BYTES = 32;
const KEY_BODY = /^[A-Za-z0-9_-]{43}$/;

/** Characters of the key stored and listed in clear for recognition: `cdk_` + 6 random chars (36 of 256 bits). */
export const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(KEY_RANDOM_BYTES).toString('base64url');
}

/**
 * True when `value` has exactly the shape generateApiKey produces: the prefix and a canonical
 * base64url encoding of 32 bytes (rejects e.g. a body whose last character carries stray bits).
 */
export function isWellFormedApiKey(value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith(API_KEY_PREFIX)) return false;
  const body = value.slice(API_KEY_PREFIX.length);
  if (!KEY_BODY.test(body)) return false;
  const bytes = Buffer.from(body, 'base64url');
  return bytes.length === KEY_RANDOM_BYTES && bytes.toString('base64url') === body;
}

/**
 * SHA-256 (hex) of the whole key. A fast hash is enough here: the key has 256 bits of
 * entropy, so neither brute force nor a dictionary can invert it, and a slow KDF
 * (bcrypt, scrypt) would only add latency to every authenticated request. Salting is not
 * needed for the same reason, and an unsalted hash can be looked up through a unique index.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function shownPrefix(key: string): string {
  return key.slice(0, SHOWN_PREFIX_LENGTH);
}

/** Public id of a key record: `key_` + 12 base64url chars (72 random bits). */
export function generateKeyId(): string {
  return 'key_' + randomBytes(9).toString('base64url');
}
