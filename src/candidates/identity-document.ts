import type { Binary } from 'mongodb';

/**
 * The identity data accepted at registration (contract section 2.4), as the registration holds
 * it before it is stored. It is never stored like this: the repository seals it (identity-vault.ts)
 * into a StoredIdentityDoc under a key of the candidate's own (an IdentityKeyDoc), and an erasure
 * destroys that key. No read path of the product ever reads either collection.
 */
export interface CandidateIdentity {
  /** publicId of the candidate this identity belongs to */
  candidatePublicId: string;
  firstName?: string;
  lastName?: string;
  email: string;
  /**
   * emailIdentityKey of the e-mail (folded case, ignorables removed, confusables skeleton): what
   * duplicate detection compares. Stored only as a keyed hash (IdentityKeyDoc.emailKey).
   */
  emailKey: string;
  dob?: string;
  professionalNetworkLink?: string;
  phone?: string;
  refugeeAgencyNumber?: string;
  reliefAgencyNumber?: string;
  messagingAppNumber?: string;
  registrarId?: string;
  /**
   * retryToken of the REST request (with Idempotency-Key) that registered it: a hash, no identity
   * data. A retry of that request after a crash gets this registration back instead of a 409.
   */
  retryToken?: string;
  /** when the registration began: the start of its lease (WRITE_LEASE_MS) */
  createdDate: Date;
}

/** The fields of a CandidateIdentity that are identity data: what is sealed. */
export type SealedIdentityFields = Pick<
  CandidateIdentity,
  | 'firstName'
  | 'lastName'
  | 'email'
  | 'dob'
  | 'professionalNetworkLink'
  | 'phone'
  | 'refugeeAgencyNumber'
  | 'reliefAgencyNumber'
  | 'messagingAppNumber'
  | 'registrarId'
>;

/**
 * One document of `candidateIdentities`: the identity, sealed (AES-256-GCM) under the key of
 * the candidate's IdentityKeyDoc. Without that key the bytes are noise, wherever they remain
 * (a freed page of the data file, a copy of it, a backup taken before an erasure).
 */
export interface StoredIdentityDoc {
  candidatePublicId: string;
  /** version (1 byte), IV (12), GCM tag (16), ciphertext of the identity fields as JSON */
  sealed: Binary;
  createdDate: Date;
}

/**
 * One document of `candidateIdentityKeys`: the key a candidate's identity is sealed with, and
 * what duplicate detection and crash recovery read. An erasure deletes it; on the embedded
 * store the collection is a secure-delete one, whose deleted bytes leave the disk with the
 * erasure's commit (docs/operators.md, "What an erasure removes").
 */
export interface IdentityKeyDoc {
  /** the candidate's publicId */
  _id: string;
  /** 32 random bytes: the AES-256 key of the candidate's StoredIdentityDoc */
  key: Binary;
  /**
   * HMAC-SHA256 of the folded e-mail (CandidateIdentity.emailKey) under the store's e-mail key
   * secret, base64url: unique. Absent only on a record of an earlier release whose address
   * folded to an older record's key (see sealEarlierIdentities).
   */
  emailKey?: string;
  retryToken?: string;
  createdDate: Date;
}
