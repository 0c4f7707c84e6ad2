import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery a receiver accepted, its signature verified with the `standardwebhooks` library. */
export interface Received {
  id: string;
  type: string;
  seq: number;
  publicId: string;
}

export type ReceiverMode = 'ok' | 'fail' | 'slow' | 'hold' | 'redirect';

/**
 * A webhook endpoint on 127.0.0.1 (port 0) that verifies every request's signature with the
 * `standardwebhooks` library and answers according to `mode`: 2xx (`ok`, the request is recorded),
 * 500 (`fail`), after `slowMs` (`slow`, recorded, answered too late), only when the test calls
 * `release()` (`hold`, recorded: an endpoint as slow as the test makes it), or a 307 (`redirect`).
 */
export class WebhookReceiver {
  mode: ReceiverMode = 'ok';
  slowMs = 2000;
  /** deliveries answered 2xx (or recorded before a slow answer), in arrival order */
  readonly received: Received[] = [];
  /** every request, including refused ones */
  requests = 0;
  /** requests whose signature did not verify */
  badSignatures = 0;
  /** called with each verified delivery before it is answered */
  onDelivery: ((delivery: Received) => void) | undefined;
  private secret: string | undefined;
  /** requests held unanswered in `hold` mode, oldest first */
  private readonly held: http.ServerResponse[] = [];
  private server: http.Server | undefined;
  private port = 0;

  setSecret(secret: string): void {
    this.secret = secret;
  }

  /** Requests held unanswered (`hold` mode). */
  get holding(): number {
    return this.held.length;
  }

  /** Answers every held request 204. */
  release(): void {
    for (const res of this.held.splice(0)) res.writeHead(204).end();
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests += 1;
        const body = Buffer.concat(chunks).toString('utf8');
        let payload: { type: string; data: { seq: number; publicId: string } };
        try {
          payload = new Webhook(this.secret ?? '').verify(
            body,
            req.headers as Record<string, string>,
          ) as typeof payload;
        } catch {
          this.badSignatures += 1;
          res.writeHead(400).end();
          return;
        }
        const record = {
          id: String(req.headers['webhook-id']),
          type: payload.type,
          seq: payload.data.seq,
          publicId: payload.data.publicId,
        };
        this.onDelivery?.(record);
        if (this.mode === 'fail') res.writeHead(500).end();
        else if (this.mode === 'redirect') res.writeHead(307, { location: `${this.url}/elsewhere` }).end();
        else if (this.mode === 'slow') {
          this.received.push(record);
          setTimeout(() => res.writeHead(204).end(), this.slowMs).unref();
        } else if (this.mode === 'hold') {
          this.received.push(record);
          this.held.push(res);
        } else {
          this.received.push(record);
          res.writeHead(204).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening (the endpoint is "down") and closes open connections; start() again reuses the port. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.held.length = 0;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
