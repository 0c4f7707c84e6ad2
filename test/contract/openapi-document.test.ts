/**
 * The OpenAPI document of /v1 (schema/rest/openapi.json) against the product's REST contract
 * (the contract), read programmatically: operations and statuses of sections 4 and 7, every field
 * and enum of section 2, the bounds of section 8. Also: the document is structurally sound,
 * shows no identity data in any response, is served at GET /openapi.json, and lists exactly
 * the routes the REST router serves. Sample bodies show that the test-side validator rejects
 * what it must.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  MAX_LIMIT,
  MAX_CODES_PER_FILTER,
  MIN_LIMIT,
  MIN_PAGE,
  DEFAULT_LIMIT,
  MAX_AGE,
  MAX_EXAM_REQUIREMENTS,
  MAX_EXAM_SCORE,
  MAX_KEYWORD_LENGTH,
  MAX_LANGUAGE_REQUIREMENTS,
  MAX_SAVED_LISTS,
  MAX_YEARS_EXPERIENCE,
} from '../../src/candidates/search-input';
import { educationLevels as educationLevelDocs } from '../../src/reference/reference-data';
import { FILTER_PARAMETERS } from '../../src/rest/query-parameters';
import { MAX_CANDIDATES_PER_OFFER, MAX_COUPON_LENGTH, MAX_NOTES_LENGTH } from '../../src/candidates/offer-service';
import { MAX_LIST_ITEMS } from '../../src/candidates/registration-service';
import { PROBLEM_TYPES } from '../../src/http/problem-types';
import { openApiOperations, serveOpenApi } from '../../src/rest/openapi-route';
import { createRestRouter } from '../../src/rest/rest-router';
import { Idempotency } from '../../src/rest/idempotency';
import { IdempotencyRepository } from '../../src/idempotency/idempotency-repository';
import { createSchema } from '../../src/graphql/schema';
import { createLogger } from '../../src/logger';
import { createServices } from '../../src/app/create-services';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import {
  HTTP_METHODS,
  OPENAPI_FILE,
  OPENAPI_ROOT_KEYWORDS,
  componentSchemaProblems,
  matchRoute,
  openApiDocument,
  validateComponent,
  validateRequestBody,
  validateResponse,
} from '../support/openapi-validator';
import {
  IDENTITY_FIELDS,
  REFERENCE_KEYS,
  firstTableOf,
  firstTableWithHeader,
  parseInlineFields,
  readContract,
  sectionOf,
  contractEndpoints,
  contractErrorStatuses,
  contractTypeDefinitions,
  contractTypeName,
  contractTypesOf,
  type Expectation,
  type ContractEndpoint,
} from '../support/contract-tables';
import { describeUnlessMissing, missingShared, CONTRACT_PATH } from '../support/shared-files';

type Schema = Record<string, unknown>;

/** The fixed fields of the OpenAPI 3.1 objects this document uses. */
const OPENAPI_FIELDS = {
  document: OPENAPI_ROOT_KEYWORDS,
  info: ['title', 'summary', 'description', 'termsOfService', 'contact', 'license', 'version'],
  components: [
    'schemas',
    'responses',
    'parameters',
    'examples',
    'requestBodies',
    'headers',
    'securitySchemes',
    'links',
    'callbacks',
    'pathItems',
  ],
  pathItem: ['$ref', 'summary', 'description', ...HTTP_METHODS, 'servers', 'parameters'],
  operation: [
    'tags',
    'summary',
    'description',
    'externalDocs',
    'operationId',
    'parameters',
    'requestBody',
    'responses',
    'callbacks',
    'deprecated',
    'security',
    'servers',
  ],
  parameter: [
    'name',
    'in',
    'description',
    'required',
    'deprecated',
    'allowEmptyValue',
    'style',
    'explode',
    'allowReserved',
    'schema',
    'example',
    'examples',
    'content',
  ],
  requestBody: ['description', 'content', 'required'],
  response: ['description', 'headers', 'content', 'links'],
  mediaType: ['schema', 'example', 'examples', 'encoding'],
  header: ['description', 'required', 'deprecated', 'style', 'explode', 'schema', 'example', 'examples', 'content'],
  securityScheme: ['type', 'description', 'name', 'in', 'scheme', 'bearerFormat', 'flows', 'openIdConnectUrl'],
} as const satisfies Record<string, readonly string[]>;

const PUBLIC_ID = 'anqOhLMzRR6ENxcJTfvFfw';
const OTHER_PUBLIC_ID = 'Q2hlY2tzdW1zQXJlRnVuIQ';
/** Demo candidates of the real service whose answers are checked against the document. */
const DEMO_CANDIDATES = 60;

const document = openApiDocument();
// Every test below compares the document with the contract in ../shared: without it the whole suite is skipped.
const contractMissing = missingShared(CONTRACT_PATH, 'OpenAPI document tests');
let contract!: string;
let definitions!: ReturnType<typeof contractTypeDefinitions>;
let contractTypes!: ReturnType<typeof contractTypesOf>;
let endpoints: ContractEndpoint[] = [];
if (contractMissing === undefined) {
  contract = readContract();
  definitions = contractTypeDefinitions(contract);
  contractTypes = contractTypesOf(contract, definitions);
  endpoints = contractEndpoints(contract);
}

// ---------------------------------------------------------------------------------------------
// Reading the document

function at(pointer: string): unknown {
  let value: unknown = document;
  for (const raw of pointer.replace(/^#/, '').split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, token)) return undefined;
    value = (value as Schema)[token];
  }
  return value;
}

/** A local `$ref`'s target, or the object itself. */
function deref<T = Schema>(value: unknown): T {
  let current = value as Schema;
  for (let hops = 0; typeof current?.$ref === 'string'; hops++) {
    if (hops > 10) throw new Error('$ref chain too long');
    current = at(current.$ref) as Schema;
  }
  return current as T;
}

const componentSchemas = (document.components as { schemas: Record<string, Schema> }).schemas;

function component(name: string): Schema {
  const schema = componentSchemas[name];
  if (!schema) throw new Error(`components/schemas has no ${name}`);
  return schema;
}

function refName(schema: Schema | undefined): string | undefined {
  const ref = schema?.$ref;
  return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
}

function propertiesOf(schema: Schema): Record<string, Schema> {
  return (deref(schema).properties ?? {}) as Record<string, Schema>;
}

function requiredOf(schema: Schema): string[] {
  return [...((deref(schema).required ?? []) as string[])].sort();
}

/** An optional request field is `T | null`; this is T. */
function withoutNull(schema: Schema): Schema {
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const types = (schema.type as string[]).filter((type) => type !== 'null');
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(schema.anyOf)) {
    const others = (schema.anyOf as Schema[]).filter((option) => option.type !== 'null');
    if (others.length === 1 && others.length < (schema.anyOf as Schema[]).length)
      return { ...others[0], description: schema.description };
  }
  return schema;
}

interface Operation {
  method: string;
  path: string;
  operationId: string;
  operation: Schema;
}

const operations: Operation[] = Object.entries(document.paths as Record<string, Schema>).flatMap(([path, item]) =>
  HTTP_METHODS.filter((method) => item[method]).map((method) => {
    const operation = item[method] as Schema;
    return { method: method.toUpperCase(), path, operationId: String(operation.operationId), operation };
  }),
);

function operationOf(operationId: string): Operation {
  const found = operations.find((operation) => operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
}

function responsesOf(operationId: string): Record<string, Schema> {
  return operationOf(operationId).operation.responses as Record<string, Schema>;
}

function parametersOf(operationId: string): Schema[] {
  return ((operationOf(operationId).operation.parameters ?? []) as Schema[]).map((parameter) => deref(parameter));
}

function requestSchemaOf(operationId: string): Schema {
  const body = deref(operationOf(operationId).operation.requestBody);
  return (body.content as Record<string, { schema: Schema }>)['application/json'].schema;
}

/** Every value of the document, with its JSON pointer. */
function* walk(value: unknown, pointer = '#'): Generator<{ value: unknown; pointer: string }> {
  yield { value, pointer };
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      yield* walk(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  }
}

/** Every schema object reachable from `roots`, through $ref, properties, items and combinators. */
function reachableSchemas(roots: Schema[]): Map<string, Schema> {
  const seen = new Map<string, Schema>();
  const visit = (schema: Schema | undefined, where: string): void => {
    if (!schema || typeof schema !== 'object') return;
    if (typeof schema.$ref === 'string') {
      if (seen.has(schema.$ref)) return;
      const target = at(schema.$ref) as Schema | undefined;
      if (!target) return; // reported by the $ref test
      seen.set(schema.$ref, target);
      visitChildren(target, schema.$ref);
      return;
    }
    if (seen.has(where)) return;
    seen.set(where, schema);
    visitChildren(schema, where);
  };
  const visitChildren = (schema: Schema, where: string): void => {
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
      visit(property, `${where}/properties/${name}`);
    if (schema.items) visit(schema.items as Schema, `${where}/items`);
    if (typeof schema.additionalProperties === 'object')
      visit(schema.additionalProperties as Schema, `${where}/additionalProperties`);
    for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
      ((schema[keyword] ?? []) as Schema[]).forEach((option, i) => visit(option, `${where}/${keyword}/${i}`));
    }
  };
  roots.forEach((root, i) => visit(root, `root${i}`));
  return seen;
}

/** The schemas of every response body of every operation. */
function responseBodySchemas(): Schema[] {
  return operations.flatMap(({ operation }) =>
    Object.values(operation.responses as Record<string, Schema>).flatMap((response) =>
      Object.values((deref(response).content ?? {}) as Record<string, { schema: Schema }>).map((media) => media.schema),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Comparing a property schema with what the contract says

const SCALAR_SCHEMAS: Record<string, { type: string; format?: string }> = {
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  Int: { type: 'integer', format: 'int32' },
  Long: { type: 'integer', format: 'int64' },
  Float: { type: 'number', format: 'float' },
  Date: { type: 'string', format: 'date' },
  DateTime: { type: 'string', format: 'date-time' },
  PublicId: { type: 'string', format: 'base64-uuid' },
};

/** Problems of one (non-list) value schema against the contract's expectation; empty when it matches. */
function valueProblems(where: string, schema: Schema, expected: Expectation): string[] {
  const target = deref(schema);
  if (expected.enumValues) {
    const problems: string[] = [];
    const values = Array.isArray(target.enum) ? [...(target.enum as string[])].sort() : undefined;
    if (!values) return [`${where} is not an enum`];
    if (values.join() !== [...expected.enumValues].sort().join())
      problems.push(`${where} has values ${values.join()}, contract says ${expected.enumValues.join()}`);
    if (expected.named && refName(schema) !== expected.named)
      problems.push(`${where} should be the enum ${expected.named}, is ${refName(schema) ?? 'inline'}`);
    return problems;
  }
  if (expected.named === undefined) return target.type === 'object' ? [] : [`${where} should be an object`];
  const scalar = SCALAR_SCHEMAS[expected.named];
  if (scalar) {
    const actual = { type: target.type, format: target.format };
    return actual.type === scalar.type && actual.format === scalar.format
      ? []
      : [`${where} is ${JSON.stringify(actual)}, contract says ${JSON.stringify(scalar)}`];
  }
  return refName(schema) === expected.named
    ? []
    : [`${where} should be a ${expected.named}, is ${refName(schema) ?? JSON.stringify(schema)}`];
}

/** Problems of a property (list or not) against the contract. */
function propertyProblems(
  typeName: string,
  schema: Schema | undefined,
  fieldName: string,
  expected: Expectation,
): string[] {
  const where = `${typeName}.${fieldName}`;
  if (!schema) return [`${where} is missing`];
  if (expected.list) {
    if (schema.type !== 'array') return [`${where} should be an array`];
    return valueProblems(`${where}[]`, schema.items as Schema, expected);
  }
  if (schema.type === 'array') return [`${where} should not be an array`];
  return valueProblems(where, schema, expected);
}

/** Problems of a whole component against contract rows: fields, types, required, and nothing else. */
function typeProblems(typeName: string, rows: { name: string; type: string; notes: string }[]): string[] {
  const schema = component(typeName);
  const properties = propertiesOf(schema);
  const problems = rows.flatMap((row) =>
    propertyProblems(typeName, properties[row.name], row.name, contractTypes.interpret(typeName, row)),
  );
  const extra = Object.keys(properties).filter((name) => !rows.some((row) => row.name === name));
  if (extra.length > 0) problems.push(`${typeName} has fields the contract does not list: ${extra.join(', ')}`);
  const required = rows
    .filter((row) => contractTypes.interpret(typeName, row).required)
    .map((row) => row.name)
    .sort();
  if (requiredOf(schema).join() !== required.join())
    problems.push(`${typeName} requires ${requiredOf(schema).join()}, contract says ${required.join()}`);
  return problems;
}

/** `a`, `b` in backticks on the line of a section that contains `prefix`. */
function backtickNames(section: string, prefix: string): string[] {
  const line = section.split('\n').find((l) => l.includes(prefix));
  if (!line) throw new Error(`no line with ${prefix}`);
  return [...line.slice(line.indexOf(prefix)).matchAll(/`(\w+)`/g)].map((match) => match[1]);
}

/** The operations a phrase of section 7's Endpoints column names: `all`, `job-match`, `GET by publicId`. */
function endpointsNamed(phrase: string): ContractEndpoint[] {
  if (phrase === 'all') return endpoints;
  const byParameter = /^(GET|POST) by (\w+)$/.exec(phrase);
  const found = byParameter
    ? endpoints.filter(
        (endpoint) => endpoint.method === byParameter[1] && endpoint.path.endsWith(`/{${byParameter[2]}}`),
      )
    : endpoints.filter((endpoint) => endpoint.path.split('/').at(-1) === phrase);
  if (found.length !== 1) throw new Error(`section 7 names "${phrase}", which matches ${found.length} endpoints`);
  return found;
}

const GETS = endpoints.filter((endpoint) => endpoint.method === 'GET').map((endpoint) => endpoint.operationId);
const POSTS = endpoints.filter((endpoint) => endpoint.method === 'POST').map((endpoint) => endpoint.operationId);

// ---------------------------------------------------------------------------------------------

describeUnlessMissing(contractMissing)('OpenAPI document of /v1 (schema/rest/openapi.json)', () => {
  describe('structure', () => {
    it('when the document is read, then it is OpenAPI 3.1.0 with the 2020-12 dialect and the contract version', () => {
      const version = /Interface version: ([\d.]+)\./.exec(sectionOf(contract, '## 9.'))?.[1];

      expect(document.openapi).toBe('3.1.0');
      expect(document.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(version).toBe('1.0.0');
      expect((document.info as Schema).version).toBe(version);
      expect((document.servers as Schema[]).length).toBeGreaterThan(0);
    });

    it('when the OpenAPI objects are read, then each uses only the fields OpenAPI 3.1 defines for it (or x- extensions)', () => {
      const problems: string[] = [];
      const check = (where: string, value: unknown, allowed: readonly string[]) => {
        if (value === null || typeof value !== 'object') return problems.push(`${where} is not an object`);
        if (typeof (value as Schema).$ref === 'string' && where !== 'document') return undefined;
        for (const key of Object.keys(value))
          if (!allowed.includes(key) && !key.startsWith('x-')) problems.push(`${where} has ${key}`);
        return undefined;
      };
      const components = document.components as Record<string, Record<string, Schema>>;
      check('document', document, OPENAPI_FIELDS.document);
      check('info', document.info, OPENAPI_FIELDS.info);
      check('components', components, OPENAPI_FIELDS.components);
      for (const [name, scheme] of Object.entries(components.securitySchemes))
        check(`securityScheme ${name}`, scheme, OPENAPI_FIELDS.securityScheme);
      for (const [name, header] of Object.entries(components.headers ?? {}))
        check(`header ${name}`, header, OPENAPI_FIELDS.header);
      for (const [name, parameter] of Object.entries(components.parameters ?? {})) {
        check(`parameter ${name}`, parameter, OPENAPI_FIELDS.parameter);
        if (!['query', 'header', 'path', 'cookie'].includes(String(parameter.in)))
          problems.push(`parameter ${name} is in ${String(parameter.in)}`);
      }
      const checkResponse = (where: string, response: Schema) => {
        check(where, response, OPENAPI_FIELDS.response);
        for (const [mediaType, media] of Object.entries((response.content ?? {}) as Record<string, Schema>))
          check(`${where} ${mediaType}`, media, OPENAPI_FIELDS.mediaType);
      };
      for (const [name, response] of Object.entries(components.responses ?? {}))
        checkResponse(`response ${name}`, response);
      for (const [path, item] of Object.entries(document.paths as Record<string, Schema>)) {
        if (!path.startsWith('/')) problems.push(`path ${path} does not start with /`);
        check(path, item, OPENAPI_FIELDS.pathItem);
      }
      for (const { method, path, operation } of operations) {
        const where = `${method} ${path}`;
        check(where, operation, OPENAPI_FIELDS.operation);
        if (operation.requestBody) check(`${where} requestBody`, operation.requestBody, OPENAPI_FIELDS.requestBody);
        for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
          if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(status)) problems.push(`${where} has response key ${status}`);
          checkResponse(`${where} ${status}`, response);
        }
      }

      expect(problems).toEqual([]);
    });

    it('when every component schema is read as JSON Schema 2020-12, then it is valid and compiles in strict mode', () => {
      expect(componentSchemaProblems()).toEqual([]);
    });

    it('when any $ref is followed, then it resolves inside the document', () => {
      const refs = [...walk(document)]
        .filter(
          ({ value }) => value !== null && typeof value === 'object' && typeof (value as Schema).$ref === 'string',
        )
        .map(({ value, pointer }) => ({ ref: (value as Schema).$ref as string, pointer }));
      const broken = refs.filter(({ ref }) => !ref.startsWith('#/') || at(ref) === undefined);

      expect(refs.length).toBeGreaterThan(100);
      expect(broken).toEqual([]);
    });

    it('when the contract lists its endpoints, then the document has exactly those operations, with their operationIds, and the extensions beyond them say so', () => {
      const expected = endpoints.map(({ method, path, operationId }) => ({ method, path, operationId }));
      const isExtension = ({ operation }: Operation) => operation['x-extension'] === true;
      const extensions = operations
        .filter(isExtension)
        .map(({ method, path, operationId }) => ({ method, path, operationId }));

      expect(endpoints).toHaveLength(6);
      expect(extensions).toEqual([
        { method: 'GET', path: '/v1/statistics', operationId: 'getCandidateStatistics' },
        {
          method: 'GET',
          path: '/v1/saved-searches/{savedSearchId}/candidates',
          operationId: 'getSavedSearchCandidates',
        },
        { method: 'GET', path: '/v1/saved-lists', operationId: 'getSavedLists' },
      ]);
      expect(
        operations
          .filter((operation) => !isExtension(operation))
          .map(({ method, path, operationId }) => ({ method, path, operationId })),
      ).toEqual(expect.arrayContaining(expected));
      expect(operations).toHaveLength(expected.length + extensions.length);
      expect(openApiOperations()).toEqual(expect.arrayContaining([...expected, ...extensions]));
      expect(openApiOperations()).toHaveLength(expected.length + extensions.length);
    });

    it('when GET /v1/statistics lists its parameters, then they are the filter parameters of GET /v1/candidates (the same components) and groupBy and epsilon', () => {
      const refsOf = (operationId: string) =>
        ((operationOf(operationId).operation.parameters ?? []) as Schema[]).map((parameter) => String(parameter.$ref));
      // The search's own parameters (its page and order) are not the filter's.
      const searchFilter = refsOf('findCandidates').filter((ref) => !/\/(Page|Limit|Sort)$/.test(ref));

      expect(refsOf('getCandidateStatistics').sort()).toEqual(
        [...searchFilter, '#/components/parameters/GroupBy', '#/components/parameters/Epsilon'].sort(),
      );
      expect(searchFilter.length).toBeGreaterThanOrEqual(4);
    });

    it('when an operation is declared, then it has a summary, a description, tags, the API key security and responses', () => {
      const problems = operations.flatMap(({ operationId, operation }) => {
        const missing = ['summary', 'description', 'tags', 'responses'].filter((key) => !operation[key]);
        const security = JSON.stringify(operation.security);
        return [
          ...missing.map((key) => `${operationId} has no ${key}`),
          ...(security === JSON.stringify([{ ApiKey: [] }]) ? [] : [`${operationId} security is ${security}`]),
        ];
      });

      expect(problems).toEqual([]);
    });

    it('when the contract names the API key header, then the ApiKey scheme is an apiKey in that header, required globally', () => {
      const header = /header `([\w-]+)` with the caller's API key/.exec(sectionOf(contract, '## 5.'))?.[1];
      const scheme = (document.components as { securitySchemes: Record<string, Schema> }).securitySchemes.ApiKey;

      expect(header).toBe('X-API-Key');
      expect(scheme).toMatchObject({ type: 'apiKey', in: 'header', name: header });
      expect(document.security).toEqual([{ ApiKey: [] }]);
    });

    it('when anything is declared, then it is described: operations, parameters, responses, headers, schemas and their properties', () => {
      const undocumented: string[] = [];
      for (const { operationId, operation } of operations) {
        for (const parameter of parametersOf(operationId))
          if (!parameter.description) undocumented.push(`${operationId} parameter ${String(parameter.name)}`);
        for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
          if (!deref(response).description) undocumented.push(`${operationId} ${status}`);
          for (const [name, header] of Object.entries((deref(response).headers ?? {}) as Record<string, Schema>)) {
            if (!deref(header).description) undocumented.push(`${operationId} ${status} header ${name}`);
          }
        }
        if (operation.requestBody && !deref(operation.requestBody).description)
          undocumented.push(`${operationId} request body`);
      }
      for (const [name, schema] of Object.entries(componentSchemas)) {
        if (!schema.description) undocumented.push(`schema ${name}`);
        for (const [property, propertySchema] of Object.entries(propertiesOf(schema))) {
          if (!propertySchema.description) undocumented.push(`${name}.${property}`);
        }
      }

      expect(Object.keys(componentSchemas).length).toBeGreaterThan(50);
      expect(undocumented).toEqual([]);
    });
  });

  describe('responses (contract sections 4 and 7, and the additions of this service)', () => {
    it.each(endpoints.map((endpoint) => [endpoint.operationId, endpoint] as const))(
      'when contract section 4 lists the responses of %s, then each of those statuses is declared',
      (_operationId, endpoint) => {
        const declared = Object.keys(responsesOf(endpoint.operationId));

        expect(endpoint.statuses.length).toBeGreaterThanOrEqual(4);
        expect(declared).toEqual(expect.arrayContaining(endpoint.statuses.map(String)));
      },
    );

    it('when contract section 7 lists a status for some endpoints, then each of them declares it', () => {
      const rows = contractErrorStatuses(contract);
      const missing = rows.flatMap(({ status, endpoints: phrases }) =>
        phrases
          .flatMap(endpointsNamed)
          .filter((endpoint) => !responsesOf(endpoint.operationId)[String(status)])
          .map((endpoint) => `${endpoint.operationId} lacks ${status}`),
      );

      expect(rows.map((row) => row.status)).toEqual([400, 401, 403, 404, 409, 500]);
      expect(missing).toEqual([]);
    });

    it('when this service adds statuses, then 403 is on every operation, 404 on the saved list, and 409, 413, 415 and 422 on every POST', () => {
      const missing = [
        ...operations.map(({ operationId }) => [operationId, '403']),
        ['getCandidatesByPublicListId', '404'],
        ...POSTS.flatMap((operationId) => ['409', '413', '415', '422'].map((status) => [operationId, status])),
      ].filter(([operationId, status]) => !responsesOf(operationId)[status]);

      expect(missing).toEqual([]);
    });

    it('when the service answers before or beside the operation (unknown route, wrong method, timeout, oversized head), then every operation lists it', () => {
      const missing = operations.flatMap(({ operationId }) =>
        ['404', '405', '408', '431', '500', '503']
          .filter((status) => !responsesOf(operationId)[status])
          .map((status) => `${operationId} lacks ${status}`),
      );

      expect(missing).toEqual([]);
    });

    it('when a response is defined among the components, then some operation references it', () => {
      const referenced = new Set(
        operations.flatMap(({ operationId }) =>
          Object.values(responsesOf(operationId)).flatMap((response) =>
            typeof response.$ref === 'string' ? [response.$ref] : [],
          ),
        ),
      );
      const unused = Object.keys((document.components as { responses: Record<string, Schema> }).responses).filter(
        (name) => !referenced.has(`#/components/responses/${name}`),
      );

      expect(unused).toEqual([]);
    });

    it('when the document is read, then it names its license', () => {
      expect(document.info).toEqual(
        expect.objectContaining({ license: expect.objectContaining({ name: expect.any(String) }) }),
      );
    });

    it('when an operation answers with an error, then the content is application/problem+json with the Problem schema, and nothing else but its example', () => {
      const withoutExamples = (content: Record<string, Schema> | undefined) =>
        Object.fromEntries(
          Object.entries(content ?? {}).map(([mediaType, { example: _example, ...media }]) => [mediaType, media]),
        );
      const wrong = operations.flatMap(({ operationId, operation }) =>
        Object.entries(operation.responses as Record<string, Schema>)
          .filter(([status]) => Number(status) >= 400)
          .filter(
            ([, response]) =>
              JSON.stringify(withoutExamples(deref(response).content as Record<string, Schema> | undefined)) !==
              JSON.stringify({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }),
          )
          .map(([status]) => `${operationId} ${status}`),
      );

      expect(wrong).toEqual([]);
    });

    it('when an operation succeeds with a body, then it is application/json (the statistics extension also CSV); the 204 of the single fetch has none', () => {
      const successes = operations.flatMap(({ operationId, operation }) =>
        Object.entries(operation.responses as Record<string, Schema>)
          .filter(([status]) => Number(status) < 300)
          .map(
            ([status, response]) =>
              `${operationId} ${status} ${Object.keys((deref(response).content ?? {}) as Schema).join(',') || '(no body)'}`,
          ),
      );

      expect(successes.sort()).toEqual(
        [
          'findCandidates 200 application/json',
          'getCandidateByPublicId 200 application/json',
          'getCandidateByPublicId 204 (no body)',
          'getCandidatesByPublicListId 200 application/json',
          'getCandidateStatistics 200 application/json,text/csv',
          'getSavedLists 200 application/json',
          'getSavedSearchCandidates 200 application/json',
          'jobMatch 201 application/json',
          'offerToAssistCandidates 201 application/json',
          'registerCandidate 201 application/json',
        ].sort(),
      );
    });

    it('when a POST is answered 201, then the Idempotent-Replayed header is declared, and each POST takes an optional Idempotency-Key header', () => {
      for (const operationId of POSTS) {
        const header = parametersOf(operationId).find((parameter) => parameter.in === 'header');
        const created = deref(responsesOf(operationId)['201']);

        expect(header).toMatchObject({
          name: 'Idempotency-Key',
          required: false,
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        });
        expect(Object.keys((created.headers ?? {}) as Schema)).toEqual(['Idempotent-Replayed']);
      }
      for (const operationId of GETS)
        expect(parametersOf(operationId).filter((parameter) => parameter.in === 'header')).toEqual([]);
    });

    it('when the contract gives a 201 body, then the 201 schema has exactly those fields, all required, ids as public ids', () => {
      for (const endpoint of endpoints.filter((e) => e.method === 'POST')) {
        const names = backtickNames(sectionOf(contract, endpoint.section), '201 body');
        const schema = (deref(responsesOf(endpoint.operationId)['201']).content as Record<string, { schema: Schema }>)[
          'application/json'
        ].schema;
        const properties = propertiesOf(schema);

        expect(Object.keys(properties).sort()).toEqual([...names].sort());
        expect(requiredOf(schema)).toEqual([...names].sort());
        expect(properties.message).toMatchObject({ type: 'string' });
        const ids = names.filter((name) => name !== 'message');
        for (const id of ids) expect(refName(properties[id])).toBe('PublicId');
      }
    });

    it('when the problem types of the REST layer are formed, then each is a valid Problem and its status is declared somewhere', () => {
      const declared = new Set(operations.flatMap(({ operation }) => Object.keys(operation.responses as Schema)));
      // answered for any path: unknown routes and methods, and requests the HTTP server itself cannot read
      const generic = new Set(['404', '405', '408', '431']);
      for (const type of Object.values(PROBLEM_TYPES)) {
        const body = {
          type: type.type,
          title: type.title,
          status: type.status,
          detail: 'A detail.',
          instance: '/v1/candidates',
        };

        expect(validateComponent('Problem', body)).toEqual([]);
        expect(declared.has(String(type.status)) || generic.has(String(type.status))).toBe(true);
      }
    });
  });

  describe('parameters (contract sections 4.1, 4.3 and 8)', () => {
    const table = firstTableWithHeader(sectionOf(contract, '### 4.1'));
    const column = (name: string) => table.header.indexOf(name);
    const contractParameter = (name: string) => table.cells.find((cells) => cells[0] === name)!;

    /** `min 0` / `1 to 100` → JSON Schema bounds. */
    function boundsOf(text: string): Schema {
      const min = /^min (\d+)$/.exec(text);
      if (min) return { minimum: Number(min[1]) };
      const range = /^(\d+) to (\d+)$/.exec(text);
      if (range) return { minimum: Number(range[1]), maximum: Number(range[2]) };
      return {};
    }

    it('when the contract lists the query parameters of GET /v1/candidates, then those are declared first, optional, with type, default and bounds', () => {
      const declared = parametersOf('findCandidates').slice(0, table.cells.length);

      expect(declared.map((parameter) => parameter.name)).toEqual(table.cells.map((cells) => cells[0]));
      for (const parameter of declared) {
        const cells = contractParameter(String(parameter.name));
        const schema = deref(parameter.schema);
        const defaultText = cells[column('Default')];
        const expectedDefault = defaultText === '' ? undefined : JSON.parse(defaultText);

        expect(parameter).toMatchObject({ in: 'query', required: cells[column('Required')] === 'yes' });
        expect(schema.type).toBe(cells[column('Type')]);
        expect(schema.default).toEqual(expectedDefault);
        expect(schema).toMatchObject(boundsOf(cells[column('Bounds')]));
      }
    });

    it("when the search takes filters beyond the contract, then each is declared after the contract's, optional, as an extension, and no other is", () => {
      const extensions = parametersOf('findCandidates').slice(table.cells.length);
      const contractNames = new Set(table.cells.map((cells) => cells[0]));

      expect(extensions.map((parameter) => parameter.name)).toEqual([
        ...Object.keys(FILTER_PARAMETERS).filter((name) => !contractNames.has(name)),
        'sort',
      ]);
      for (const parameter of extensions) {
        expect(parameter).toMatchObject({ in: 'query', required: false });
        expect(parameter.description).toMatch(/^An extension of the contract: optional/);
      }
    });

    it('when the service bounds the filters beyond the contract, then the document states the same bounds', () => {
      const byName = Object.fromEntries(parametersOf('findCandidates').map((parameter) => [parameter.name, parameter]));
      const schemaOf = (name: string) => deref(byName[name].schema);

      for (const name of ['minYearsExperience', 'maxYearsExperience'])
        expect(schemaOf(name)).toMatchObject({ type: 'integer', minimum: 0, maximum: MAX_YEARS_EXPERIENCE });
      for (const name of ['minAge', 'maxAge'])
        expect(schemaOf(name)).toMatchObject({ type: 'integer', minimum: 0, maximum: MAX_AGE });
      const educationLevels = educationLevelDocs().map((level) => level.level);
      for (const name of ['minEducationLevel', 'maxEducationLevel'])
        expect(schemaOf(name)).toMatchObject({
          type: 'integer',
          minimum: Math.min(...educationLevels),
          maximum: Math.max(...educationLevels),
        });
      expect(schemaOf('keyword')).toMatchObject({ type: 'string', maxLength: MAX_KEYWORD_LENGTH });
      expect(schemaOf('sort')).toMatchObject({ enum: ['created', 'relevance'], default: 'created' });
      expect(byName.languages.description).toContain(`at most ${MAX_LANGUAGE_REQUIREMENTS}`);
      expect(byName.exams.description).toContain(`at most ${MAX_EXAM_REQUIREMENTS}`);
      expect(byName.exams.description).toContain(`from 0 to ${MAX_EXAM_SCORE}`);
      for (const name of ['inSavedLists', 'notInSavedLists'])
        expect(byName[name].description).toContain(`at most ${MAX_SAVED_LISTS}`);
    });

    it('when the service bounds page and limit, then the document states the same bounds and defaults', () => {
      const byName = Object.fromEntries(
        parametersOf('findCandidates').map((parameter) => [parameter.name, deref(parameter.schema)]),
      );

      expect(byName.page).toMatchObject({ type: 'integer', minimum: MIN_PAGE, default: 0 });
      expect(byName.limit).toMatchObject({
        type: 'integer',
        minimum: MIN_LIMIT,
        maximum: MAX_LIMIT,
        default: DEFAULT_LIMIT,
      });
      for (const name of ['location', 'nationality', 'occupation']) {
        const parameter = parametersOf('findCandidates').find((p) => p.name === name)!;
        expect(parameter.description).toContain(`at most ${MAX_CODES_PER_FILTER}`);
      }
    });

    it('when a saved list is paged, then page and limit are declared as on the search, and both path ids are required public ids', () => {
      const byList = parametersOf('getCandidatesByPublicListId');
      const search = Object.fromEntries(parametersOf('findCandidates').map((parameter) => [parameter.name, parameter]));

      expect(byList.map((parameter) => `${String(parameter.in)} ${String(parameter.name)}`)).toEqual([
        'path publicListId',
        'query page',
        'query limit',
      ]);
      expect(byList[1]).toEqual(search.page);
      expect(byList[2]).toEqual(search.limit);
      for (const [operationId, name] of [
        ['getCandidatesByPublicListId', 'publicListId'],
        ['getCandidateByPublicId', 'publicId'],
      ]) {
        const parameter = parametersOf(operationId).find((p) => p.name === name)!;
        expect(parameter).toMatchObject({ in: 'path', required: true });
        expect(refName(parameter.schema as Schema)).toBe('PublicId');
      }
    });

    it('when a path template has a parameter, then the operation declares it', () => {
      const problems = operations.flatMap(({ operationId, path }) =>
        [...path.matchAll(/\{(\w+)\}/g)]
          .map((match) => match[1])
          .filter(
            (name) =>
              !parametersOf(operationId).some((parameter) => parameter.in === 'path' && parameter.name === name),
          )
          .map((name) => `${operationId} does not declare {${name}}`),
      );

      expect(problems).toEqual([]);
    });
  });

  describe('schemas (contract section 2)', () => {
    it('when the contract lists the Status values and the YNR and YNUR notations, then the enums Status, YesNo and YesNoUnsure have exactly them', () => {
      expect(component('Status').enum).toEqual(definitions.statusValues);
      expect(component('YesNo').enum).toEqual(contractTypes.yesNo);
      expect(component('YesNoUnsure').enum).toEqual(contractTypes.yesNoUnsure);
    });

    it('when a shared value type of contract section 2.1 has a field, then its schema has it with the same type, format, values and requiredness, and no other', () => {
      const problems = definitions.valueTypes.flatMap(({ typeName, rows }) => typeProblems(typeName, rows));

      expect(definitions.valueTypes.map((definition) => definition.typeName).sort()).toEqual(
        ['Country', 'EducationLevel', 'EducationMajor', 'Language', 'LanguageLevel', 'Occupation'].sort(),
      );
      expect(requiredOf(component('Country'))).toEqual(['isoCode', 'name', 'status']);
      expect(problems).toEqual([]);
    });

    it('when contract section 2.2 lists a Candidate field, then the Candidate schema has it with the same type, format and values', () => {
      const properties = propertiesOf(component('Candidate'));
      const problems = definitions.candidateRows.flatMap((row) =>
        propertyProblems('Candidate', properties[row.name], row.name, contractTypes.interpret('Candidate', row)),
      );

      // guards the parser: the contract's Candidate tables hold 79 fields besides the nested lists
      expect(definitions.candidateRows.length).toBeGreaterThanOrEqual(79);
      expect(problems).toEqual([]);
    });

    it('when contract section 2.2 lists a nested list, then the Candidate has it as an array of the item type (maxEducationLevel: one EducationLevel)', () => {
      const properties = propertiesOf(component('Candidate'));
      const problems = definitions.nestedListRows.flatMap((row) => {
        const single = /single object/.test(row.type);
        const named = contractTypeName(row.type.split('(')[0].trim());
        return propertyProblems('Candidate', properties[row.name], row.name, { named, list: !single, required: false });
      });

      expect(definitions.nestedListRows).toHaveLength(11);
      expect(refName(properties.maxEducationLevel)).toBe('EducationLevel');
      expect(problems).toEqual([]);
    });

    it('when the Candidate schema is read, then it has only the contract fields (no GraphQL-only partner) and only publicId is required', () => {
      const contractNames = [...definitions.candidateRows, ...definitions.nestedListRows].map((row) => row.name).sort();

      expect(Object.keys(propertiesOf(component('Candidate'))).sort()).toEqual(contractNames);
      expect(requiredOf(component('Candidate'))).toEqual(['publicId']);
    });

    it('when a nested item type of contract section 2.2 has a field, then its schema has it with the same type, format, values and requiredness, and no other', () => {
      const problems: string[] = [];
      for (const { typeName, rows } of definitions.itemTypes) {
        problems.push(...typeProblems(typeName, rows));
        for (const row of rows) {
          // `employerEntity | object | anonymised employer: country (Country), …`
          const inline = /:\s*(.+)$/.exec(row.notes);
          const expected = contractTypes.interpret(typeName, row);
          const property = propertiesOf(component(typeName))[row.name];
          if (expected.named === undefined && !expected.enumValues && inline && property) {
            const objectName = refName(property);
            if (!objectName) problems.push(`${typeName}.${row.name} should refer to a named object schema`);
            else problems.push(...typeProblems(objectName, parseInlineFields(inline[1])));
          }
        }
      }

      expect(definitions.itemTypes.map((definition) => definition.typeName)).toEqual(
        expect.arrayContaining([
          'CandidateCertification',
          'CandidateEducation',
          'CandidateVisaJobCheck',
          'JobOpportunity',
          'Dependant',
        ]),
      );
      expect(requiredOf(component('CandidateCertification'))).toEqual(['dateCompleted', 'institution', 'name']);
      expect(problems).toEqual([]);
    });

    it('when contract section 2.3 lists the CandidatePage fields, then the schema has exactly them, all required, content of Candidates', () => {
      const rows = firstTableOf(sectionOf(contract, '### 2.3'));
      const schema = component('CandidatePage');
      const problems = rows.flatMap((row) =>
        propertyProblems(
          'CandidatePage',
          propertiesOf(schema)[row.name],
          row.name,
          contractTypes.interpret('CandidatePage', row),
        ),
      );

      expect(rows.map((row) => row.name)).toEqual(['content', 'totalElements', 'totalPages', 'size', 'number']);
      expect(Object.keys(propertiesOf(schema)).sort()).toEqual(rows.map((row) => row.name).sort());
      expect(requiredOf(schema)).toEqual(rows.map((row) => row.name).sort());
      expect(refName(propertiesOf(schema).content.items as Schema)).toBe('Candidate');
      expect(problems).toEqual([]);
    });

    it('when an id is a public id, then PublicId is a 22-character base64url string of format base64-uuid', () => {
      expect(component('PublicId')).toMatchObject({
        type: 'string',
        format: 'base64-uuid',
        pattern: '^[A-Za-z0-9_-]{22}$',
      });
    });
  });

  describe('request bodies (contract sections 2.4 and 4.4 to 4.6)', () => {
    const rows = firstTableOf(sectionOf(contract, '### 2.4'));
    const registration = component('RegistrationData');
    const registrationProperties = propertiesOf(registration);
    const candidateProperties = propertiesOf(component('Candidate'));

    /** The request schema that mirrors an output schema: references for reference data, `XInput` for items. */
    function inputNameFor(outputName: string): string {
      if (REFERENCE_KEYS[outputName]) return `${outputName}Reference`;
      return component(outputName).type === 'object' ? `${outputName}Input` : outputName;
    }

    /** Problems of an input property against the output property it mirrors ("as in 2.2"). */
    function mirrorProblems(where: string, input: Schema, output: Schema): string[] {
      const inputSchema = withoutNull(input);
      if ((output.type === 'array') !== (inputSchema.type === 'array')) return [`${where}: list shape differs`];
      const [inputValue, outputValue] =
        output.type === 'array' ? [inputSchema.items as Schema, output.items as Schema] : [inputSchema, output];
      const outputName = refName(outputValue);
      if (!outputName) {
        const strip = (schema: Schema) =>
          JSON.stringify(
            Object.entries(schema)
              .filter(([key]) => key !== 'description')
              .sort(),
          );
        return strip(inputValue) === strip(outputValue)
          ? []
          : [`${where} is ${strip(inputValue)}, Candidate has ${strip(outputValue)}`];
      }
      const expected = inputNameFor(outputName);
      if (refName(inputValue) !== expected)
        return [`${where} is ${refName(inputValue) ?? 'inline'}, expected ${expected}`];
      if (expected !== `${outputName}Input`) return [];
      const inputProperties = propertiesOf(component(expected));
      const outputProperties = propertiesOf(component(outputName));
      const problems: string[] = [];
      if (Object.keys(inputProperties).sort().join() !== Object.keys(outputProperties).sort().join()) {
        problems.push(
          `${expected} has ${Object.keys(inputProperties).join()}, ${outputName} has ${Object.keys(outputProperties).join()}`,
        );
      }
      for (const [name, outputProperty] of Object.entries(outputProperties)) {
        if (inputProperties[name])
          problems.push(...mirrorProblems(`${expected}.${name}`, inputProperties[name], outputProperty));
      }
      if (requiredOf(component(expected)).join() !== requiredOf(component(outputName)).join())
        problems.push(`${expected} and ${outputName} require different fields`);
      return problems;
    }

    it('when contract section 2.4 lists a registration field, then RegistrationData has it, and no other', () => {
      const contractNames = rows.flatMap((row) => row.name.split(',').map((name) => name.trim()));

      expect(contractNames.length).toBeGreaterThan(25);
      expect(Object.keys(registrationProperties).sort()).toEqual([...contractNames].sort());
      expect(component('RegistrationData').additionalProperties).toBe(false);
    });

    it('when the contract gives identity as firstName, lastName and email, then Identity has exactly those, the e-mail required', () => {
      const identityRow = rows.find((row) => row.name === 'identity')!;
      const identity = component('Identity');

      expect(refName(registrationProperties.identity)).toBe('Identity');
      expect(requiredOf(registration)).toEqual(['identity']);
      expect(Object.keys(propertiesOf(identity)).sort()).toEqual(
        parseInlineFields(identityRow.notes)
          .map((row) => row.name)
          .sort(),
      );
      expect(requiredOf(identity)).toEqual(['email']);
      expect(propertiesOf(identity).email).toMatchObject({ type: 'string', format: 'email' });
    });

    it('when the contract types a registration field itself (dob, phone, …), then RegistrationData has that type', () => {
      const problems = rows
        .filter((row) => row.type && row.type !== 'object' && row.type !== 'arrays')
        .flatMap((row) =>
          registrationProperties[row.name]
            ? propertyProblems(
                'RegistrationData',
                withoutNull(registrationProperties[row.name]),
                row.name,
                contractTypes.interpret('RegistrationData', row),
              )
            : [`RegistrationData.${row.name} is missing`],
        );

      expect(problems).toEqual([]);
    });

    it('when a registration field is "as in 2.2", then it mirrors the Candidate field, with Country-shaped references and XInput items', () => {
      const problems = rows
        .filter((row) => /same (item shapes|types)/.test(row.notes))
        .flatMap((row) => row.name.split(',').map((name) => name.trim()))
        .flatMap((name) =>
          registrationProperties[name] && candidateProperties[name]
            ? mirrorProblems(`RegistrationData.${name}`, registrationProperties[name], candidateProperties[name])
            : [`${name} missing on Candidate or RegistrationData`],
        );

      expect(problems).toEqual([]);
    });

    it('when reference data is referenced in a request, then the reference is shaped like the type, with only its key required', () => {
      const problems = Object.entries(REFERENCE_KEYS).flatMap(([typeName, key]) => {
        const reference = component(`${typeName}Reference`);
        const names = Object.keys(propertiesOf(reference)).sort().join();
        const problemsOfType: string[] = [];
        if (
          names !==
          Object.keys(propertiesOf(component(typeName)))
            .sort()
            .join()
        )
          problemsOfType.push(`${typeName}Reference has ${names}`);
        if (requiredOf(reference).join() !== key)
          problemsOfType.push(`${typeName}Reference requires ${requiredOf(reference).join()}`);
        const keyType = (schema: Schema) => JSON.stringify({ type: schema.type, format: schema.format });
        if (keyType(propertiesOf(reference)[key]) !== keyType(propertiesOf(component(typeName))[key]))
          problemsOfType.push(`${typeName}Reference.${key} is typed differently`);
        return problemsOfType;
      });

      expect(problems).toEqual([]);
    });

    it('when the contract gives the body of a POST, then the request schema has exactly its fields', () => {
      for (const endpoint of endpoints.filter((e) => e.method === 'POST')) {
        const section = sectionOf(contract, endpoint.section);
        const tableNames = firstTableOf(section).map((row) => row.name);
        const names = tableNames.length > 0 ? tableNames : backtickNames(section, 'Request body');
        const schema = requestSchemaOf(endpoint.operationId);

        expect(Object.keys(propertiesOf(schema)).sort()).toEqual([...names].sort());
        expect(deref(schema).additionalProperties).toBe(false);
        expect(deref(operationOf(endpoint.operationId).operation.requestBody).required).toBe(true);
      }
    });

    it('when job match and offer to assist name candidates, then each item has a required public id (offer: and an optional coupon), bounded like the service', () => {
      const itemOf = (operationId: string) => {
        const candidates = propertiesOf(requestSchemaOf(operationId)).candidates;
        expect(candidates).toMatchObject({ type: 'array', minItems: 1, maxItems: MAX_CANDIDATES_PER_OFFER });
        return component(refName(candidates.items as Schema)!);
      };
      const jobMatchItem = itemOf('jobMatch');
      const offerItem = itemOf('offerToAssistCandidates');

      expect(Object.keys(propertiesOf(jobMatchItem))).toEqual(['publicId']);
      expect(refName(propertiesOf(jobMatchItem).publicId)).toBe('PublicId');
      expect(Object.keys(propertiesOf(offerItem)).sort()).toEqual(['couponCode', 'publicId']);
      expect(requiredOf(offerItem)).toEqual(['publicId']);
      expect(propertiesOf(offerItem).couponCode).toMatchObject({ maxLength: MAX_COUPON_LENGTH });
      for (const operationId of ['jobMatch', 'offerToAssistCandidates']) {
        expect(propertiesOf(requestSchemaOf(operationId)).additionalNotes).toMatchObject({
          maxLength: MAX_NOTES_LENGTH,
        });
      }
      expect(registrationProperties.candidateSkills).toMatchObject({ maxItems: MAX_LIST_ITEMS });
    });

    it('when the contract lists the offer reasons, then reason is a required enum of exactly those', () => {
      const reasonRow = firstTableOf(sectionOf(contract, '### 4.5')).find((row) => row.name === 'reason')!;
      const schema = requestSchemaOf('offerToAssistCandidates');

      expect(requiredOf(schema)).toEqual(['candidates', 'reason']);
      expect(deref(propertiesOf(schema).reason).enum).toEqual(reasonRow.notes.split(',').map((value) => value.trim()));
    });
  });

  describe('anonymity and strictness of responses', () => {
    const reachable = reachableSchemas(responseBodySchemas());

    it('when any response schema is followed to its leaves, then no identity field appears anywhere', () => {
      const forbidden = new Set(IDENTITY_FIELDS.map((name) => name.toLowerCase()));
      const leaks = [...reachable.entries()].flatMap(([where, schema]) =>
        Object.keys((schema.properties ?? {}) as Schema)
          .filter((name) => forbidden.has(name.toLowerCase()))
          .map((name) => `${where}.${name}`),
      );

      expect(reachable.has('#/components/schemas/CandidateVisaJobCheck')).toBe(true);
      expect(leaks).toEqual([]);
    });

    it('when a response object schema is declared, then it forbids additional properties', () => {
      const open = [...reachable.entries()]
        .filter(([, schema]) => schema.type === 'object' && schema.additionalProperties !== false)
        .map(([where]) => where);

      expect(open).toEqual([]);
    });

    it('when a response schema is read, then no field may be null (absent fields are omitted)', () => {
      const nullable = [...reachable.entries()]
        .filter(([, schema]) => schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null')))
        .map(([where]) => where);

      expect(nullable).toEqual([]);
    });
  });

  describe('the test-side validator', () => {
    const candidatePath = `/v1/candidates/${PUBLIC_ID}`;
    const okJson = { status: 200, contentType: 'application/json; charset=utf-8' };
    const country = (isoCode: string, name: string) => ({ isoCode, name, status: 'ACTIVE' });
    const richCandidate = {
      publicId: PUBLIC_ID,
      createdDate: '2024-03-31T09:15:00.000Z',
      status: 'ACTIVE',
      gender: 'FEMALE',
      yearOfBirth: 1990,
      country: country('JO', 'Jordan'),
      nationality: country('SY', 'Syria'),
      hostEntryYear: 2014,
      availDate: '2024-06-01',
      intRecruitReasons: ['CANT_RETURN_HOME', 'EXPERIENCE'],
      ieltsScore: 6.5,
      frenchAssessmentScoreNclc: 7,
      partnerPublicId: OTHER_PUBLIC_ID,
      partnerCitizenship: [760],
      partnerEduLevel: { level: 6, status: 'ACTIVE', educationType: 'BACHELOR' },
      partnerEnglishLevel: { level: 4, name: 'Intermediate', cefrLevel: 'B1' },
      maxEducationLevel: { level: 6, status: 'ACTIVE' },
      candidateCertifications: [{ name: 'RN', institution: 'Damascus University', dateCompleted: '2012-07-01' }],
      candidateEducations: [
        {
          educationType: 'BACHELOR',
          country: country('SY', 'Syria'),
          educationMajor: { id: 913, iscedCode: '0913', name: 'Nursing and midwifery', status: 'ACTIVE' },
          yearCompleted: 2012,
        },
      ],
      candidateLanguages: [
        {
          language: { isoCode: 'ar', name: 'Arabic', status: 'ACTIVE' },
          writtenLevel: { level: 6 },
          spokenLevel: { level: 6 },
        },
      ],
      candidateOccupations: [
        {
          occupation: { isco08Code: '2221', name: 'Nursing professionals', status: 'ACTIVE' },
          yearsExperience: 5,
          candidateJobExperiences: [
            { country: country('SY', 'Syria'), role: 'Nurse', startDate: '2013-01-01', fullTime: true },
          ],
        },
      ],
      candidateVisaChecks: [
        {
          country: country('CA', 'Canada'),
          overallRisk: 'LOW',
          candidateVisaJobChecks: [
            {
              jobOpp: {
                country: country('CA', 'Canada'),
                employerEntity: { country: country('CA', 'Canada'), hasHiredInternationally: true },
                stage: 'CV_REVIEW',
                publishedDate: '2024-01-02T03:04:05Z',
              },
              eligible_494: 'NO_RESPONSE',
              languagesRequired: [1, 2],
            },
          ],
        },
      ],
    };
    const page = {
      content: [{ publicId: PUBLIC_ID }, richCandidate],
      totalElements: 2,
      totalPages: 1,
      size: 10,
      number: 0,
    };
    const problem = {
      type: PROBLEM_TYPES.notFound.type,
      title: PROBLEM_TYPES.notFound.title,
      status: 404,
      detail: 'No candidate has this public ID.',
      instance: candidatePath,
    };

    it('when a minimal or a rich Candidate is answered, then it is valid', () => {
      expect(
        validateResponse({ method: 'GET', path: candidatePath, ...okJson, body: { publicId: PUBLIC_ID } }),
      ).toEqual([]);
      expect(validateResponse({ method: 'GET', path: candidatePath, ...okJson, body: richCandidate })).toEqual([]);
    });

    it('when a CandidatePage is answered on the search or a saved list, then it is valid; the query string is ignored', () => {
      expect(
        validateResponse({ method: 'GET', path: '/v1/candidates?limit=10&location=JO', ...okJson, body: page }),
      ).toEqual([]);
      expect(
        validateResponse({ method: 'GET', path: `/v1/candidates/by-list/${OTHER_PUBLIC_ID}`, ...okJson, body: page }),
      ).toEqual([]);
    });

    it('when a Candidate carries the GraphQL-only partner, then it is rejected', () => {
      const problems = validateResponse({
        method: 'GET',
        path: candidatePath,
        ...okJson,
        body: { publicId: PUBLIC_ID, partner: { publicId: OTHER_PUBLIC_ID } },
      });

      expect(problems).toEqual([expect.stringContaining('"partner"')]);
    });

    it.each(IDENTITY_FIELDS)(
      'when a Candidate carries the identity field %s, at the top or nested, then it is rejected',
      (field) => {
        const top = validateResponse({
          method: 'GET',
          path: candidatePath,
          ...okJson,
          body: { publicId: PUBLIC_ID, [field]: 'x' },
        });
        const nested = validateResponse({
          method: 'GET',
          path: '/v1/candidates',
          ...okJson,
          body: { ...page, content: [{ publicId: PUBLIC_ID, candidateDependants: [{ [field]: 'x' }] }] },
        });

        expect(top).toEqual([expect.stringContaining(`"${field}"`)]);
        expect(nested).toEqual([expect.stringContaining(`"${field}"`)]);
      },
    );

    it('when a Candidate has a wrong enum value, a null field, a malformed date or a malformed public id, then each is rejected', () => {
      const check = (body: Schema) => validateResponse({ method: 'GET', path: candidatePath, ...okJson, body });

      expect(check({ publicId: PUBLIC_ID, status: 'HIRED' })).toEqual([
        expect.stringContaining('/status must be equal to one of the allowed values'),
      ]);
      expect(
        check({
          publicId: PUBLIC_ID,
          candidateVisaChecks: [{ candidateVisaJobChecks: [{ jobOpp: { stage: 'DONE' } }] }],
        }),
      ).toHaveLength(1);
      expect(check({ publicId: PUBLIC_ID, city: null })).toEqual([expect.stringContaining('/city must be string')]);
      expect(check({ publicId: PUBLIC_ID, availDate: '2024-02-30T00:00:00Z' })).toEqual([
        expect.stringContaining('/availDate must match format "date"'),
      ]);
      expect(check({ publicId: '5f0c7a7e-0b7d-4c1b-9f39-3f9f8a7d2c11' })).not.toEqual([]);
      expect(check({ city: 'Amman' })).toEqual([expect.stringContaining("must have required property 'publicId'")]);
    });

    it('when a CandidatePage misses a field or holds an invalid candidate, then it is rejected', () => {
      const { totalPages: _omitted, ...withoutTotalPages } = page;

      expect(validateResponse({ method: 'GET', path: '/v1/candidates', ...okJson, body: withoutTotalPages })).toEqual([
        expect.stringContaining("'totalPages'"),
      ]);
      expect(
        validateResponse({
          method: 'GET',
          path: '/v1/candidates',
          ...okJson,
          body: { ...page, content: [{ publicId: PUBLIC_ID, gender: 'X' }] },
        }),
      ).toEqual([expect.stringContaining('/content/0/gender')]);
    });

    it('when a Problem is answered, then it is valid as problem+json; without type, as application/json, or with another status it is rejected', () => {
      const answer = (body: Schema, contentType = 'application/problem+json', status = 404) =>
        validateResponse({ method: 'GET', path: candidatePath, status, contentType, body });
      const { type: _type, ...withoutType } = problem;

      expect(answer(problem)).toEqual([]);
      expect(answer(withoutType)).toEqual([expect.stringContaining("must have required property 'type'")]);
      expect(answer(problem, 'application/json')).toEqual([
        expect.stringContaining('expected application/problem+json'),
      ]);
      expect(answer({ ...problem, status: 400 })).toEqual([expect.stringContaining('body.status is 400')]);
      expect(answer({ ...problem, stack: 'at x' })).toEqual([expect.stringContaining('"stack"')]);
    });

    it('when a success is sent as problem+json or without a content type, then it is rejected', () => {
      expect(
        validateResponse({
          method: 'GET',
          path: candidatePath,
          status: 200,
          contentType: 'application/problem+json',
          body: { publicId: PUBLIC_ID },
        }),
      ).toEqual([expect.stringContaining('expected application/json')]);
      expect(
        validateResponse({
          method: 'GET',
          path: candidatePath,
          status: 200,
          contentType: null,
          body: { publicId: PUBLIC_ID },
        }),
      ).toHaveLength(1);
    });

    it('when a status is not declared for the operation, then it is reported', () => {
      const problems = validateResponse({
        method: 'GET',
        path: '/v1/candidates',
        status: 409,
        contentType: 'application/problem+json',
        body: { ...problem, status: 409 },
      });

      expect(problems).toEqual([expect.stringContaining('status 409 is not declared')]);
    });

    it('when the 201 of each POST is answered, then it is valid, and an id that is not a public id is rejected', () => {
      const created = (path: string, body: Schema) =>
        validateResponse({ method: 'POST', path, status: 201, contentType: 'application/json', body });

      expect(created('/v1/candidates/job-match', { message: 'Job match recorded.', jobMatchId: PUBLIC_ID })).toEqual(
        [],
      );
      expect(created('/v1/candidates/offer-to-assist', { message: 'Offer recorded.', offerId: PUBLIC_ID })).toEqual([]);
      expect(created('/v1/candidates/register', { message: 'Candidate registered.', publicId: PUBLIC_ID })).toEqual([]);
      expect(created('/v1/candidates/register', { message: 'Candidate registered.', publicId: 42 })).not.toEqual([]);
    });

    it('when a literal path segment could also be a parameter, then the literal wins: /v1/candidates/job-match is not {publicId}', () => {
      const post = matchRoute('POST', '/v1/candidates/job-match');
      const get = matchRoute('GET', '/v1/candidates/job-match');

      expect(post.kind === 'operation' && post.operation.operationId).toBe('jobMatch');
      expect(get).toEqual({ kind: 'unsupported-method', template: '/v1/candidates/job-match', allowed: ['POST'] });
      const byList = matchRoute('GET', `/v1/candidates/by-list/${PUBLIC_ID}?page=1`);
      expect(byList.kind === 'operation' && [byList.operation.operationId, byList.pathParameters]).toEqual([
        'getCandidatesByPublicListId',
        { publicListId: PUBLIC_ID },
      ]);
    });

    it('when a route is unknown or the method unsupported, then only a 404 or 405 Problem (or the 401 of a missing key) is accepted', () => {
      const notFound = {
        type: PROBLEM_TYPES.notFound.type,
        title: PROBLEM_TYPES.notFound.title,
        status: 404,
        detail: 'No such path.',
        instance: '/v1/nothing',
      };
      const notAllowed = {
        ...notFound,
        type: PROBLEM_TYPES.methodNotAllowed.type,
        title: PROBLEM_TYPES.methodNotAllowed.title,
        status: 405,
        instance: '/v1/candidates',
      };

      expect(
        validateResponse({
          method: 'GET',
          path: '/v1/nothing',
          status: 404,
          contentType: 'application/problem+json',
          body: notFound,
        }),
      ).toEqual([]);
      expect(
        validateResponse({
          method: 'GET',
          path: '/v1/nothing',
          status: 200,
          contentType: 'application/json',
          body: {},
        }),
      ).toEqual([expect.stringContaining('the status must be 401 or 404')]);
      expect(
        validateResponse({
          method: 'DELETE',
          path: '/v1/candidates',
          status: 405,
          contentType: 'application/problem+json',
          body: notAllowed,
        }),
      ).toEqual([]);
      expect(
        validateResponse({ method: 'DELETE', path: '/v1/candidates', status: 204, contentType: null, body: undefined }),
      ).toEqual([expect.stringContaining('the status must be 401 or 405')]);
      const unauthenticated = {
        ...notFound,
        type: PROBLEM_TYPES.unauthenticated.type,
        title: PROBLEM_TYPES.unauthenticated.title,
        status: 401,
      };
      expect(
        validateResponse({
          method: 'GET',
          path: '/v1/nothing',
          status: 401,
          contentType: 'application/problem+json',
          body: unauthenticated,
        }),
      ).toEqual([]);
    });

    it('when a request body is checked, then a valid one passes, and a missing e-mail, an unknown field or an empty candidate list is rejected', () => {
      const registration = {
        registrarId: 'partner-ngo',
        registrationData: {
          identity: { firstName: 'Amal', email: 'amal@example.org' },
          dob: '1990-05-01',
          country: { isoCode: 'JO', name: 'Jordan', status: 'ACTIVE' },
          nationality: { isoCode: 'SY' },
          maxEducationLevel: { level: 6 },
          candidateEducations: [{ educationMajor: { id: 913 }, country: { isoCode: 'SY' }, incomplete: null }],
          candidateLanguages: [{ language: { isoCode: 'ar' }, writtenLevel: { level: 6 } }],
          candidateOccupations: [{ occupation: { isco08Code: '2221' }, candidateJobExperiences: [{ role: 'Nurse' }] }],
          gender: 'FEMALE',
          city: null,
        },
      };

      expect(validateRequestBody('registerCandidate', registration)).toEqual([]);
      expect(
        validateRequestBody('registerCandidate', {
          registrationData: { ...registration.registrationData, identity: { firstName: 'Amal' } },
        }),
      ).toEqual([expect.stringContaining("must have required property 'email'")]);
      expect(validateRequestBody('registerCandidate', { ...registration, candidateNumber: '123' })).toEqual([
        expect.stringContaining('"candidateNumber"'),
      ]);
      expect(
        validateRequestBody('registerCandidate', {
          registrationData: { ...registration.registrationData, country: { name: 'Jordan' } },
        }),
      ).toEqual(
        expect.arrayContaining([
          expect.stringContaining("registrationData/country must have required property 'isoCode'"),
        ]),
      );
      expect(
        validateRequestBody('jobMatch', { candidates: [{ publicId: PUBLIC_ID }], additionalNotes: 'Two nurses.' }),
      ).toEqual([]);
      expect(validateRequestBody('jobMatch', { candidates: [] })).toEqual([
        expect.stringContaining('must NOT have fewer than 1 items'),
      ]);
      expect(
        validateRequestBody('offerToAssistCandidates', {
          candidates: [{ publicId: PUBLIC_ID, couponCode: 'EDU-2024' }],
          reason: 'EDUCATION_SERVICE',
        }),
      ).toEqual([]);
      expect(
        validateRequestBody('offerToAssistCandidates', { candidates: [{ publicId: PUBLIC_ID }], reason: 'CHARITY' }),
      ).toHaveLength(1);
    });
  });

  describe('the real service: its routes, its answers and GET /openapi.json', () => {
    let service: AppUnderTest;
    let admin: string;

    beforeAll(async () => {
      service = await startAppUnderTest({ candidates: DEMO_CANDIDATES, seed: 11 });
      admin = await service.key('ADMIN');
    });

    afterAll(async () => {
      await service.stop();
    });

    async function ask(
      method: string,
      path: string,
    ): Promise<{ status: number; allow: string | null; problems: string[] }> {
      const response = await fetch(`${service.url}${path}`, { method, headers: { 'x-api-key': admin } });
      const text = await response.text();
      const contentType = response.headers.get('content-type');
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      return {
        status: response.status,
        allow: response.headers.get('allow'),
        problems: validateResponse({ method, path, status: response.status, contentType, body }),
      };
    }

    it('when the REST router lists its routes, then they are exactly the operations of the document', async () => {
      const router = await createRestRouter({
        schema: createSchema(),
        services: createServices(service.db),
        logger: createLogger(service.app.config),
        idempotency: new Idempotency(new IdempotencyRepository(service.db), createLogger(service.app.config), 60_000),
      });
      // Router#listRoutes (router 2.3, public but not in @types/express): one entry per path,
      // methods in registration order, `*` for .all() (our 405) and the automatic HEAD of a GET.
      const listed = (router as unknown as { listRoutes(): { path: unknown; methods?: string[] }[] }).listRoutes();
      const served = listed.flatMap(({ path, methods }) =>
        (methods ?? [])
          .filter((method) => method !== '*' && method !== 'HEAD')
          .map((method) => `${method} /v1${String(path).replace(/:(\w+)/g, '{$1}')}`),
      );

      expect(listed.every(({ path }) => typeof path === 'string')).toBe(true);
      expect(served.sort()).toEqual(
        openApiOperations()
          .map(({ method, path }) => `${method} ${path}`)
          .sort(),
      );
    });

    it('when every documented path is asked with every method, then exactly the documented methods are served, the others get 405 with that Allow', async () => {
      const problems: string[] = [];
      for (const template of Object.keys(document.paths as Schema)) {
        // A malformed id reaches the route (400) without needing data; an unknown route is a 404.
        const path = template.replace(/\{\w+\}/g, 'not-a-public-id');
        const documented = operations
          .filter((operation) => operation.path === template)
          .map((operation) => operation.method);
        const served = documented.includes('GET') ? [...documented, 'HEAD'] : documented;
        for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) {
          const answer = await ask(method, path);
          problems.push(...answer.problems);
          if (served.includes(method)) {
            if (answer.status === 404 || answer.status === 405)
              problems.push(`${method} ${template} is documented, but answered ${answer.status}`);
          } else if (answer.status !== 405) {
            problems.push(`${method} ${template} is not documented, but answered ${answer.status}`);
          } else if ((answer.allow ?? '').split(/,\s*/).sort().join() !== [...served].sort().join()) {
            problems.push(
              `${template} answers Allow: ${answer.allow ?? '(none)'}, the document has ${served.join(', ')}`,
            );
          }
        }
      }

      expect(problems).toEqual([]);
    });

    it('when the demo candidates are searched and fetched one by one, then every answer conforms to the document', async () => {
      const search = await fetch(`${service.url}/v1/candidates?limit=100&includeEmployed=true`, {
        headers: { 'x-api-key': admin },
      });
      const page = (await search.json()) as { content: Schema[] };
      const problems = validateResponse({
        method: 'GET',
        path: '/v1/candidates',
        status: search.status,
        contentType: search.headers.get('content-type'),
        body: page,
      });
      for (const candidate of page.content) {
        const answer = await ask('GET', `/v1/candidates/${String(candidate.publicId)}`);
        problems.push(...answer.problems);
        expect(answer.status).toBe(200);
      }
      const nestedFields = new Set([...walk(page.content)].map(({ pointer }) => pointer.split('/').at(-1)!));

      expect(search.status).toBe(200);
      expect(page.content).toHaveLength(DEMO_CANDIDATES);
      // guards the sample: the demo data reaches deep into the schema
      expect([...nestedFields]).toEqual(
        expect.arrayContaining([
          'candidateVisaJobChecks',
          'employerEntity',
          'candidateJobExperiences',
          'educationMajor',
          'maxEducationLevel',
          'partnerEnglishLevel',
        ]),
      );
      expect(problems).toEqual([]);
    });

    it('when the service is asked GET /openapi.json without an API key, then it serves the document as application/json', async () => {
      const response = await fetch(`${service.url}/openapi.json`);

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(await response.json()).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
    });

    it('when a path under /v1 is not in the document, then the service answers 404 with a Problem', async () => {
      for (const path of ['/v1/nothing', '/v1/candidates/by-list/a/b', '/v1/candidates/job-match/extra']) {
        const answer = await ask('GET', path);

        expect(answer.status).toBe(404);
        expect(answer.problems).toEqual([]);
      }
    });
  });

  describe('serveOpenApi()', () => {
    it('when its handler is mounted on any express app, then it serves the document as application/json without an API key', async () => {
      const app = express();
      app.get('/openapi.json', serveOpenApi());
      const server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      try {
        const { port } = server.address() as AddressInfo;
        const response = await fetch(`http://127.0.0.1:${port}/openapi.json`);

        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
        expect(await response.json()).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
});
