/**
 * Checks HTTP exchanges of /v1 against schema/rest/openapi.json, for contract tests: finds the
 * operation of a concrete request path, checks the status is declared, the content type is the
 * declared one, and the body matches the declared schema (ajv, JSON Schema 2020-12).
 *
 * Routes the document has no operation for (each operation also lists these answers, so that
 * generated clients know them, but a request to such a route belongs to no operation):
 * - a path that matches no path template must get 404, and
 * - a path template without an operation for the method must get 405,
 * or, on either, 401 (the API key is checked before the route), each with an
 * `application/problem+json` body valid against `#/components/schemas/Problem`. Any other
 * status on such a route is reported.
 *
 * HEAD is checked against the GET operation of the path, without a body.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export const OPENAPI_FILE = path.resolve(__dirname, '../../schema/rest/openapi.json');

/** `$id` under which the whole document is known to ajv; refs into it use this base. */
const DOCUMENT_ID = 'https://candidate-directory.invalid/schema/rest/openapi.json';

/** Statuses of routes the document has no operation for (see the file comment). */
export const UNKNOWN_PATH_STATUSES: readonly number[] = [401, 404];
export const UNSUPPORTED_METHOD_STATUSES: readonly number[] = [401, 405];

/** The operations a path item may hold (OpenAPI 3.1, Path Item Object). */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

const JSON_MEDIA_TYPE = 'application/json';
const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/**
 * The fixed fields of an OpenAPI 3.1 document's root: known to ajv so that the root compiles in
 * strict mode, and the fields the contract test allows there.
 */
export const OPENAPI_ROOT_KEYWORDS = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
  'externalDocs',
];

type Json = Record<string, unknown>;

export interface OpenApiOperation {
  method: HttpMethod;
  /** the path template, e.g. `/v1/candidates/{publicId}` */
  template: string;
  operationId: string;
  /** JSON pointer of the operation object in the document */
  pointer: string;
  operation: Json;
}

export type RouteMatch =
  | { kind: 'operation'; operation: OpenApiOperation; pathParameters: Record<string, string> }
  | { kind: 'unsupported-method'; template: string; allowed: string[] }
  | { kind: 'unknown-path' };

export interface ExchangeUnderCheck {
  method: string;
  /** a concrete request path, e.g. `/v1/candidates/Ab3…`; a query string is allowed and ignored */
  path: string;
  status: number;
  /** the Content-Type header as received, parameters included; null when absent */
  contentType: string | null;
  /** the parsed JSON body; undefined (or '') when there is none */
  body: unknown;
}

// ---------------------------------------------------------------------------------------------
// The document and ajv, built once per test file

interface Loaded {
  document: Json;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Json;
  // Union types: optional request fields are `T | null` (the REST layer takes null as absent).
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  // Contract format of public ids: 16 bytes of a UUID v4 as unpadded base64url.
  ajv.addFormat('base64-uuid', /^[A-Za-z0-9_-]{22}$/);
  ajv.addVocabulary(OPENAPI_ROOT_KEYWORDS);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  loaded = { document, ajv, validators: new Map() };
  return loaded;
}

/** The parsed document (a fresh copy: callers may not change the validator's). */
export function openApiDocument(): Json {
  return structuredClone(load().document);
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointerOf(...tokens: string[]): string {
  return tokens.map((token) => `/${escapeToken(token)}`).join('');
}

function valueAt(pointer: string): unknown {
  let value: unknown = load().document;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Json)[token];
  }
  return value;
}

/** Follows a local `$ref` chain (`#/components/responses/…`): the object and its pointer. */
function dereference(pointer: string): { value: Json; pointer: string } | undefined {
  let current = pointer;
  for (let hops = 0; hops < 10; hops++) {
    const value = valueAt(current);
    if (value === null || typeof value !== 'object') return undefined;
    const ref = (value as Json).$ref;
    if (typeof ref !== 'string') return { value: value as Json, pointer: current };
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
    current = ref.slice(1);
  }
  throw new Error(`$ref chain too long at ${pointer}`);
}

/** The compiled schema at a pointer of the document, compiled once. */
function validatorAt(pointer: string): ValidateFunction {
  const { ajv, validators } = load();
  let validate = validators.get(pointer);
  if (!validate) {
    const fragment = pointer
      .split('/')
      .slice(1)
      .map((token) => encodeURIComponent(token))
      .join('/');
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${fragment}` });
    validators.set(pointer, validate);
  }
  return validate;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'body' : `body${error.instancePath}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties')
    return `${where} has an undeclared property "${String(params.additionalProperty)}"`;
  if (error.keyword === 'enum') return `${where} ${error.message ?? ''}: ${JSON.stringify(params.allowedValues)}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

function schemaProblems(pointer: string, body: unknown, context: string): string[] {
  const validate = validatorAt(pointer);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((error) => `${context}: ${describeError(error)}`);
}

// ---------------------------------------------------------------------------------------------
// Routing

function operationsOf(template: string): OpenApiOperation[] {
  const item = (load().document.paths as Record<string, Json>)[template];
  return HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => {
    const operation = item[method] as Json;
    return {
      method,
      template,
      operationId: String(operation.operationId),
      pointer: pointerOf('paths', template, method),
      operation,
    };
  });
}

function segmentsOf(requestPath: string): string[] {
  let pathOnly = requestPath.split(/[?#]/)[0];
  // Express routes ignore one trailing slash (non-strict routing).
  if (pathOnly.length > 1 && pathOnly.endsWith('/')) pathOnly = pathOnly.slice(0, -1);
  return pathOnly.split('/');
}

/**
 * The path template a concrete path falls under. Literal segments win over parameters, from
 * the left: `/v1/candidates/job-match` is that path, not `/v1/candidates/{publicId}`.
 */
export function matchTemplate(
  requestPath: string,
): { template: string; pathParameters: Record<string, string> } | undefined {
  const segments = segmentsOf(requestPath);
  let best: { template: string; pathParameters: Record<string, string>; rank: string } | undefined;
  for (const template of Object.keys(load().document.paths as Json)) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    let rank = '';
    let matches = true;
    for (let i = 0; i < parts.length && matches; i++) {
      const parameter = /^\{(.+)\}$/.exec(parts[i]);
      if (parameter) {
        matches = segments[i] !== '';
        pathParameters[parameter[1]] = safeDecode(segments[i]);
        rank += '0';
      } else {
        matches = parts[i] === segments[i];
        rank += '1';
      }
    }
    // Ranks have equal length here; the larger string has its first literal further left.
    if (matches && (!best || rank > best.rank)) best = { template, pathParameters, rank };
  }
  return best && { template: best.template, pathParameters: best.pathParameters };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** What the document says about a method and a concrete path. */
export function matchRoute(method: string, requestPath: string): RouteMatch {
  const match = matchTemplate(requestPath);
  if (!match) return { kind: 'unknown-path' };
  const operations = operationsOf(match.template);
  const wanted = method.toLowerCase();
  const operation =
    operations.find((candidate) => candidate.method === wanted) ??
    (wanted === 'head' ? operations.find((candidate) => candidate.method === 'get') : undefined);
  if (!operation) {
    return {
      kind: 'unsupported-method',
      template: match.template,
      allowed: operations.map((candidate) => candidate.method.toUpperCase()),
    };
  }
  return { kind: 'operation', operation, pathParameters: match.pathParameters };
}

/** The operation with this operationId. */
export function operationById(operationId: string): OpenApiOperation {
  for (const template of Object.keys(load().document.paths as Json)) {
    const found = operationsOf(template).find((operation) => operation.operationId === operationId);
    if (found) return found;
  }
  throw new Error(`the OpenAPI document has no operation ${operationId}`);
}

// ---------------------------------------------------------------------------------------------
// Checks

function mediaTypeOf(contentType: string | null): string | null {
  if (contentType === null) return null;
  return contentType.split(';')[0].trim().toLowerCase();
}

function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === null || body === '';
}

/** Problems of a response against a Problem body of the generic routes. */
function genericProblemProblems(r: ExchangeUnderCheck, expectedStatuses: readonly number[], why: string): string[] {
  const context = `${r.method.toUpperCase()} ${r.path} → ${r.status}`;
  if (!expectedStatuses.includes(r.status))
    return [`${context}: ${why}, so the status must be ${expectedStatuses.join(' or ')}`];
  // A response to HEAD never has a body, whatever its status.
  if (r.method.toLowerCase() === 'head')
    return isEmptyBody(r.body) ? [] : [`${context}: a response to HEAD has a body`];
  return problemBodyProblems(r, context, pointerOf('components', 'schemas', 'Problem'));
}

function problemBodyProblems(r: ExchangeUnderCheck, context: string, schemaPointer: string): string[] {
  const mediaType = mediaTypeOf(r.contentType);
  if (mediaType !== PROBLEM_MEDIA_TYPE)
    return [`${context}: content type is ${r.contentType ?? '(none)'}, expected ${PROBLEM_MEDIA_TYPE}`];
  const problems = schemaProblems(schemaPointer, r.body, context);
  const status = (r.body as { status?: unknown } | null)?.status;
  if (typeof r.body === 'object' && r.body !== null && status !== undefined && status !== r.status) {
    problems.push(`${context}: body.status is ${JSON.stringify(status)}, the response status is ${r.status}`);
  }
  return problems;
}

/**
 * Problems of one response against the document; an empty array means it conforms.
 */
export function validateResponse(r: ExchangeUnderCheck): string[] {
  const route = matchRoute(r.method, r.path);
  if (route.kind === 'unknown-path')
    return genericProblemProblems(r, UNKNOWN_PATH_STATUSES, 'no path of the document matches');
  if (route.kind === 'unsupported-method') {
    return genericProblemProblems(
      r,
      UNSUPPORTED_METHOD_STATUSES,
      `${route.template} has no ${r.method.toUpperCase()} operation (only ${route.allowed.join(', ')})`,
    );
  }

  const { operation } = route;
  const context = `${r.method.toUpperCase()} ${r.path} (${operation.operationId}) → ${r.status}`;
  const responses = (operation.operation.responses ?? {}) as Json;
  const key = [String(r.status), `${String(r.status)[0]}XX`, 'default'].find(
    (candidate) => responses[candidate] !== undefined,
  );
  if (!key) return [`${context}: status ${r.status} is not declared (declared: ${Object.keys(responses).join(', ')})`];

  const response = dereference(`${operation.pointer}${pointerOf('responses', key)}`);
  if (!response) return [`${context}: the response object of ${key} does not resolve`];
  const content = response.value.content as Json | undefined;
  const isHead = r.method.toLowerCase() === 'head';
  if (!content || Object.keys(content).length === 0 || isHead) {
    return isEmptyBody(r.body) ? [] : [`${context}: a body was sent, but the response declares none`];
  }

  const mediaType = mediaTypeOf(r.contentType);
  const declared = Object.keys(content);
  if (mediaType === null || !declared.includes(mediaType)) {
    return [`${context}: content type is ${r.contentType ?? '(none)'}, expected ${declared.join(' or ')}`];
  }
  if (isEmptyBody(r.body)) return [`${context}: the body is empty, expected ${mediaType}`];
  const schemaPointer = `${response.pointer}${pointerOf('content', mediaType, 'schema')}`;
  if (mediaType === PROBLEM_MEDIA_TYPE) return problemBodyProblems(r, context, schemaPointer);
  return schemaProblems(schemaPointer, r.body, context);
}

/** Problems of a request body against the operation's `application/json` request body schema. */
export function validateRequestBody(operationId: string, body: unknown): string[] {
  const operation = operationById(operationId);
  const requestBody = dereference(`${operation.pointer}/requestBody`);
  if (!requestBody) return [`${operationId} declares no request body`];
  const content = requestBody.value.content as Json | undefined;
  if (!content?.[JSON_MEDIA_TYPE]) return [`${operationId} declares no ${JSON_MEDIA_TYPE} request body`];
  return schemaProblems(
    `${requestBody.pointer}${pointerOf('content', JSON_MEDIA_TYPE, 'schema')}`,
    body,
    `${operationId} request`,
  );
}

/**
 * Problems of the component schemas as JSON Schema 2020-12: each is checked against the
 * meta-schema and compiled in ajv's strict mode (unknown keywords, bad formats, …).
 */
export function componentSchemaProblems(): string[] {
  const { ajv, document } = load();
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  return Object.keys(schemas).flatMap((name) => {
    if (!ajv.validateSchema(schemas[name])) return [`${name}: ${ajv.errorsText(ajv.errors)}`];
    try {
      validatorAt(pointerOf('components', 'schemas', name));
      return [];
    } catch (error) {
      return [`${name}: ${(error as Error).message}`];
    }
  });
}

/** Problems of a value against a named component schema (`Candidate`, `Problem`, …). */
export function validateComponent(schemaName: string, value: unknown): string[] {
  return schemaProblems(pointerOf('components', 'schemas', schemaName), value, schemaName);
}

/** An example of the document: a media type's `example`, or one of a parameter's `examples`. */
export interface DocumentExample {
  /** where it is, for messages: `POST /v1/candidates/job-match request body`, `components/responses/BadRequest`, … */
  where: string;
  /** JSON pointer of the object holding it (media type or parameter) */
  pointer: string;
  /** undefined when the media type has no `example` */
  value: unknown;
  /** the response status it belongs to (responses only; a shared response: every status it is used under) */
  statuses: number[];
  /** problems of the value against the schema of its media type or parameter */
  problems: string[];
}

/**
 * Every media type of a request body or a response (of the operations and of components/responses,
 * each shared response once), with its `example` checked against its schema, and every example of
 * a parameter (`examples`) checked against the parameter's schema.
 */
export function documentExamples(): DocumentExample[] {
  const { document } = load();
  const found = new Map<string, DocumentExample>();
  const addMedia = (where: string, holder: string, status: number | undefined): void => {
    const resolved = dereference(holder);
    if (!resolved) throw new Error(`${where} does not resolve`);
    const content = (resolved.value.content ?? {}) as Record<string, Json>;
    for (const [mediaType, media] of Object.entries(content)) {
      const pointer = `${resolved.pointer}${pointerOf('content', mediaType)}`;
      const shared = resolved.pointer !== holder ? resolved.pointer.slice(1) : where;
      const entry = found.get(pointer) ?? {
        where: `${shared} ${mediaType}`,
        pointer,
        value: media.example,
        statuses: [],
        problems:
          media.example === undefined ? [] : schemaProblems(`${pointer}/schema`, media.example, `${shared} example`),
      };
      if (status !== undefined && !entry.statuses.includes(status)) entry.statuses.push(status);
      found.set(pointer, entry);
    }
  };
  for (const template of Object.keys(document.paths as Json)) {
    for (const operation of operationsOf(template)) {
      const name = `${operation.method.toUpperCase()} ${template}`;
      if (operation.operation.requestBody !== undefined)
        addMedia(`${name} request body`, `${operation.pointer}/requestBody`, undefined);
      for (const status of Object.keys(operation.operation.responses ?? {}))
        addMedia(`${name} ${status}`, `${operation.pointer}${pointerOf('responses', status)}`, Number(status));
    }
  }
  for (const name of Object.keys((document.components as Json).responses ?? {}))
    addMedia(`components/responses/${name}`, pointerOf('components', 'responses', name), undefined);

  const parameters = ((document.components as Json).parameters ?? {}) as Record<string, Json>;
  for (const [name, parameter] of Object.entries(parameters)) {
    const pointer = pointerOf('components', 'parameters', name);
    for (const [exampleName, example] of Object.entries((parameter.examples ?? {}) as Record<string, Json>)) {
      found.set(`${pointer}/examples/${exampleName}`, {
        where: `parameter ${name} example ${exampleName}`,
        pointer,
        value: example.value,
        statuses: [],
        problems: schemaProblems(`${pointer}/schema`, example.value, `parameter ${name} example ${exampleName}`),
      });
    }
  }
  return [...found.values()];
}
