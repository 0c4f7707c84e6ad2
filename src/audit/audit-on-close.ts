import type { ServerResponse } from 'node:http';
import type { Logger } from '../logger';
import { AuditEventNotKeptError, type AuditService } from './audit-service';
import { CLIENT_CLOSED_REQUEST, type RequestAudit } from './request-audit';

export { CLIENT_CLOSED_REQUEST };

/**
 * Appends the request's audit event once its response is over, so that writing it adds no
 * round trip to the answer (the event of a write was stored with the write; see
 * AuditService.record). Both transports call this right after authenticating.
 */
export function auditWhenClosed(res: ServerResponse, audit: AuditService, request: RequestAudit, logger: Logger): void {
  res.once('close', () => {
    const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST;
    audit.record(request, status, (error) => {
      logger.error(
        { err: error, requestId: request.requestId, apiKeyId: request.apiKeyId },
        error instanceof AuditEventNotKeptError
          ? 'an audit event was not kept'
          : 'could not append an audit event yet; it stays buffered and is written again',
      );
    });
  });
}
