import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { decodeCursor, encodeCursor } from '../common/cursor';
import { BadUserInputError, ServiceUnavailableError } from '../errors';
import type { AuditEventDoc } from './audit-event';
import { AuditWriteError, type AuditPosition, type AuditRepository } from './audit-repository';
import type { RequestAudit } from './request-audit';
import { systemClock, type Clock } from '../common/clock';
import type { CompanionWrite, WriteOutcome } from '../store/write-transaction';

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

/** How events are gathered into batches and held until stored; all have defaults. */
export interface AuditBatchOptions {
  /** events written by one insertMany at most; a batch this full is written at once (default 500) */
  batchSize?: number;
  /** milliseconds the first event of a batch waits for others before the batch is written (default 5) */
  flushDelayMs?: number;
  /** AUDIT_BUFFER_SIZE: events held in memory until stored; reads are refused while it is full (default 10,000) */
  bufferSize?: number;
  /** milliseconds before a failed batch is written again, doubled at each failure up to 5 s (default 200) */
  retryDelayMs?: number;
  /** rounds a drain (a graceful stop) tries to store what is held before it gives up (default 5) */
  drainAttempts?: number;
}

export const DEFAULT_AUDIT_BATCH_SIZE = 500;
export const DEFAULT_AUDIT_FLUSH_DELAY_MS = 5;
export const DEFAULT_AUDIT_BUFFER_SIZE = 10_000;
export const DEFAULT_AUDIT_RETRY_DELAY_MS = 200;
const MAX_RETRY_DELAY_MS = 5_000;
const DEFAULT_DRAIN_ATTEMPTS = 5;

/** An event waiting to be written, with whom to tell if it cannot be (once). */
interface QueuedEvent {
  event: AuditEventDoc;
  onFailure: (error: unknown) => void;
  /** true once onFailure was told: a failure is reported once per event, however often it is retried */
  reported: boolean;
}

/** Why an event was not kept: the buffer was full, or a stopping service could not store it. */
export class AuditEventNotKeptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditEventNotKeptError';
  }
}

/**
 * The audit trail: one event per authenticated request, read by ADMIN keys only.
 *
 * - The event of a write is stored with the write, in its transaction (`companionOf`): a write
 *   that is stored has its event.
 * - Any other event (reads, refusals) is appended after the answer has gone out, from a bounded
 *   buffer, in batches (one round trip for many requests: a batch goes out when it is full or a
 *   few milliseconds after its first event). A batch that fails is written again, with a growing
 *   delay, until it is stored; nothing is dropped while the store is away. While the buffer is
 *   full, reads are refused (`admitRead`, 503) rather than served unaudited; the event of an
 *   answer that is not a success is then not kept (it was a refusal, and nothing was read).
 * - A kill -9 of the service loses the events still held: at most the buffer's size, in practice
 *   those of the last flush interval (or of the outage).
 */
export class AuditService {
  private readonly batchSize: number;
  private readonly flushDelayMs: number;
  private readonly bufferSize: number;
  private readonly retryDelayMs: number;
  private readonly drainAttempts: number;
  /** events recorded and not yet handed to the repository, oldest first */
  private queue: QueuedEvent[] = [];
  /** events handed to the repository and not yet settled */
  private inFlight = 0;
  /** the flush of the queue, while one is scheduled */
  private timer: NodeJS.Timeout | undefined;
  /** set while a failed batch waits for its retry: no batch goes out before then */
  private backingOff = false;
  private nextRetryDelayMs: number;
  /** true once a dropped event was reported, until the buffer has room again (one report per episode) */
  private dropReported = false;
  /** writes started and not yet settled, so that a stopping server can wait for them */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly events: AuditRepository,
    private readonly clock: Clock = systemClock,
    options: AuditBatchOptions = {},
  ) {
    this.batchSize = options.batchSize ?? DEFAULT_AUDIT_BATCH_SIZE;
    this.flushDelayMs = options.flushDelayMs ?? DEFAULT_AUDIT_FLUSH_DELAY_MS;
    this.bufferSize = options.bufferSize ?? DEFAULT_AUDIT_BUFFER_SIZE;
    this.retryDelayMs = options.retryDelayMs ?? DEFAULT_AUDIT_RETRY_DELAY_MS;
    this.drainAttempts = options.drainAttempts ?? DEFAULT_DRAIN_ATTEMPTS;
    this.nextRetryDelayMs = this.retryDelayMs;
    if (!Number.isSafeInteger(this.batchSize) || this.batchSize < 1)
      throw new RangeError('batchSize must be a positive integer');
    if (!Number.isFinite(this.flushDelayMs) || this.flushDelayMs < 0)
      throw new RangeError('flushDelayMs must be a non-negative number');
    if (!Number.isSafeInteger(this.bufferSize) || this.bufferSize < 1)
      throw new RangeError('bufferSize must be a positive integer');
    if (!Number.isFinite(this.retryDelayMs) || this.retryDelayMs < 0)
      throw new RangeError('retryDelayMs must be a non-negative number');
  }

  /** Events held in memory, queued or being written. */
  get held(): number {
    return this.queue.length + this.inFlight;
  }

  /** False while the buffer is full: a read now could not be audited. */
  hasRoom(): boolean {
    return this.held < this.bufferSize;
  }

  /** Throws a ServiceUnavailableError (503, Retry-After) while the buffer is full: reads are not served unaudited. */
  admitRead(): void {
    if (!this.hasRoom()) {
      throw new ServiceUnavailableError(
        'The audit trail cannot be written right now, and reads are not served unaudited; retry later.',
      );
    }
  }

  /**
   * The companion of a write of `request` (WriteTransactions): the request's event for that write,
   * with the candidates it affected and the status of a success on the request's transport, stored
   * in the write's transaction. Once it is committed, the request's closing event is not recorded
   * again unless it would say more (RequestAudit.settledByWrites).
   */
  companionOf(request: RequestAudit): (outcome: WriteOutcome) => CompanionWrite {
    return (outcome) => {
      const event = request.writeEvent(outcome.candidatePublicIds, this.clock.now());
      return {
        write: (session) => this.events.insertInSession(event, session),
        committed: () => request.markCommitted(event),
      };
    };
  }

  /**
   * Appends the event of a request answered with `status`, timed now, unless the events committed
   * with its writes already say it. Never throws and never delays the answer: the event is
   * queued and written until it is stored; `onFailure` (which logs) is told of the first failure,
   * and of an event not kept (the buffer full, and the answer not a success).
   */
  record(request: RequestAudit, status: number, onFailure: (error: unknown) => void): void {
    if (request.settledByWrites(status)) return;
    let event: AuditEventDoc;
    try {
      event = request.toEvent(status, this.clock.now());
    } catch (error) {
      report(onFailure, error);
      return;
    }
    if (!this.hasRoom() && !(status >= 200 && status < 300)) {
      if (!this.dropReported) {
        this.dropReported = true;
        report(onFailure, new AuditEventNotKeptError('audit buffer full: events of refused requests are not kept'));
      }
      return;
    }
    this.queue.push({ event, onFailure, reported: false });
    this.schedule();
  }

  /**
   * Writes whatever is held and resolves once it is stored, or once a few rounds failed (a
   * stopping service with its store away): then each event left is reported and let go.
   */
  async drain(): Promise<void> {
    for (let round = 1; ; round++) {
      this.backingOff = false;
      this.flush();
      while (this.pending.size > 0) {
        await Promise.allSettled([...this.pending]);
        if (!this.backingOff) this.flush();
      }
      if (this.queue.length === 0) return;
      if (round >= this.drainAttempts) break;
      await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    const lost = this.queue;
    this.queue = [];
    for (const queued of lost)
      report(queued.onFailure, new AuditEventNotKeptError('audit event not stored before the service stopped'));
  }

  /** Starts a batch when one is full, or arms the flush delay; nothing while a failed batch waits for its retry. */
  private schedule(): void {
    if (this.backingOff) return;
    if (this.queue.length >= this.batchSize) this.flush();
    // Unref'd: a pending batch does not keep the process alive; a graceful stop drains it.
    else this.timer ??= setTimeout(() => this.flush(), this.flushDelayMs).unref();
  }

  /** Hands the queued events to the repository, in batches of at most batchSize. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0 && !this.backingOff) this.writeBatch(this.queue.splice(0, this.batchSize));
    if (this.hasRoom()) this.dropReported = false;
  }

  private writeBatch(batch: QueuedEvent[]): void {
    this.inFlight += batch.length;
    // Started inside a promise, so that even a synchronous failure is handled here.
    const write: Promise<void> = Promise.resolve()
      .then(() => this.events.insertMany(batch.map((queued) => queued.event)))
      .then(
        () => {
          this.nextRetryDelayMs = this.retryDelayMs;
        },
        (error: unknown) => {
          if (error instanceof AuditWriteError) {
            // Refused by the store itself (not a duplicate: those are stored): never storable, reported and let go.
            for (const position of error.failed) {
              const queued = batch[position];
              if (queued !== undefined) report(queued.onFailure, error);
            }
            return;
          }
          // Unknown which were written: all are written again (an event already stored is a
          // duplicate _id, which the repository counts as stored), first in line.
          for (const queued of batch) {
            if (!queued.reported) report(queued.onFailure, error);
            queued.reported = true;
          }
          this.queue = [...batch, ...this.queue];
          this.retryLater();
        },
      )
      .finally(() => {
        this.inFlight -= batch.length;
        this.pending.delete(write);
      });
    this.pending.add(write);
  }

  private retryLater(): void {
    if (this.backingOff) return;
    this.backingOff = true;
    clearTimeout(this.timer);
    const delay = this.nextRetryDelayMs;
    this.nextRetryDelayMs = Math.min(MAX_RETRY_DELAY_MS, Math.max(1, delay * 2));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.backingOff = false;
      this.flush();
    }, delay).unref();
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
