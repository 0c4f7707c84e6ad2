import { isPublicId, newPublicId } from '../common/public-id';
import type { AuditedStatisticsQueryDoc, AuditEventDoc, AuditTransport } from './audit-event';

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
    });
  }

  /** The candidates recorded so far. */
  candidatePublicIds(): string[] {
    return [...this.candidates];
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
