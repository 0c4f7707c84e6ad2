import type { ServerResponse } from 'node:http';
import type { Logger } from '../logger';
import type { AuditService } from './audit-service';
import type { RequestAudit } from './request-audit';

/** Status recorded when the caller hung up before the answer was complete (nginx's "client closed request"). */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Appends the request's audit event once its response is over, so that writing it adds no
 * round trip to the answer. Both transports call this right after authenticating.
 */
export function auditWhenClosed(res: ServerResponse, audit: AuditService, request: RequestAudit, logger: Logger): void {
  res.once('close', () => {
    const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST;
    audit.record(request, status, (error) => {
      logger.error(
        { err: error, requestId: request.requestId, apiKeyId: request.apiKeyId },
        'could not append an audit event',
      );
    });
  });
}
