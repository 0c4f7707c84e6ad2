import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { BadUserInputError } from '../errors';
import type { AuditEventDoc } from './audit-event';
import type { AuditPosition, AuditRepository } from './audit-repository';
import type { RequestAudit } from './request-audit';

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

/**
 * The audit trail: one event per authenticated request, appended after the answer has gone
 * out, and read by ADMIN keys only.
 */
export class AuditService {
  /** writes started and not yet settled, so that a stopping server can wait for them */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly events: AuditRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Appends the event of a request answered with `status`. Never throws and never delays the
   * answer: a failed write is handed to `onFailure` (which logs it), the request stands.
   */
  record(request: RequestAudit, status: number, onFailure: (error: unknown) => void): void {
    const event = request.toEvent(status, this.now());
    // Started inside a promise, so that even a synchronous failure reaches onFailure.
    const write: Promise<void> = Promise.resolve()
      .then(() => this.events.insert(event))
      .catch(onFailure)
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Resolves once every write started so far has settled (for a graceful stop). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.pending]);
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
      ...(args.after != null ? { after: decodeCursor(args.after) } : {}),
      // One extra event tells whether another page follows without a second query.
      limit: first + 1,
    });
    const edges = docs.slice(0, first).map((node) => ({ cursor: encodeCursor(node), node }));
    return { edges, pageInfo: { hasNextPage: docs.length > first, endCursor: edges.at(-1)?.cursor ?? null } };
  }
}

function encodeCursor(event: AuditPosition): string {
  return Buffer.from(JSON.stringify([event.time.getTime(), event.eventId]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): AuditPosition {
  const invalid = new BadUserInputError('Invalid input: after must be a cursor of auditEvents.', {
    parameter: 'after',
    rule: 'a cursor from auditEvents',
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !Number.isSafeInteger(parsed[0]) || typeof parsed[1] !== 'string') throw invalid;
  return { time: new Date(parsed[0] as number), eventId: parsed[1] };
}
