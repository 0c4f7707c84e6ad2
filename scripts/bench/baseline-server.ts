import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

/**
 * A baseline server for the benchmark, in a process of its own: it answers every request with
 * the same pre-serialised JSON body (a real REST by-id response), so its req/s is the limit of
 * this machine (`http`) or of the framework the service is built on (`express`).
 *
 * Usage (forked by the harness, with an IPC channel): baseline-server.ts <http|express> <body file>
 * Reports `{ port }` over IPC once listening on a free loopback port; exits when the harness disconnects.
 */

const [mode, bodyFile] = process.argv.slice(2);
if ((mode !== 'http' && mode !== 'express') || !bodyFile) {
  process.stderr.write('usage: baseline-server.ts <http|express> <body file>\n');
  process.exit(2);
}
const body = fs.readFileSync(bodyFile);
const contentType = 'application/json; charset=utf-8';

function bareHttp(): http.Server {
  return http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
    res.end(body);
  });
}

function bareExpress(): http.Server {
  // Express as the service configures it (x-powered-by off, default ETag), one route like GET /v1/candidates/:publicId.
  const app = express();
  app.disable('x-powered-by');
  app.get('/v1/candidates/:publicId', (_req, res) => {
    res.type(contentType).send(body);
  });
  return http.createServer(app);
}

const server = mode === 'http' ? bareHttp() : bareExpress();
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ port });
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
