import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OTLP/HTTP receiver that accepts and drops every export: the collector of the service started
 * with traces on (the `traces-on` rows), so that those rows pay for making, encoding and sending
 * spans, and not for a collector's work.
 */
export interface TraceSink {
  /** the OTEL_EXPORTER_OTLP_ENDPOINT of the service */
  readonly url: string;
  /** exports received and their bytes so far */
  received(): { exports: number; bytes: number };
  stop(): Promise<void>;
}

export async function startTraceSink(): Promise<TraceSink> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => ({ exports, bytes }),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
