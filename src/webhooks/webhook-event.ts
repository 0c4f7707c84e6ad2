/**
 * What webhooks deliver: the events of the change outbox (src/changes/), seen through the
 * narrow reader the dispatcher needs.
 */
import type { ChangeEvent, ChangeKind } from '../changes/change-events';

export const WEBHOOK_EVENT_TYPES = [
  'REGISTERED',
  'IMPORTED',
  'UPDATED',
  'ERASED',
  'JOB_MATCH',
  'OFFER',
] as const satisfies readonly ChangeKind[];
export type WebhookEventType = ChangeKind;

/**
 * Every candidate change, as the change feed (`candidateChanges`) gives it: only to a webhook whose
 * key may read candidates (READ_CANDIDATE_DATA). JOB_MATCH and OFFER go only to a key that knows
 * the candidate they name (webhook-dispatcher.ts).
 */
export const CANDIDATE_CHANGE_TYPES: readonly WebhookEventType[] = ['REGISTERED', 'IMPORTED', 'UPDATED', 'ERASED'];

export type OutboxEvent = ChangeEvent;

export interface OutboxSource {
  /** Events with seq > after, in seq order, at most `limit`. */
  readAfter(after: number, limit: number): Promise<OutboxEvent[]>;
  /** The highest seq written so far (0 when none). */
  latestSeq(): Promise<number>;
}

/** The Standard Webhooks `type` of each kind. */
export const EVENT_TYPE_NAMES: Readonly<Record<WebhookEventType, string>> = {
  REGISTERED: 'candidate.registered',
  IMPORTED: 'candidate.imported',
  UPDATED: 'candidate.updated',
  ERASED: 'candidate.erased',
  JOB_MATCH: 'job_match.created',
  OFFER: 'offer.created',
};

/**
 * The delivery's `webhook-id`: the same for every attempt of one event to one webhook (and for
 * a duplicate after a crash), so that receivers can drop what they already processed.
 */
export function deliveryEventId(webhookId: string, seq: number): string {
  return `msg_${webhookId}_${seq}`;
}

/** The JSON body of a delivery (Standard Webhooks payload: type, timestamp, data); no identity data. */
export function deliveryPayload(event: OutboxEvent): string {
  return JSON.stringify({
    type: EVENT_TYPE_NAMES[event.kind],
    timestamp: event.at.toISOString(),
    data: {
      seq: event.seq,
      kind: event.kind,
      publicId: event.publicId,
      ...(event.offerPublicId !== undefined ? { offerPublicId: event.offerPublicId } : {}),
    },
  });
}
