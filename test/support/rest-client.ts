import { validateResponse } from './openapi-validator';

export interface RestOptions {
  /** the X-API-Key header */
  key?: string;
  /** sent as JSON, with Content-Type application/json unless `headers` say otherwise */
  body?: unknown;
  /** sent as is (malformed JSON, other media types); wins over `body` */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface RestResult<T = any> {
  status: number;
  headers: Headers;
  /** the parsed JSON body; undefined when there is none */
  body: T;
  /** the body as received */
  text: string;
}

/**
 * One request to the REST API, as a partner's client sends it. Every response is checked
 * against the OpenAPI document (schema/rest/openapi.json): a response the document does not
 * allow throws, failing the test that made the request.
 */
export async function rest<T = any>(
  url: string,
  method: string,
  path: string,
  options: RestOptions = {},
): Promise<RestResult<T>> {
  const headers: Record<string, string> = { ...(options.key !== undefined ? { 'x-api-key': options.key } : {}) };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, options.headers);

  const response = await fetch(`${url}${path}`, { method, headers, body });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  const parsed: unknown = text !== '' && /json/.test(contentType ?? '') ? JSON.parse(text) : undefined;

  const problems = validateResponse({ method, path, status: response.status, contentType, body: parsed ?? text });
  if (problems.length > 0) {
    throw new Error(
      `the response does not conform to the OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${text.slice(0, 2000)}`,
    );
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Paths of every null in a JSON value (the REST layer omits absent fields instead). */
export function nullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => nullPaths(item, `${path}[${i}]`));
  if (typeof value === 'object' && value !== undefined) {
    return Object.entries(value).flatMap(([key, item]) => nullPaths(item, `${path}.${key}`));
  }
  return [];
}
