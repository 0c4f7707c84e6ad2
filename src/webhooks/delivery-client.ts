import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import {
  checkEndpointUrl,
  EndpointRefusedError,
  guardedLookup,
  isRefusedLiteral,
  type EndpointPolicy,
  type Resolver,
  systemResolver,
} from './address-guard';

export interface DeliveryRequest {
  url: string;
  secret: string;
  /** the `webhook-id`: the same on every attempt of one event */
  eventId: string;
  payload: string;
  /** the `webhook-timestamp` (and what the signature covers): when this attempt is made */
  timestamp: Date;
}

/** What one attempt got: a status (2xx = delivered) or no answer (error names why, safely). */
export type AttemptResult = { ok: boolean; status: number | null; error: string | null };

export interface DeliveryClientOptions extends EndpointPolicy {
  timeoutMs: number;
  resolver?: Resolver;
}

/** Only this much of an answer is read: the status is what counts. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * One signed POST per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature,
 * signed with the `standardwebhooks` library). Every attempt checks the URL against this service's
 * rules (scheme, credentials) and the connection goes to the address the guard checked; redirects are not followed (a 3xx is a failed attempt); the whole attempt is bounded
 * by `timeoutMs`.
 */
export function createDeliveryClient(
  options: DeliveryClientOptions,
): (request: DeliveryRequest) => Promise<AttemptResult> {
  const lookup = guardedLookup(options, options.resolver ?? systemResolver);
  return (request) => {
    // The rules of this service, whatever allowed the endpoint where it was registered.
    let url: URL;
    try {
      url = checkEndpointUrl(request.url, options);
    } catch (error) {
      if (error instanceof EndpointRefusedError)
        return Promise.resolve({ ok: false, status: null, error: `${error.message} Not connected.` });
      throw error;
    }
    if (isRefusedLiteral(url, options))
      return Promise.resolve({
        ok: false,
        status: null,
        error: 'The endpoint is a non-public address; not connected.',
      });
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const signature = new Webhook(request.secret).sign(request.eventId, request.timestamp, request.payload);
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(url, {
        method: 'POST',
        lookup,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'candidate-directory-webhooks',
          'webhook-id': request.eventId,
          'webhook-timestamp': String(Math.floor(request.timestamp.getTime() / 1000)),
          'webhook-signature': signature,
          'content-length': Buffer.byteLength(request.payload),
        },
      });
      const timer = setTimeout(() => {
        req.destroy();
        finish({ ok: false, status: null, error: 'timeout' });
      }, options.timeoutMs);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => {
          const ok = status >= 200 && status < 300;
          finish({
            ok,
            status,
            error: ok ? null : status >= 300 && status < 400 ? `redirect ${status} not followed` : `status ${status}`,
          });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        finish({
          ok: false,
          status: null,
          error: error.name === 'EndpointRefusedError' ? error.message : (error.code ?? 'network error'),
        });
      });
      req.end(request.payload);
    });
  };
}
