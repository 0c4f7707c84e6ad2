import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { decodeCursor, encodeCursor } from '../common/cursor';
import { BadUserInputError } from '../errors';
import type { AuditEventDoc } from './audit-event';
import { AuditWriteError, type AuditPosition, type AuditRepository } from './audit-repository';
import type { RequestAudit } from './request-audit';
import { systemClock, type Clock } from '../common/clock';

export const DEFAULT_AUDIT_PAGE = 50;
export const MAX_AUDIT_PAGE = 200;

export interface AuditEventsArgs {
  apiKeyId?: string | null;
  /** ISO 8601 date-time, inclusive */
  from?: string | null;
  /** ISO 8601 date-time, exclusive */
  to?: string | null;
  first?: number | null;
  after?: string | null;
}

export interface AuditEventPage {
  edges: { cursor: string; node: AuditEventDoc }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** How events are gathered into batches; both have defaults. */
export interface AuditBatchOptions {
  /** events written by one insertMany at most; a batch this full is written at once (default 500) */
  batchSize?: number;
  /** milliseconds the first event of a batch waits for others before the batch is written (default 5) */
  flushDelayMs?: number;
}

export const DEFAULT_AUDIT_BATCH_SIZE = 500;
export const DEFAULT_AUDIT_FLUSH_DELAY_MS = 5;

/** An event waiting to be written, with whom to tell if it cannot be. */
interface QueuedEvent {
  event: AuditEventDoc;
  onFailure: (error: unknown) => void;
}

/**
 * The audit trail: one event per authenticated request, appended after the answer has gone
 * out, and read by ADMIN keys only. Events are written in batches, one round trip for many
 * requests: a batch goes out when it is full or a few milliseconds after its first event.
 */
export class AuditService {
  private readonly batchSize: number;
  private readonly flushDelayMs: number;
  /** events recorded and not yet handed to the repository, oldest first */
  private queue: QueuedEvent[] = [];
  /** the flush of the queue, while one is scheduled */
  private timer: NodeJS.Timeout | undefined;
  /** writes started and not yet settled, so that a stopping server can wait for them */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly events: AuditRepository,
    private readonly clock: Clock = systemClock,
    options: AuditBatchOptions = {},
  ) {
    this.batchSize = options.batchSize ?? DEFAULT_AUDIT_BATCH_SIZE;
    this.flushDelayMs = options.flushDelayMs ?? DEFAULT_AUDIT_FLUSH_DELAY_MS;
    if (!Number.isSafeInteger(this.batchSize) || this.batchSize < 1)
      throw new RangeError('batchSize must be a positive integer');
    if (!Number.isFinite(this.flushDelayMs) || this.flushDelayMs < 0)
      throw new RangeError('flushDelayMs must be a non-negative number');
  }

  /**
   * Appends the event of a request answered with `status`, timed now. Never throws and never
   * delays the answer: the event is queued, and a failed write is handed to `onFailure` (which
   * logs it); the request stands.
   */
  record(request: RequestAudit, status: number, onFailure: (error: unknown) => void): void {
    let event: AuditEventDoc;
    try {
      event = request.toEvent(status, this.clock.now());
    } catch (error) {
      report(onFailure, error);
      return;
    }
    this.queue.push({ event, onFailure });
    if (this.queue.length >= this.batchSize) {
      this.flush();
    } else {
      // Unref'd: a pending batch does not keep the process alive; a graceful stop drains it.
      this.timer ??= setTimeout(() => this.flush(), this.flushDelayMs).unref();
    }
  }

  /**
   * Writes whatever is queued and resolves once every write started so far has settled,
   * including those of events recorded meanwhile (for a graceful stop, and for tests).
   */
  async drain(): Promise<void> {
    this.flush();
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending]);
      this.flush();
    }
  }

  /** Hands the queued events to the repository as one batch. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    // Started inside a promise, so that even a synchronous failure reaches onFailure.
    const write: Promise<void> = Promise.resolve()
      .then(() => this.events.insertMany(batch.map((queued) => queued.event)))
      .catch((error: unknown) => {
        // Only the refused events of a partly written batch are reported; otherwise every event.
        const failed = error instanceof AuditWriteError ? error.failed.map((position) => batch[position]) : batch;
        for (const queued of failed) if (queued !== undefined) report(queued.onFailure, error);
      })
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Events newest first, optionally for one key and a time range; ADMIN only. */
  async list(caller: ApiKeyRecord, args: AuditEventsArgs): Promise<AuditEventPage> {
    authorize(caller, 'ADMIN');
    const first = args.first ?? DEFAULT_AUDIT_PAGE;
    if (!Number.isSafeInteger(first) || first < 1 || first > MAX_AUDIT_PAGE) {
      throw new BadUserInputError(`Invalid input: first must be an integer from 1 to ${MAX_AUDIT_PAGE}.`, {
        parameter: 'first',
        rule: `an integer from 1 to ${MAX_AUDIT_PAGE}`,
      });
    }
    const docs = await this.events.find({
      ...(args.apiKeyId != null ? { apiKeyId: args.apiKeyId } : {}),
      ...(args.from != null ? { from: new Date(args.from) } : {}),
      ...(args.to != null ? { to: new Date(args.to) } : {}),
      ...(args.after != null ? { after: decodeAuditCursor(args.after) } : {}),
      // One extra event tells whether another page follows without a second query.
      limit: first + 1,
    });
    const edges = docs.slice(0, first).map((node) => ({ cursor: encodeAuditCursor(node), node }));
    return { edges, pageInfo: { hasNextPage: docs.length > first, endCursor: edges.at(-1)?.cursor ?? null } };
  }
}

/** Tells `onFailure`; a failure of its own (of the logger) has nowhere left to go and must not reject a write. */
function report(onFailure: (error: unknown) => void, error: unknown): void {
  try {
    onFailure(error);
  } catch {
    // nothing left to tell
  }
}

function encodeAuditCursor(event: AuditPosition): string {
  return encodeCursor([event.time, event.eventId]);
}

function decodeAuditCursor(cursor: string): AuditPosition {
  const parts = decodeCursor(cursor, ['time', 'text']);
  if (parts === undefined) {
    throw new BadUserInputError('Invalid input: after must be a cursor of auditEvents.', {
      parameter: 'after',
      rule: 'a cursor from auditEvents',
    });
  }
  const [time, eventId] = parts;
  return { time, eventId };
}
