import { randomBytes } from 'node:crypto';
import { Binary, type Db, type ObjectId } from 'mongodb';
import { isDuplicateKeyError } from '../store/duplicate-key';
import { CANDIDATE_COLLECTIONS } from './candidate-indexes';
import type { IdentityKeyDoc, SealedIdentityFields, StoredIdentityDoc } from './identity-document';
import { IdentityVault, sealIdentity } from './identity-vault';
import { emailIdentityKey } from './text-input';

/** An identity as earlier releases stored it: its fields in clear (and the e-mail's key, in one form or another). */
type EarlierIdentityDoc = SealedIdentityFields & {
  _id: ObjectId;
  candidatePublicId: string;
  email: string;
  emailKey?: string;
  emailNormalised?: string;
  retryToken?: string;
  createdDate: Date;
};

/**
 * Seals every identity an earlier release stored in clear (see identity-vault.ts): each gets a key
 * of its own in `candidateIdentityKeys`, with the HMAC of its folded e-mail, and its document is
 * replaced by the sealed one. Oldest first: where two earlier identities fold to one e-mail key
 * (they looked the same, and would be refused today), the older keeps the key and the later gets
 * none, so nothing is deleted and a new registration of that address is refused all the same.
 * Run at start, after the indexes; a no-op once done, and safe to run again after a crash half
 * way (an identity whose key was stored before the crash is sealed under that key).
 *
 * The clear bytes stay in the store's free space until it is compacted: the caller compacts
 * `candidateIdentities` when this sealed anything.
 */
export async function sealEarlierIdentities(db: Db): Promise<{ sealed: number; unkeyed: number }> {
  // Documents of two shapes: the earlier ones (read) and the sealed ones (written).
  const identities = db.collection(CANDIDATE_COLLECTIONS.candidateIdentities);
  const keys = db.collection<IdentityKeyDoc>(CANDIDATE_COLLECTIONS.candidateIdentityKeys);
  const vault = new IdentityVault(db);
  let sealed = 0;
  let unkeyed = 0;
  const earlier = identities.find({ sealed: { $exists: false } }).sort({ createdDate: 1, _id: 1 });
  for await (const found of earlier) {
    const identity = found as unknown as EarlierIdentityDoc;
    const { candidatePublicId, createdDate, retryToken } = identity;
    let key = await keys.findOne({ _id: candidatePublicId });
    if (key === null) {
      const made: IdentityKeyDoc = {
        _id: candidatePublicId,
        key: new Binary(randomBytes(32)),
        emailKey: await vault.emailKeyOf(emailIdentityKey(identity.email)),
        ...(retryToken === undefined ? {} : { retryToken }),
        createdDate,
      };
      try {
        await keys.insertOne(made);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        delete made.emailKey;
        await keys.insertOne(made);
        unkeyed += 1;
      }
      key = made;
    }
    const replacement: StoredIdentityDoc = {
      candidatePublicId,
      sealed: sealIdentity(Buffer.from(key.key.buffer), candidatePublicId, identity),
      createdDate,
    };
    await identities.replaceOne({ _id: identity._id }, replacement);
    sealed += 1;
  }
  return { sealed, unkeyed };
}
