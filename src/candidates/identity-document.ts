/**
 * One document of `candidateIdentities`: the identity data accepted at registration
 * (contract section 2.4). Kept physically apart from `candidates`; no read path of the product
 * ever queries this collection. `emailKey` carries the unique index that detects
 * duplicate registrations.
 */
export interface CandidateIdentityDoc {
  /** publicId of the candidate this identity belongs to */
  candidatePublicId: string;
  firstName?: string;
  lastName?: string;
  email: string;
  /**
   * emailIdentityKey of the e-mail (folded case, ignorables removed, confusables skeleton): unique.
   * Identity data: never read outside duplicate detection. Absent only on a record written by an
   * earlier release whose address became the key of an older record (see backfillEmailKeys).
   */
  emailKey?: string;
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
