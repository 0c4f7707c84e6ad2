import { randomBytes } from 'node:crypto';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { hasPermission } from '../auth/permissions';
import type { Clock } from '../common/clock';
import { BadUserInputError, NotFoundError } from '../errors';
import type { SecretBox } from './secret-box';
import { checkEndpoint, EndpointRefusedError, type EndpointPolicy, type Resolver } from './address-guard';
import { CANDIDATE_CHANGE_TYPES, WEBHOOK_EVENT_TYPES, type OutboxSource, type WebhookEventType } from './webhook-event';
import type { DeliveryDoc, DeliveryState, WebhookRecord, WebhookRepository } from './webhook-repository';

export interface CreateWebhookInput {
  apiKeyId: string;
  url: string;
  eventTypes: readonly string[];
  /** deliver the events already in the outbox too (from the first); default: only those after now */
  fromBeginning?: boolean;
}

export interface CreatedWebhook {
  webhook: WebhookStatus;
  /** `whsec_…`: shown once, here */
  secret: string;
}

/** A webhook with how far behind the outbox it is. */
export interface WebhookStatus extends WebhookRecord {
  /** outbox seqs after the cursor: an upper bound of the events still to deliver */
  lag: number;
}

export interface KeyLookup {
  findById(id: string): Promise<Pick<ApiKeyRecord, 'id' | 'revokedAt' | 'permissions'> | null>;
}

export const MAX_DELIVERIES_PAGE = 200;

/** The rules of webhooks: who may manage them (ADMIN), which endpoints are allowed, which keys may get which events, the secret. */
export class WebhookService {
  constructor(
    private readonly repository: WebhookRepository,
    private readonly keys: KeyLookup,
    private readonly outbox: Pick<OutboxSource, 'latestSeq'>,
    private readonly policy: EndpointPolicy,
    private readonly clock: Clock,
    /** how the signing secret is stored (src/webhooks/secret-box.ts) */
    private readonly secrets: SecretBox,
    private readonly resolver?: Resolver,
  ) {}

  async create(caller: Pick<ApiKeyRecord, 'permissions'>, input: CreateWebhookInput): Promise<CreatedWebhook> {
    authorize(caller, 'ADMIN');
    const eventTypes = [...new Set(input.eventTypes)];
    if (eventTypes.length === 0) throw new BadUserInputError('eventTypes needs at least one event type.');
    const unknown = eventTypes.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
    if (unknown.length > 0)
      throw new BadUserInputError(
        `Unknown event type: ${unknown.join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}.`,
      );
    const key = await this.keys.findById(input.apiKeyId);
    if (key === null || key.revokedAt !== undefined) throw new BadUserInputError('apiKeyId names no active API key.');
    const candidateChanges = eventTypes.filter((t) => (CANDIDATE_CHANGE_TYPES as readonly string[]).includes(t));
    if (candidateChanges.length > 0 && !hasPermission(key.permissions, 'READ_CANDIDATE_DATA'))
      throw new BadUserInputError(
        `${candidateChanges.join(', ')} go only to a key that may read candidates (READ_CANDIDATE_DATA), which this key lacks; JOB_MATCH and OFFER do not need it.`,
      );
    try {
      await checkEndpoint(input.url, this.policy, this.resolver);
    } catch (error) {
      if (error instanceof EndpointRefusedError)
        throw new BadUserInputError(error.message, undefined, { cause: error });
      throw error;
    }
    const secret = 'whsec_' + randomBytes(32).toString('base64');
    const latest = await this.outbox.latestSeq();
    const webhook: WebhookRecord = {
      id: 'wh_' + randomBytes(9).toString('base64url'),
      apiKeyId: input.apiKeyId,
      url: input.url,
      eventTypes: eventTypes as WebhookEventType[],
      createdDate: this.clock.now(),
      cursor: input.fromBeginning === true ? 0 : latest,
    };
    await this.repository.insert({ ...webhook, secret: this.secrets.seal(secret) });
    return { webhook: { ...webhook, lag: latest - webhook.cursor }, secret };
  }

  async list(caller: Pick<ApiKeyRecord, 'permissions'>): Promise<WebhookStatus[]> {
    authorize(caller, 'ADMIN');
    const [webhooks, latest] = await Promise.all([this.repository.list(), this.outbox.latestSeq()]);
    return webhooks.map((w) => ({ ...w, lag: Math.max(0, latest - w.cursor) }));
  }

  async remove(caller: Pick<ApiKeyRecord, 'permissions'>, id: string): Promise<WebhookStatus> {
    authorize(caller, 'ADMIN');
    const webhook = await this.repository.findById(id);
    if (webhook === null || !(await this.repository.remove(id))) throw new NotFoundError('No webhook has this id.');
    return { ...webhook, lag: 0 };
  }

  async deliveries(
    caller: Pick<ApiKeyRecord, 'permissions'>,
    webhookId: string,
    state: DeliveryState | undefined,
    first: number,
  ): Promise<DeliveryDoc[]> {
    authorize(caller, 'ADMIN');
    if (!Number.isInteger(first) || first < 1 || first > MAX_DELIVERIES_PAGE)
      throw new BadUserInputError(`first must be 1 to ${MAX_DELIVERIES_PAGE}.`);
    if ((await this.repository.findById(webhookId)) === null) throw new NotFoundError('No webhook has this id.');
    return this.repository.listDeliveries(webhookId, state, first);
  }

  /** Sends a dead letter again (with its own attempts, from the first); it keeps its webhook-id. */
  async replay(caller: Pick<ApiKeyRecord, 'permissions'>, webhookId: string, seq: number): Promise<DeliveryDoc> {
    authorize(caller, 'ADMIN');
    const delivery = await this.repository.replayDeadLetter(webhookId, seq, this.clock.now());
    if (delivery === null) throw new NotFoundError('No dead-lettered delivery of this webhook has this seq.');
    return delivery;
  }
}
