import type { Db } from 'mongodb';
import { COLLECTIONS } from '../../src/app/indexes';

/**
 * The parts of a store's registrations that are not whole: identities whose candidate or key does
 * not exist, keys without their identity, and registered candidates (those with a registrarId, as
 * every registration through the API in these tests has) whose identity does not. Reads only
 * publicIds, never identity data.
 */
export async function halfWrittenRegistrations(db: Db): Promise<{
  identitiesWithoutCandidate: string[];
  candidatesWithoutIdentity: string[];
  identitiesWithoutKey: string[];
  keysWithoutIdentity: string[];
}> {
  const identityIds = (
    await db
      .collection(COLLECTIONS.candidateIdentities)
      .find({}, { projection: { _id: 0, candidatePublicId: 1 } })
      .toArray()
  ).map((doc) => doc.candidatePublicId as string);
  const candidateIds = (
    await db
      .collection(COLLECTIONS.candidates)
      .find({ registrarId: { $exists: true } }, { projection: { _id: 0, publicId: 1 } })
      .toArray()
  ).map((doc) => doc.publicId as string);
  const identities = new Set(identityIds);
  const candidates = new Set(
    (
      await db
        .collection(COLLECTIONS.candidates)
        .find({ publicId: { $in: identityIds } }, { projection: { _id: 0, publicId: 1 } })
        .toArray()
    ).map((doc) => doc.publicId as string),
  );
  // Keys are named by publicId; the one other key is the store's e-mail key secret.
  const keyIds = (
    await db
      .collection<{ _id: string }>(COLLECTIONS.candidateIdentityKeys)
      .find({ key: { $exists: true }, createdDate: { $exists: true } }, { projection: { _id: 1 } })
      .toArray()
  )
    .map((doc) => doc._id)
    .filter((id) => id !== 'email-key-secret');
  const keys = new Set(keyIds);
  return {
    identitiesWithoutCandidate: identityIds.filter((id) => !candidates.has(id)),
    candidatesWithoutIdentity: candidateIds.filter((id) => !identities.has(id)),
    identitiesWithoutKey: identityIds.filter((id) => !keys.has(id)),
    keysWithoutIdentity: keyIds.filter((id) => !identities.has(id)),
  };
}

/** Fails unless every registration of the store is whole (see halfWrittenRegistrations). */
export async function expectWholeRegistrations(db: Db): Promise<void> {
  expect(await halfWrittenRegistrations(db)).toEqual({
    identitiesWithoutCandidate: [],
    candidatesWithoutIdentity: [],
    identitiesWithoutKey: [],
    keysWithoutIdentity: [],
  });
}
