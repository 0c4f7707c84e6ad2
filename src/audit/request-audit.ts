import { isPublicId, newPublicId } from 'candidate-documents';
import type { AuditedStatisticsQueryDoc, AuditEventDoc, AuditTransport } from './audit-event';

/** Status recorded when the caller hung up before the answer was complete (nginx's "client closed request"). */
export const CLIENT_CLOSED_REQUEST = 499;
/** GraphQL names and OpenAPI operationIds; anything else is not kept. */
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;
/** The request-id rule of the REST edge: a plain token reaches the trail, anything else does not. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * What the audit trail learns about one authenticated request while it runs, created by the
 * context factory and filled by both transports: the operation (REST route, or the GraphQL
 * operation once resolved) and every candidate returned (Candidate resolvers) or affected
 * (mutation inputs and results). Only names and public ids are taken in, never values.
 */
export class RequestAudit {
  private operation: string | undefined;
  private rootFields: string[] = [];
  private readonly candidates = new Set<string>();
  private readonly statisticsQueries: AuditedStatisticsQueryDoc[] = [];
  /** candidates named by the events committed with the request's writes */
  private readonly committed = new Set<string>();
  private committedWrites = 0;

  constructor(
    readonly apiKeyId: string,
    readonly transport: AuditTransport,
    readonly requestId: string,
  ) {}

  /** The operation of the request: a REST operationId, or a GraphQL operation's name and root fields (`Query.candidates`). */
  describeOperation(operation: string | undefined, rootFields: readonly string[] = []): void {
    this.operation = operation !== undefined && OPERATION_NAME.test(operation) ? operation : undefined;
    this.rootFields = rootFields.filter((field) => /^\w+\.\w+$/.test(field));
  }

  /** Candidates returned or affected by the request; anything that is not a public id is ignored. */
  addCandidates(publicIds: Iterable<unknown>): void {
    for (const publicId of publicIds) if (isPublicId(publicId)) this.candidates.add(publicId);
  }

  /** A statistics query the request runs: what it asked, never what it answered. */
  addStatisticsQuery(query: AuditedStatisticsQueryDoc): void {
    this.statisticsQueries.push({
      locations: [...query.locations],
      nationalities: [...query.nationalities],
      occupations: [...query.occupations],
      includeEmployed: query.includeEmployed,
      groupBy: [...query.groupBy],
      ...(query.filter !== undefined ? { filter: structuredClone(query.filter) } : {}),
      ...(typeof query.epsilonCharged === 'number' ? { epsilonCharged: query.epsilonCharged } : {}),
      ...(query.preview === true ? { preview: true as const } : {}),
    });
  }

  /** The candidates recorded so far. */
  candidatePublicIds(): string[] {
    return [...this.candidates];
  }

  /** The status of a request whose writes succeeded, on its transport: REST answers 201, GraphQL 200. */
  get writeStatus(): number {
    return this.transport === 'REST' ? 201 : 200;
  }

  /**
   * The event of one write of the request, stored with the write (in its transaction): the
   * request's operation, the candidates the write affected, the status of a success, at `time`.
   */
  writeEvent(candidatePublicIds: readonly string[], time: Date): AuditEventDoc {
    this.addCandidates(candidatePublicIds);
    const event = this.toEvent(this.writeStatus, time);
    event.candidatePublicIds = [...new Set(candidatePublicIds.filter((id) => isPublicId(id)))];
    delete event.statisticsQueries;
    return event;
  }

  /** The write of `event` was committed, its event with it. */
  markCommitted(event: AuditEventDoc): void {
    this.committedWrites++;
    for (const publicId of event.candidatePublicIds) this.committed.add(publicId);
  }

  /**
   * True when the events committed with the request's writes already say what its closing event
   * would: it answered the success of its writes (or the caller hung up), and named no candidate
   * and ran no query beyond them. Otherwise the closing event is recorded too.
   */
  settledByWrites(status: number): boolean {
    if (this.committedWrites === 0 || this.statisticsQueries.length > 0) return false;
    if (status !== this.writeStatus && status !== CLIENT_CLOSED_REQUEST) return false;
    return [...this.candidates].every((publicId) => this.committed.has(publicId));
  }

  /** The event of the request, answered with `status` at `time`. */
  toEvent(status: number, time: Date): AuditEventDoc {
    const event: AuditEventDoc = {
      eventId: newPublicId(),
      time,
      apiKeyId: this.apiKeyId,
      transport: this.transport,
      rootFields: [...this.rootFields],
      candidatePublicIds: [...this.candidates],
      status,
    };
    if (this.operation !== undefined) event.operation = this.operation;
    if (this.statisticsQueries.length > 0)
      event.statisticsQueries = this.statisticsQueries.map((query) => ({ ...query }));
    if (REQUEST_ID.test(this.requestId)) event.requestId = this.requestId;
    return event;
  }
}
