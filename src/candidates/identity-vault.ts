import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { Binary, type Db } from 'mongodb';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import type { CandidateIdentity, IdentityKeyDoc, SealedIdentityFields, StoredIdentityDoc } from './identity-document';

/** The `_id` of the e-mail key secret among the keys: no publicId has this form. */
const EMAIL_KEY_SECRET_ID = 'email-key-secret';
const SEAL_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

const SEALED_FIELDS: readonly (keyof SealedIdentityFields)[] = [
  'firstName',
  'lastName',
  'email',
  'dob',
  'professionalNetworkLink',
  'phone',
  'refugeeAgencyNumber',
  'reliefAgencyNumber',
  'messagingAppNumber',
  'registrarId',
];

/**
 * How identities are stored so that an erasure can destroy them for good (crypto-shredding):
 * each candidate's identity is sealed with AES-256-GCM under a random key of its own, kept in
 * `candidateIdentityKeys`; erasing the candidate deletes that key, and the sealed bytes, wherever
 * a copy of them survives, can no longer be read. The folded e-mail that detects duplicates is
 * kept beside the key only as an HMAC under a secret of the store (one document of the same
 * collection, made once), so that no key of the store spells an address.
 *
 * The secret is read once per vault; a vault belongs to one repository (no module-level state).
 */
export class IdentityVault {
  private secret: Promise<Buffer> | undefined;

  constructor(private readonly db: Db) {}

  /** The two documents that store `identity`: its new key (with the e-mail's HMAC) and the identity sealed under it. */
  async seal(identity: CandidateIdentity): Promise<{ key: IdentityKeyDoc; identity: StoredIdentityDoc }> {
    const key = randomBytes(KEY_BYTES);
    const { candidatePublicId, createdDate, retryToken } = identity;
    return {
      key: {
        _id: candidatePublicId,
        key: new Binary(key),
        emailKey: await this.emailKeyOf(identity.emailKey),
        ...(retryToken === undefined ? {} : { retryToken }),
        createdDate,
      },
      identity: { candidatePublicId, sealed: sealIdentity(key, candidatePublicId, identity), createdDate },
    };
  }

  /** The stored form of a folded e-mail (emailIdentityKey): its HMAC under the store's secret, base64url. */
  async emailKeyOf(folded: string): Promise<string> {
    return createHmac('sha256', await this.emailKeySecret())
      .update(folded, 'utf8')
      .digest('base64url');
  }

  private emailKeySecret(): Promise<Buffer> {
    this.secret ??= this.loadSecret().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }

  /** Reads the secret, made at the first use of the store (every instance reads the one that won). */
  private async loadSecret(): Promise<Buffer> {
    const keys = this.db.collection<IdentityKeyDoc>(CANDIDATE_COLLECTIONS.candidateIdentityKeys);
    const stored = await keys.findOne({ _id: EMAIL_KEY_SECRET_ID }, { projection: { key: 1 } });
    if (stored !== null) return Buffer.from(stored.key.buffer);
    const made = { _id: EMAIL_KEY_SECRET_ID, key: new Binary(randomBytes(KEY_BYTES)), createdDate: new Date() };
    try {
      await keys.insertOne(made);
      return Buffer.from(made.key.buffer);
    } catch (error) {
      // Two first uses at once: one insert wins, the other reads what it stored.
      if ((error as { code?: unknown }).code !== 11000) throw error;
      const winner = await keys.findOne({ _id: EMAIL_KEY_SECRET_ID }, { projection: { key: 1 } });
      if (winner === null) throw error;
      return Buffer.from(winner.key.buffer);
    }
  }
}

/** `identity`'s identity fields as JSON, sealed under `key` and bound to the candidate's publicId. */
export function sealIdentity(key: Buffer, candidatePublicId: string, identity: SealedIdentityFields): Binary {
  const fields: Record<string, string> = {};
  for (const name of SEALED_FIELDS) {
    const value = identity[name];
    if (value !== undefined) fields[name] = value;
  }
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(candidatePublicId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(fields), 'utf8'), cipher.final()]);
  return new Binary(Buffer.concat([Buffer.from([SEAL_VERSION]), iv, cipher.getAuthTag(), ciphertext]));
}

/**
 * The identity sealed in `stored`, opened with its key: for an operator's own tools and the
 * tests that prove identities stay readable. No read path of the product calls it. Throws when
 * the key is not the one it was sealed with, or the bytes were changed.
 */
export function openIdentity(key: IdentityKeyDoc, stored: StoredIdentityDoc): SealedIdentityFields {
  const bytes = Buffer.from(stored.sealed.buffer);
  if (bytes[0] !== SEAL_VERSION) throw new Error(`unknown seal version ${bytes[0]}`);
  const iv = bytes.subarray(1, 1 + IV_BYTES);
  const tag = bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key.key.buffer), iv);
  decipher.setAAD(Buffer.from(stored.candidatePublicId, 'utf8'));
  decipher.setAuthTag(tag);
  const plain = Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as SealedIdentityFields;
}
