import type { IndexSpec } from '../store/indexes';

/** The append-only collection of audit events (part of the operator contract, like COLLECTIONS). */
export const AUDIT_COLLECTION = 'auditEvents';

/** The TTL index on `time` that AUDIT_RETENTION_DAYS sets. */
export const AUDIT_RETENTION_INDEX = 'auditEvents_time_retention_ttl';

/**
 * Indexes of `auditEvents`: the ADMIN query reads newest first, in (time, eventId) order,
 * optionally for one API key and a time range. An event's `_id` is its eventId, which makes it
 * unique without an index of its own (every request writes an event: one index less to keep).
 * How long the trail is kept is AUDIT_RETENTION_DAYS: its TTL index (AUDIT_RETENTION_INDEX) is
 * made at start from the setting (applyAuditRetention), not listed here.
 */
export const auditIndexes: readonly IndexSpec[] = [
  { collection: AUDIT_COLLECTION, key: { time: -1, eventId: -1 }, options: { name: 'auditEvents_time_eventId' } },
  {
    collection: AUDIT_COLLECTION,
    key: { apiKeyId: 1, time: -1, eventId: -1 },
    options: { name: 'auditEvents_apiKeyId_time_eventId' },
  },
];
