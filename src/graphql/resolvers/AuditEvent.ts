import type { AuditEventResolvers } from '../generated/resolvers-types';

export const AuditEvent: AuditEventResolvers = {
  id: (event) => event.eventId,
  operation: (event) => event.operation ?? null,
  requestId: (event) => event.requestId ?? null,
  statisticsQueries: (event) => event.statisticsQueries ?? [],
};
