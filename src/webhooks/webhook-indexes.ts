import type { IndexSpec } from '../store/indexes';

/** The collections of webhooks (part of the operator contract, like COLLECTIONS). */
export const WEBHOOK_COLLECTIONS = {
  webhooks: 'webhooks',
  webhookDeliveries: 'webhookDeliveries',
} as const;

/**
 * One document, read by `_id` (no index, like `readEpoch`): the endpoint rules of the service that
 * started last on the store, which the webhooks command applies.
 */
export const WEBHOOK_SETTINGS_COLLECTION = 'webhookSettings';

/**
 * `webhooks` is read whole by the dispatcher (a handful of documents) and by id. A delivery is
 * stored once an event's first attempt fails (a 2xx at the first attempt only moves the
 * webhook's cursor): one per (webhook, event), read by webhook and state.
 */
export const webhookIndexes: readonly IndexSpec[] = [
  { collection: WEBHOOK_COLLECTIONS.webhooks, key: { id: 1 }, options: { name: 'webhooks_id', unique: true } },
  {
    collection: WEBHOOK_COLLECTIONS.webhookDeliveries,
    key: { webhookId: 1, seq: 1 },
    options: { name: 'webhookDeliveries_webhookId_seq', unique: true },
  },
  {
    collection: WEBHOOK_COLLECTIONS.webhookDeliveries,
    key: { webhookId: 1, state: 1, nextAttemptAt: 1 },
    options: { name: 'webhookDeliveries_webhookId_state_nextAttemptAt' },
  },
  // A delivered record only tells an operator that a retry got through: kept for 30 days after
  // its last attempt (a partial TTL index). Dead letters stay until replayed or their webhook goes.
  {
    collection: WEBHOOK_COLLECTIONS.webhookDeliveries,
    key: { lastAttemptAt: 1 },
    options: {
      name: 'webhookDeliveries_delivered_ttl',
      expireAfterSeconds: 30 * 24 * 60 * 60,
      partialFilterExpression: { state: 'DELIVERED' },
    },
  },
];
