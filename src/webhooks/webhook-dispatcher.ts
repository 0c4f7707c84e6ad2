import { randomUUID } from 'node:crypto';
import { hasPermission, type Permission } from '../auth/permissions';
import type { Clock } from '../common/clock';
import { retryDelayMs } from './backoff';
import type { AttemptResult, DeliveryRequest } from './delivery-client';
import {
  CANDIDATE_CHANGE_TYPES,
  deliveryEventId,
  deliveryPayload,
  type OutboxEvent,
  type OutboxSource,
} from './webhook-event';
import type { SecretBox } from './secret-box';
import type { DeliveryDoc, WebhookRecord, WebhookRepository } from './webhook-repository';

export interface DispatcherOptions {
  /** WEBHOOK_MAX_ATTEMPTS: attempts of one event before it is dead-lettered */
  maxAttempts: number;
  /** WEBHOOK_BACKOFF_BASE_MS / WEBHOOK_BACKOFF_MAX_MS */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** WEBHOOK_POLL_MS: how often the outbox and due retries are looked at */
  pollMs: number;
  /** WEBHOOK_LEASE_MS: how long an instance holds a webhook without renewing it */
  leaseMs: number;
  /** WEBHOOK_CONCURRENCY: webhooks this instance delivers to at once (each one attempt at a time) */
  concurrency: number;
  /** events read per webhook per turn */
  batchSize?: number;
  random?: () => number;
}

/**
 * The API keys as the dispatcher needs them: a revoked or expired key's webhook gets nothing more,
 * and one whose key may not read candidates gets no candidate change.
 */
export interface DispatcherKeys {
  findById(id: string): Promise<{ permissions: readonly Permission[]; revokedAt?: Date; expiresAt?: Date } | null>;
}

export interface DispatcherLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Delivers the outbox to every webhook, at least once and in seq order per webhook.
 *
 * Each webhook has a cursor in the store (the last seq it is done with) that moves only after a
 * 2xx (or a dead letter), so a restart resumes at the first event not confirmed. An instance
 * delivers for a webhook only while it holds the webhook's lease (an owner and an expiry from
 * the injected clock, renewed at every step), so several instances do not deliver the same
 * events concurrently; a crash leaves the lease to expire, and the next holder sends again what
 * was not confirmed, with the same webhook-id. An event that fails waits for its retry (backoff
 * with jitter) before the webhook's later events: receivers see them in order.
 *
 * Each webhook is delivered on its own schedule: a poll puts every webhook in line, and up to
 * `concurrency` of them are served at once, each in turns of its own, one attempt at a time (the
 * order its receiver sees). A turn ends when the webhook is caught up, waits for a retry or lost
 * its lease, or, while others wait for a slot, after each attempt: the webhook then goes to the
 * back of the line. So a slow, failing or backlogged endpoint delays only itself, and a backlog
 * is delivered without waiting for the next poll.
 */
export class WebhookDispatcher {
  private readonly owner = `dispatcher_${randomUUID()}`;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** webhooks waiting for a slot, longest waiting first */
  private readonly waiting: string[] = [];
  /** turns in progress, by webhook id */
  private readonly serving = new Map<string, Promise<void>>();
  private started = false;
  private stopped = false;

  constructor(
    private readonly repository: WebhookRepository,
    private readonly outbox: OutboxSource,
    private readonly send: (request: DeliveryRequest) => Promise<AttemptResult>,
    private readonly clock: Clock,
    private readonly options: DispatcherOptions,
    private readonly log: DispatcherLog,
    private readonly keys: DispatcherKeys,
    private readonly secrets: SecretBox,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Stops polling and waits for the turns in progress (their attempts are bounded by their timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    await Promise.all(this.serving.values());
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.polling = this.poll()
        .catch((error: unknown) => this.log.warn({ err: error }, 'webhook dispatch failed; retrying at the next poll'))
        .finally(() => {
          this.polling = undefined;
          this.schedule(this.options.pollMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  /** Puts every webhook that is neither served nor waiting in line, and starts as many turns as there are free slots. */
  private async poll(): Promise<void> {
    for (const { id } of await this.repository.list())
      if (!this.serving.has(id) && !this.waiting.includes(id)) this.waiting.push(id);
    this.fill();
  }

  /**
   * One poll, then waits until every webhook is caught up, waiting for a retry or held by another
   * instance (exposed for tests, which move the clock between polls).
   */
  async pollOnce(): Promise<void> {
    await this.poll();
    while (this.serving.size > 0) await Promise.race(this.serving.values());
  }

  private fill(): void {
    while (!this.stopped && this.serving.size < this.options.concurrency && this.waiting.length > 0) {
      const webhookId = this.waiting.shift()!;
      const turn = this.serve(webhookId)
        .catch((error: unknown) => {
          this.log.warn({ err: error, webhookId }, 'webhook delivery failed; retrying at the next poll');
          return false;
        })
        .then((more) => {
          this.serving.delete(webhookId);
          if (more && !this.stopped) this.waiting.push(webhookId);
          this.fill();
        });
      this.serving.set(webhookId, turn);
    }
  }

  /** True while another webhook waits for a slot: a turn then ends after its attempt. */
  private othersWaiting(): boolean {
    return this.waiting.length > 0;
  }

  private leaseUntil(): Date {
    return new Date(this.clock.now().getTime() + this.options.leaseMs);
  }

  /** One turn of a webhook; true when it ended with events left to send now (it goes back in line). */
  private async serve(webhookId: string): Promise<boolean> {
    const webhook = await this.repository.acquireLease(webhookId, this.owner, this.clock.now(), this.leaseUntil());
    if (webhook === null) return false;
    const key = await this.activeKey(webhook.apiKeyId);
    if (key === null) {
      await this.repository.releaseLease(webhookId, this.owner);
      return false;
    }
    try {
      const stored = await this.repository.signingSecret(webhookId);
      if (stored === null) return false;
      const secret = this.secrets.open(stored);
      if (await this.replays(webhook, secret)) return true;
      return await this.stream(webhook, secret, hasPermission(key.permissions, 'READ_CANDIDATE_DATA'));
    } finally {
      await this.repository.releaseLease(webhookId, this.owner).catch(() => undefined);
    }
  }

  /** Sends the replays that are due; true when the turn ends here to let other webhooks go first. */
  private async replays(webhook: WebhookRecord, secret: string): Promise<boolean> {
    for (const delivery of await this.repository.dueReplays(webhook.id, this.clock.now(), 10)) {
      if (this.stopped || !(await this.repository.extendLease(webhook.id, this.owner, this.leaseUntil()))) return false;
      const result = await this.attempt(webhook, secret, delivery.event);
      await this.repository.saveDelivery(this.next(delivery, result, 'REPLAY'));
      if (this.othersWaiting()) return true;
    }
    return false;
  }

  /** Sends the webhook's next events in order; true when events are left to send now. */
  private async stream(webhook: WebhookRecord, secret: string, readsCandidates: boolean): Promise<boolean> {
    const batchSize = this.options.batchSize ?? 100;
    const events = await this.outbox.readAfter(webhook.cursor, batchSize);
    // `done`: the last seq this webhook is done with; stored with the next write (and at the end).
    let done = webhook.cursor;
    let stored = webhook.cursor;
    let more = events.length === batchSize;
    for (const event of events) {
      if (this.stopped) break;
      if (!(await this.wants(webhook, event, readsCandidates))) {
        done = event.seq;
        continue;
      }
      const earlier = await this.repository.findDelivery(webhook.id, event.seq);
      if (earlier?.state === 'RETRYING' && earlier.nextAttemptAt !== null && earlier.nextAttemptAt > this.clock.now()) {
        more = false;
        break;
      }
      // Renews the lease before the attempt: false when another instance took the webhook over.
      if (!(await this.repository.advanceCursor(webhook.id, this.owner, done, this.leaseUntil()))) return false;
      stored = done;
      // Delivered or dead-lettered before a crash stopped the cursor moving: nothing to send.
      if (earlier === null || earlier.state === 'RETRYING') {
        const result = await this.attempt(webhook, secret, event);
        if (result.ok) {
          if (earlier !== null) await this.repository.saveDelivery(this.next(earlier, result, 'RETRYING'));
        } else {
          const delivery = this.next(earlier ?? this.first(webhook, event), result, 'RETRYING');
          await this.repository.saveDelivery(delivery);
          if (delivery.state === 'RETRYING') return false;
        }
        // Only now is the event done with: a crash before the cursor is stored sends it again, same id.
        done = event.seq;
        if (this.othersWaiting()) {
          more = true;
          break;
        }
        continue;
      }
      done = event.seq;
    }
    if (done > stored) await this.repository.advanceCursor(webhook.id, this.owner, done, this.leaseUntil());
    return more && !this.stopped;
  }

  /** A webhook serves its key: once the key is revoked or expired (null here), its cursor stays where it is. */
  private async activeKey(apiKeyId: string): Promise<{ permissions: readonly Permission[] } | null> {
    const key = await this.keys.findById(apiKeyId);
    const now = this.clock.now();
    const active = key !== null && key.revokedAt === undefined && (key.expiresAt === undefined || key.expiresAt > now);
    return active ? key : null;
  }

  /**
   * Candidate changes go to every webhook that asked for their kind while its key may read
   * candidates; without that permission they are skipped (the cursor passes them: they are not
   * held for a later grant, which the change feed serves). Job matches and offers go only to a key
   * that knows the candidate.
   */
  private async wants(webhook: WebhookRecord, event: OutboxEvent, readsCandidates: boolean): Promise<boolean> {
    if (!webhook.eventTypes.includes(event.kind)) return false;
    if (CANDIDATE_CHANGE_TYPES.includes(event.kind)) return readsCandidates;
    return this.repository.keyKnowsCandidate(webhook.apiKeyId, event.publicId);
  }

  private attempt(webhook: WebhookRecord, secret: string, event: OutboxEvent): Promise<AttemptResult> {
    return this.send({
      url: webhook.url,
      secret,
      eventId: deliveryEventId(webhook.id, event.seq),
      payload: deliveryPayload(event),
      timestamp: this.clock.now(),
    });
  }

  private first(webhook: WebhookRecord, event: OutboxEvent): DeliveryDoc {
    return {
      webhookId: webhook.id,
      seq: event.seq,
      eventId: deliveryEventId(webhook.id, event.seq),
      event,
      state: 'RETRYING',
      attempts: 0,
      lastStatus: null,
      lastError: null,
      lastAttemptAt: this.clock.now(),
      nextAttemptAt: null,
    };
  }

  /** The delivery after one more attempt: delivered, due again (in `retryState`) or dead-lettered. */
  private next(delivery: DeliveryDoc, result: AttemptResult, retryState: 'RETRYING' | 'REPLAY'): DeliveryDoc {
    const now = this.clock.now();
    const attempts = delivery.attempts + 1;
    const base = { ...delivery, attempts, lastStatus: result.status, lastError: result.error, lastAttemptAt: now };
    if (result.ok) return { ...base, state: 'DELIVERED', nextAttemptAt: null };
    if (attempts >= this.options.maxAttempts) {
      this.log.warn(
        {
          webhookId: delivery.webhookId,
          seq: delivery.seq,
          attempts,
          lastStatus: result.status,
          lastError: result.error,
        },
        'webhook delivery dead-lettered',
      );
      return { ...base, state: 'DEAD_LETTER', nextAttemptAt: null };
    }
    const delay = retryDelayMs(attempts, this.options.backoffBaseMs, this.options.backoffMaxMs, this.options.random);
    return { ...base, state: retryState, nextAttemptAt: new Date(now.getTime() + delay) };
  }
}
