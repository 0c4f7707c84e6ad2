import fs from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { schemaDirectory } from '../graphql/schema';

/** The OpenAPI 3.1 document of /v1, kept beside the SDL: the REST contract as a file. */
export function openApiDocumentPath(): string {
  return path.join(schemaDirectory(), 'rest', 'openapi.json');
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface OpenApiDocument {
  paths?: Record<string, Partial<Record<(typeof HTTP_METHODS)[number], { operationId?: string }>>>;
}

function readDocument(): { text: string; document: OpenApiDocument } {
  const text = fs.readFileSync(openApiDocumentPath(), 'utf8');
  // Parsed here so that a broken file stops the start instead of being served.
  return { text, document: JSON.parse(text) as OpenApiDocument };
}

/**
 * `GET /openapi.json`: the document, public (no API key), read once when the route is built so
 * a request never touches the disk.
 */
export function serveOpenApi(): RequestHandler {
  const { text } = readDocument();
  const body = Buffer.from(text, 'utf8');
  return (_req, res) => {
    res.status(200).type('application/json').send(body);
  };
}

/** Every operation of the document: upper-case method, path template (`/v1/candidates/{publicId}`), operationId. */
export function openApiOperations(): { method: string; path: string; operationId: string }[] {
  const { document } = readDocument();
  return Object.entries(document.paths ?? {}).flatMap(([template, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = item[method];
      return operation
        ? [{ method: method.toUpperCase(), path: template, operationId: operation.operationId ?? '' }]
        : [];
    }),
  );
}
