import type { IndexSpec } from '../store/indexes';

/** The append-only collection of audit events (part of the operator contract, like COLLECTIONS). */
export const AUDIT_COLLECTION = 'auditEvents';

/**
 * Indexes of `auditEvents`: the ADMIN query reads newest first, in (time, eventId) order,
 * optionally for one API key and a time range. No TTL: how long the trail is kept is the
 * operator's decision (archive or delete by `time`).
 */
export const auditIndexes: readonly IndexSpec[] = [
  { collection: AUDIT_COLLECTION, key: { eventId: 1 }, options: { name: 'auditEvents_eventId_unique', unique: true } },
  { collection: AUDIT_COLLECTION, key: { time: -1, eventId: -1 }, options: { name: 'auditEvents_time_eventId' } },
  { collection: AUDIT_COLLECTION, key: { apiKeyId: 1, time: -1, eventId: -1 }, options: { name: 'auditEvents_apiKeyId_time_eventId' } },
];
