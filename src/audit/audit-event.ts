/**
 * What a statistics query asked (candidateStatistics): the filter as the service understood it
 * (codes normalised) and the dimensions. Never the results.
 */
export interface AuditedStatisticsQueryDoc {
  /** ISO 3166-1 alpha-2 codes of the location filter; empty: not filtered */
  locations: string[];
  nationalities: string[];
  /** ISCO-08 codes */
  occupations: string[];
  includeEmployed: boolean;
  /**
   * The filter's other fields as the service normalised them (languages with the stored levels
   * they accept, ages as years of birth, saved list ids, the keyword); absent when none was given.
   */
  filter?: Record<string, unknown>;
  /** the CandidateDimension names, in the order asked */
  groupBy: string[];
  /** the privacy budget (ε) the query spent: 0 for a repeat or a refusal; absent on events stored before budgets */
  epsilonCharged?: number;
  /** true for a preview (candidateStatisticsPreview: nothing counted, nothing charged); absent otherwise */
  preview?: true;
}

/** Which edge of the service a request came through. */
export type AuditTransport = 'REST' | 'GRAPHQL';

/**
 * One document of `auditEvents`: one authenticated request. It names the caller only by the id
 * of its API key and candidates only by their public ids; it never holds a key, an identity
 * value, a request body or a URL (paths and query strings are the caller's free text).
 */
export interface AuditEventDoc {
  /** unique id of the event (22-character public id) */
  eventId: string;
  /** when the request was answered */
  time: Date;
  /** id of the API key (`key_…`) */
  apiKeyId: string;
  transport: AuditTransport;
  /** REST: the operationId of the OpenAPI document; GraphQL: the operation's name. Absent when none was resolved. */
  operation?: string;
  /** GraphQL: the root fields selected, e.g. `Query.candidates`; empty for REST */
  rootFields: string[];
  /** public ids of the candidates the request returned or affected, each once */
  candidatePublicIds: string[];
  /** the statistics queries the request ran, each once per root field; absent when none */
  statisticsQueries?: AuditedStatisticsQueryDoc[];
  /** HTTP status of the answer; 499 when the caller hung up before it was complete */
  status: number;
  /** the request id (X-Request-Id) when it is a plain token, to find the request's log lines */
  requestId?: string;
}
