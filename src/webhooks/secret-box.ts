import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

/**
 * How signing secrets are kept in `webhooks`. The service must be able to sign, so a secret
 * cannot be stored as a hash like an API key. With WEBHOOK_SECRET_KEY set, each secret is
 * sealed with AES-256-GCM under that key, so a copy of the database (a backup, a dump) does not
 * let anyone forge deliveries; without it, secrets are stored as they are.
 */
export interface SecretBox {
  seal(secret: string): string;
  /** Throws when the stored value is sealed and this box has no key (or another key). */
  open(stored: string): string;
}

/** `key`: 32 bytes, or undefined to store secrets unsealed (and open only unsealed ones). */
export function createSecretBox(key: Buffer | undefined): SecretBox {
  return {
    seal(secret) {
      if (key === undefined) return secret;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return PREFIX + [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      if (key === undefined) throw new Error('a webhook secret is sealed and WEBHOOK_SECRET_KEY is not set');
      const [iv, tag, sealed] = stored
        .slice(PREFIX.length)
        .split('.')
        .map((part) => Buffer.from(part, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
    },
  };
}
