import type { Collection, Db } from 'mongodb';
import { AUDIT_COLLECTION } from '../audit/audit-indexes';
import { conflictOnDuplicate } from '../store/duplicate-key';
import type { EndpointPolicy } from './address-guard';
import type { OutboxEvent, WebhookEventType } from './webhook-event';
import { WEBHOOK_COLLECTIONS, WEBHOOK_SETTINGS_COLLECTION } from './webhook-indexes';

/** One document of `webhooks`. */
export interface WebhookDoc {
  /** `wh_` + 12 base64url chars */
  id: string;
  /** the key whose partner it serves (`key_…`) */
  apiKeyId: string;
  url: string;
  eventTypes: WebhookEventType[];
  /**
   * The signing secret (`whsec_…`), sealed when WEBHOOK_SECRET_KEY is set (secret-box.ts). Kept
   * because every delivery is signed with it; never returned by any read of this repository
   * except signingSecret(), never logged.
   */
  secret: string;
  createdDate: Date;
  /** the highest outbox seq this webhook is done with (delivered, dead-lettered or not for it) */
  cursor: number;
  /** the instance delivering for this webhook, until `until` (the injected clock's time) */
  lease?: { owner: string; until: Date };
}

/** A webhook as the rest of the code sees it: never its secret. */
export type WebhookRecord = Omit<WebhookDoc, 'secret' | 'lease'>;

export type DeliveryState = 'RETRYING' | 'DELIVERED' | 'DEAD_LETTER' | 'REPLAY';

/** One document of `webhookDeliveries`: an event whose first attempt failed. */
export interface DeliveryDoc {
  webhookId: string;
  seq: number;
  eventId: string;
  event: OutboxEvent;
  state: DeliveryState;
  attempts: number;
  /** HTTP status of the last attempt; null when it got none (refused, timeout, reset) */
  lastStatus: number | null;
  /** why the last attempt failed, without any identity data (a status or a network error code) */
  lastError: string | null;
  lastAttemptAt: Date;
  /** when the next attempt is due; null once delivered or dead-lettered */
  nextAttemptAt: Date | null;
}

/** The endpoint rules a service started with, as it recorded them. */
export interface RecordedEndpointPolicy {
  policy: EndpointPolicy;
  recordedAt: Date;
}

interface EndpointPolicyDoc extends EndpointPolicy {
  _id: 'endpointPolicy';
  recordedAt: Date;
}

const RECORD_PROJECTION = { _id: 0, secret: 0, lease: 0 } as const;

export class WebhookRepository {
  private readonly webhooks: Collection<WebhookDoc>;
  private readonly deliveries: Collection<DeliveryDoc>;

  private readonly settings: Collection<EndpointPolicyDoc>;

  constructor(private readonly db: Db) {
    this.webhooks = db.collection<WebhookDoc>(WEBHOOK_COLLECTIONS.webhooks);
    this.deliveries = db.collection<DeliveryDoc>(WEBHOOK_COLLECTIONS.webhookDeliveries);
    this.settings = db.collection<EndpointPolicyDoc>(WEBHOOK_SETTINGS_COLLECTION);
  }

  /**
   * Records the endpoint rules a service starts with (the last start wins), so that the webhooks
   * command applies the service's rules rather than those of its own environment.
   */
  async recordEndpointPolicy(policy: EndpointPolicy, at: Date): Promise<void> {
    await this.settings.replaceOne(
      { _id: 'endpointPolicy' },
      { allowHttp: policy.allowHttp, allowPrivateAddresses: policy.allowPrivateAddresses, recordedAt: at },
      { upsert: true },
    );
  }

  /** The endpoint rules of the service that started last on this store; null when none has. */
  async recordedEndpointPolicy(): Promise<RecordedEndpointPolicy | null> {
    const doc = await this.settings.findOne({ _id: 'endpointPolicy' });
    if (doc === null) return null;
    return {
      policy: { allowHttp: doc.allowHttp, allowPrivateAddresses: doc.allowPrivateAddresses },
      recordedAt: doc.recordedAt,
    };
  }

  async insert(doc: WebhookDoc): Promise<void> {
    await conflictOnDuplicate(() => this.webhooks.insertOne({ ...doc }), 'A webhook with the same id already exists.');
  }

  findById(id: string): Promise<WebhookRecord | null> {
    return this.webhooks.findOne({ id }, { projection: RECORD_PROJECTION });
  }

  /** Every webhook, oldest first. */
  list(): Promise<WebhookRecord[]> {
    return this.webhooks.find({}, { projection: RECORD_PROJECTION, sort: { createdDate: 1, id: 1 } }).toArray();
  }

  /** Removes the webhook and its deliveries; false when `id` is unknown. */
  async remove(id: string): Promise<boolean> {
    const { deletedCount } = await this.webhooks.deleteOne({ id });
    await this.deliveries.deleteMany({ webhookId: id });
    return deletedCount === 1;
  }

  async signingSecret(id: string): Promise<string | null> {
    const doc = await this.webhooks.findOne({ id }, { projection: { _id: 0, secret: 1 } });
    return doc?.secret ?? null;
  }

  /**
   * Takes the lease of the webhook for `owner` until `until` when it is free, expired or already
   * `owner`'s; the webhook (without secret) when taken, else null.
   */
  async acquireLease(id: string, owner: string, now: Date, until: Date): Promise<WebhookRecord | null> {
    return this.webhooks.findOneAndUpdate(
      { id, $or: [{ lease: { $exists: false } }, { 'lease.until': { $lte: now } }, { 'lease.owner': owner }] },
      { $set: { lease: { owner, until } } },
      { projection: RECORD_PROJECTION, returnDocument: 'after' },
    );
  }

  /** Gives the lease up so that any instance may take the webhook at its next poll. */
  async releaseLease(id: string, owner: string): Promise<void> {
    await this.webhooks.updateOne({ id, 'lease.owner': owner }, { $unset: { lease: '' } });
  }

  /**
   * Moves the cursor forward to `seq` (never back) and extends the lease, while `owner` still
   * holds it; false when the lease was lost (another instance took over after it expired).
   */
  async advanceCursor(id: string, owner: string, seq: number, leaseUntil: Date): Promise<boolean> {
    const { matchedCount } = await this.webhooks.updateOne(
      { id, 'lease.owner': owner },
      { $max: { cursor: seq }, $set: { 'lease.until': leaseUntil } },
    );
    return matchedCount === 1;
  }

  /** Extends the lease while `owner` holds it; false when it was lost. */
  async extendLease(id: string, owner: string, leaseUntil: Date): Promise<boolean> {
    const { matchedCount } = await this.webhooks.updateOne(
      { id, 'lease.owner': owner },
      { $set: { 'lease.until': leaseUntil } },
    );
    return matchedCount === 1;
  }

  findDelivery(webhookId: string, seq: number): Promise<DeliveryDoc | null> {
    return this.deliveries.findOne({ webhookId, seq }, { projection: { _id: 0 } });
  }

  async saveDelivery(doc: DeliveryDoc): Promise<void> {
    await this.deliveries.updateOne({ webhookId: doc.webhookId, seq: doc.seq }, { $set: doc }, { upsert: true });
  }

  /** Replays due now, oldest first. */
  dueReplays(webhookId: string, now: Date, limit: number): Promise<DeliveryDoc[]> {
    return this.deliveries
      .find({ webhookId, state: 'REPLAY', nextAttemptAt: { $lte: now } }, { projection: { _id: 0 }, sort: { seq: 1 } })
      .limit(limit)
      .toArray();
  }

  /** The deliveries of a webhook, newest event first; only those in `state` when given. */
  listDeliveries(webhookId: string, state: DeliveryState | undefined, limit: number): Promise<DeliveryDoc[]> {
    return this.deliveries
      .find({ webhookId, ...(state ? { state } : {}) }, { projection: { _id: 0 }, sort: { seq: -1 } })
      .limit(limit)
      .toArray();
  }

  /** Turns a dead letter into a replay due at `at`; null when there is no such dead letter. */
  replayDeadLetter(webhookId: string, seq: number, at: Date): Promise<DeliveryDoc | null> {
    return this.deliveries.findOneAndUpdate(
      { webhookId, seq, state: 'DEAD_LETTER' },
      { $set: { state: 'REPLAY', attempts: 0, nextAttemptAt: at } },
      { projection: { _id: 0 }, returnDocument: 'after' },
    );
  }

  /**
   * True when the audit trail shows that the key registered or received this candidate: what
   * makes a candidate one of "that key's partner's" candidates (the audit trail is the one
   * record of which key got which candidate; erasure tells the same recipients).
   */
  async keyKnowsCandidate(apiKeyId: string, publicId: string): Promise<boolean> {
    const found = await this.db
      .collection(AUDIT_COLLECTION)
      .findOne({ apiKeyId, candidatePublicIds: publicId, status: { $lt: 400 } }, { projection: { _id: 1 } });
    return found !== null;
  }
}
