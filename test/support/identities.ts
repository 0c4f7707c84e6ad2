import type { Db } from 'mongodb';
import { COLLECTIONS } from '../../src/app/indexes';
import type { IdentityKeyDoc, SealedIdentityFields, StoredIdentityDoc } from '../../src/candidates/identity-document';
import { IdentityVault, openIdentity } from '../../src/candidates/identity-vault';
import { emailIdentityKey } from '../../src/candidates/text-input';

/**
 * The identity stored for a candidate, opened with its key (what an operator's own tool would
 * read); null when its key or its sealed document is gone.
 */
export async function openedIdentity(db: Db, publicId: string): Promise<SealedIdentityFields | null> {
  const key = await db.collection<IdentityKeyDoc>(COLLECTIONS.candidateIdentityKeys).findOne({ _id: publicId });
  const stored = await db
    .collection<StoredIdentityDoc>(COLLECTIONS.candidateIdentities)
    .findOne({ candidatePublicId: publicId });
  return key === null || stored === null ? null : openIdentity(key, stored);
}

/** How many registrations hold `email` (the keys carrying the HMAC of its folded form). */
export async function registrationsOfEmail(db: Db, email: string): Promise<number> {
  const emailKey = await new IdentityVault(db).emailKeyOf(emailIdentityKey(email));
  return db.collection(COLLECTIONS.candidateIdentityKeys).countDocuments({ emailKey });
}
