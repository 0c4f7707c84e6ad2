import type { Socket } from 'node:net';
import { problemBody } from './problem';
import { PROBLEM_TYPES } from './problem-types';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Answers requests Node's HTTP parser rejects before any route sees them (raw bytes in the
 * request line, an unfinished head, oversized headers or URL, broken framing) with a
 * problem+json instead of Node's bare default, then closes the connection. Nothing of the
 * request is echoed: the request line is what could not be read, so `instance` is about:blank.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [type, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [PROBLEM_TYPES.requestTimeout, 'The request head did not arrive in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [PROBLEM_TYPES.requestHeaderTooLarge, 'The request line or headers are larger than the server reads.']
        : [PROBLEM_TYPES.malformedRequest, 'The HTTP request could not be parsed.'];
  const body = JSON.stringify(problemBody(type, detail, 'about:blank'));
  socket.end(
    `HTTP/1.1 ${type.status} ${STATUS_TEXT[type.status]}\r\nContent-Type: application/problem+json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
