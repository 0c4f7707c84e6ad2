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

export type ReceiverMode = 'ok' | 'fail' | 'slow' | 'redirect';

/**
 * A webhook endpoint on 127.0.0.1 (port 0) that verifies every request's signature with the
 * `standardwebhooks` library and answers according to `mode`: 2xx (`ok`, the request is recorded),
 * 500 (`fail`), after `slowMs` (`slow`, recorded, answered too late), or a 307 (`redirect`).
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
  private server: http.Server | undefined;
  private port = 0;

  setSecret(secret: string): void {
    this.secret = secret;
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
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
