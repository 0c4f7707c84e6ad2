import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { auditWhenClosed } from '../audit/audit-on-close';
import type { Permission } from '../auth/permissions';
import { createContext, type GraphQLContext } from '../graphql/context';
import { JSON_BODY_LIMIT } from '../http/body-limit';
import type { Logger } from '../logger';
import type { Metrics } from '../observability/metrics';
import { requestIdOf } from '../observability/request-id';
import { rateLimitHeaders, rateLimitPolicyHeader } from '../rate-limit/rate-limit-headers';
import { throwIfExceeded, type RateLimitKind } from '../rate-limit/rate-limiter';
import { toPage } from '../candidates/search-input';
import type { Services } from '../service-types';
import { fingerprintOf, idempotencyKeyOf, retryTokenOf, type CompletionOf, type Idempotency } from './idempotency';
import { loadPersistedOperations, type DataOf } from './persisted-operations';
import {
  internalProblem,
  problemInstance,
  RestProblem,
  send,
  sendSerialized,
  toProblem,
  type RestResponse,
} from '../http/problem';
import { PROBLEM_TYPES } from '../http/problem-types';
import { pageReads } from '../rate-limit/read-pricing';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { DIMENSIONS } from '../statistics/dimensions';
import { parseFilteredQuery } from './filter-parameters';
import {
  LIMIT,
  ORDER,
  PAGE,
  namesParameter,
  numberParameter,
  pageSizeGiven,
  parsePublicIdParameter,
  parseQuery,
} from './query-parameters';
import { CSV_CONTENT_TYPE, statisticsCsv } from './statistics-csv';
import { createRequestBodies, parseBody, type MutationName } from './request-bodies';
import { REST_ROUTES } from './rest-routes';
import { gzipEtag, gzippedBody, MIN_COMPRESSED_BYTES, ResponseCache, serialisedAnswer } from './response-cache';
import { withoutNulls } from './shape';
import { createRawReads } from './transcoder/raw-reads';

/**
 * The REST /v1 layer: each operation of the contract (contract section 4) parses its request,
 * runs its persisted GraphQL operation on the one schema with the one context factory, and
 * shapes the result. No rule of the product lives here.
 *
 * Order of checks, the same for every path: 401 (key) → 404/405 (route, method) → 403
 * (permission of the operation) → 503 for a GET while the audit buffer is full → 429 (rate limit: a page of candidates costs ceil(limit / 10) reads, any other GET one read, a POST one write) →
 * 415/413/400 (media type, size, JSON, parameters, body) → 422/409 (idempotency) → what the
 * operation itself answers (404, 409, 400, 201/200).
 * Each route names the permission of its operation so that a caller without it learns
 * nothing from input errors; the services check the same permission again, for both transports.
 */

export interface RestApiOptions {
  schema: GraphQLSchema;
  services: Services;
  logger: Logger;
  /** the Idempotency-Key records of the POSTs (built by the composition root over the store) */
  idempotency: Idempotency;
  /** the app's metrics (absent: the loaders report nothing) */
  metrics?: Metrics;
  /** READ_CACHE_MB in bytes: serialised GET answers kept between requests (absent or 0: none) */
  responseCacheBytes?: number;
}

/** GET /v1/candidates: the filter's parameters (filter-parameters.ts) and these. */
const SEARCH_PARAMETERS = { page: PAGE, limit: LIMIT, sort: ORDER };
const PAGE_PARAMETERS = { page: PAGE, limit: LIMIT };
/** GET /v1/statistics: the filter's parameters and these. */
const STATISTICS_PARAMETERS = {
  groupBy: namesParameter(DIMENSIONS),
  epsilon: numberParameter('a decimal number such as 0.5'),
};

const gzipAsync = promisify(gzip);

/** A POST of the contract: where it is, its OpenAPI operationId, the permission it needs, and the part of its mutation's data it answers. */
interface WriteRoute<N extends MutationName> {
  path: string;
  operationId: string;
  permission: Permission;
  result: (data: DataOf<N>) => unknown;
  /** the write registers a candidate (its erasure then reaches the answer kept for the Idempotency-Key) */
  registers?: true;
}

/** The POSTs, one persisted mutation each; each answers 201 with the mutation's result. */
const WRITES: { readonly [N in MutationName]: WriteRoute<N> } = {
  JobMatch: {
    path: REST_ROUTES.jobMatch,
    operationId: 'jobMatch',
    permission: 'SUBMIT_JOB_MATCHES',
    result: (data) => data.createJobMatch,
  },
  OfferToAssist: {
    path: REST_ROUTES.offerToAssist,
    operationId: 'offerToAssistCandidates',
    permission: 'OFFER_CANDIDATE_SERVICES',
    result: (data) => data.offerToAssist,
  },
  RegisterCandidate: {
    path: REST_ROUTES.register,
    operationId: 'registerCandidate',
    permission: 'REGISTER_CANDIDATES',
    result: (data) => data.registerCandidate,
    registers: true,
  },
};
const WRITE_NAMES: readonly MutationName[] = ['JobMatch', 'OfferToAssist', 'RegisterCandidate'];

/**
 * A GET of the contract (all need READ_CANDIDATE_DATA): where it is, its OpenAPI operationId,
 * whether it returns a page of candidates (weighed by its size), and `answer`, which checks the
 * parameters, runs the persisted query and writes the contract's JSON of its result.
 */
interface ReadRoute {
  path: string;
  operationId: string;
  pageOfCandidates: boolean;
  /**
   * Whether the answer to `req` depends on the key, not only on the URL (a saved search, or
   * lists a partner's key made for itself): then it is kept between requests for that key only.
   */
  perKey?: (req: Request) => boolean;
  answer: (req: Request, context: GraphQLContext) => Promise<string | Buffer>;
}

/** The router of /v1 (mount it at `/v1`). Fails when a persisted operation no longer fits the schema. */
export async function createRestRouter({
  schema,
  services,
  logger,
  idempotency,
  metrics,
  responseCacheBytes = 0,
}: RestApiOptions): Promise<Router> {
  const answers = new ResponseCache(responseCacheBytes);
  const operations = loadPersistedOperations(schema);
  const bodies = createRequestBodies(schema);
  const parseJson = express.json({ limit: JSON_BODY_LIMIT, type: () => true });
  // The bodies of the GETs, each written in one pass from its operation's result.
  const pageJson = operations.jsonWriter('FindCandidates', ['candidates']);
  const listPageJson = operations.jsonWriter('GetCandidatesByList', ['savedList', 'candidates']);
  const candidateJson = operations.jsonWriter('GetCandidate', ['candidate']);
  const statisticsJson = operations.jsonWriter('CandidateStatistics', ['candidateStatistics']);
  const savedSearchJson = operations.jsonWriter('RunSavedSearch', ['candidates']);
  const savedListsJson = operations.jsonWriter('ListSavedLists', ['savedLists']);
  // The same bodies written from the stored bytes where the operation compiles; the executor
  // answers when it did not, or when a stored value is one the transcoder leaves to it.
  const raw = createRawReads(operations, services);

  const reads: readonly ReadRoute[] = [
    {
      path: REST_ROUTES.search,
      operationId: 'findCandidates',
      pageOfCandidates: true,
      perKey: namesSavedLists,
      answer: async (req, context) => {
        const { filter, includeEmployed, values } = parseFilteredQuery(req.originalUrl, SEARCH_PARAMETERS);
        const { page, limit, sort } = values;
        const variables = defined({ page, limit, includeEmployed, sort, filter });
        const written = await raw.findCandidates(variables, context);
        if (written !== undefined) return written;
        const data = await operations.run('FindCandidates', variables, context);
        return pageJson(data.candidates);
      },
    },
    {
      path: REST_ROUTES.byList,
      operationId: 'getCandidatesByPublicListId',
      pageOfCandidates: true,
      perKey: () => true,
      answer: async (req, context) => {
        const { page, limit } = parseQuery(req.originalUrl, PAGE_PARAMETERS);
        const publicListId = parsePublicIdParameter(String(req.params.publicListId), 'publicListId');
        // The service's page rule, applied before the list is looked up: GraphQL would check the
        // page only under a list that exists, and input is checked before anything is looked up.
        toPage(page, limit);
        const variables = defined({ publicListId, page, limit });
        const written = await raw.getCandidatesByList(variables, context);
        if (written === null) throw new RestProblem(PROBLEM_TYPES.notFound, 'No saved list has this public id.');
        if (written !== undefined) return written;
        const data = await operations.run('GetCandidatesByList', variables, context);
        if (data.savedList === null) throw new RestProblem(PROBLEM_TYPES.notFound, 'No saved list has this public id.');
        return listPageJson(data.savedList.candidates);
      },
    },
    {
      path: REST_ROUTES.savedSearchCandidates,
      operationId: 'getSavedSearchCandidates',
      pageOfCandidates: true,
      perKey: () => true,
      answer: async (req, context) => {
        const { page, limit, sort } = parseQuery(req.originalUrl, SEARCH_PARAMETERS);
        const savedSearch = parsePublicIdParameter(String(req.params.savedSearchId), 'savedSearchId');
        const data = await operations.run('RunSavedSearch', defined({ savedSearch, page, limit, sort }), context);
        return savedSearchJson(data.candidates);
      },
    },
    {
      path: REST_ROUTES.savedLists,
      operationId: 'getSavedLists',
      pageOfCandidates: false,
      perKey: () => true,
      answer: async (req, context) => {
        parseQuery(req.originalUrl, {});
        const data = await operations.run('ListSavedLists', {}, context);
        return savedListsJson(data.savedLists);
      },
    },
    {
      path: REST_ROUTES.candidate,
      operationId: 'getCandidateByPublicId',
      pageOfCandidates: false,
      answer: async (req, context) => {
        parseQuery(req.originalUrl, {});
        const publicId = parsePublicIdParameter(String(req.params.publicId), 'publicId');
        const written = await raw.getCandidate({ publicId }, context);
        if (written === null) throw new RestProblem(PROBLEM_TYPES.notFound, 'No candidate has this public id.');
        if (written !== undefined) return written;
        const data = await operations.run('GetCandidate', { publicId }, context);
        if (data.candidate === null) throw new RestProblem(PROBLEM_TYPES.notFound, 'No candidate has this public id.');
        return candidateJson(data.candidate);
      },
    },
  ];

  /** Charges the request's weight to the key's budget: RateLimit headers on the answer, 429 over the budget. */
  const limit = async (res: Response, kind: RateLimitKind, weight = 1) => {
    const state = await services.rateLimits.charge(contextOf(res).apiKey, kind, weight);
    if (state) res.set(rateLimitHeaders(state));
    throwIfExceeded(state);
  };

  /**
   * A GET: permission, rate limit, then the route's answer, written by the operation's JSON
   * writer; the answer to the same URL under the same read epoch is served from `answers`
   * (what it returned is still audited for this request). A page of candidates weighs the
   * reads of its size (pageReads), as in GraphQL; anything else one read.
   */
  const get =
    ({ operationId, pageOfCandidates, perKey, answer: handle }: ReadRoute) =>
    async (req: Request, res: Response) => {
      const context = contextOf(res);
      context.audit.describeOperation(operationId);
      services.apiKeys.requirePermission(context.apiKey, 'READ_CANDIDATE_DATA');
      // Not served unaudited: refused while the audit buffer is full (the store away too long).
      services.audit.admitRead();
      // The rate limit comes before the parameters are checked: the size is read as given, and a
      // malformed one weighs as the default page (it is answered 400 right after).
      await limit(res, 'reads', pageOfCandidates ? pageReads(pageSizeGiven(req.originalUrl)) : 1);
      const kept = perKey?.(req) ? `${context.apiKey.id} ${req.originalUrl}` : req.originalUrl;
      let answer = answers.get(kept, context.readEpoch);
      if (answer !== undefined) {
        context.audit.addCandidates(answer.candidatePublicIds);
      } else {
        answer = {
          ...serialisedAnswer(await handle(req, context)),
          candidatePublicIds: context.audit.candidatePublicIds(),
        };
        answers.set(kept, context.readEpoch, answer);
      }
      // With the ETag set, Express neither hashes the body again nor misses a conditional GET (304).
      res.vary('Accept-Encoding');
      if (answer.body.length >= MIN_COMPRESSED_BYTES && req.acceptsEncodings('gzip', 'identity') === 'gzip') {
        sendSerialized(res, 200, await gzippedBody(answer), {
          ETag: gzipEtag(answer.etag),
          'Content-Encoding': 'gzip',
        });
      } else {
        sendSerialized(res, 200, answer.body, { ETag: answer.etag });
      }
    };

  /** A POST: permission, rate limit, media type, JSON, body shape, then the mutation under the request's Idempotency-Key. */
  const post =
    <N extends MutationName>(name: N) =>
    async (req: Request, res: Response) => {
      const route: WriteRoute<N> = WRITES[name];
      const context = contextOf(res);
      context.audit.describeOperation(route.operationId);
      services.apiKeys.requirePermission(context.apiKey, route.permission);
      await limit(res, 'writes');
      requireJson(req);
      parseQuery(req.originalUrl, {});
      await new Promise<void>((resolve, reject) =>
        parseJson(req, res, (error?: unknown) => (error ? reject(bodyProblem(error)) : resolve())),
      );
      const key = idempotencyKeyOf(req.headers['idempotency-key']);
      const variables = parseBody(bodies[name], req.body);

      const execute = async (completionOf?: CompletionOf): Promise<RestResponse> => {
        // A write that succeeds stores the answer kept for its Idempotency-Key with it.
        if (completionOf !== undefined)
          context.writeCompanions.push((outcome) =>
            completionOf(
              { status: 201, body: withoutNulls(outcome.result) },
              route.registers ? outcome.candidatePublicIds[0] : undefined,
            ),
          );
        try {
          const data = await operations.run(name, variables, context);
          return { status: 201, body: withoutNulls(route.result(data)) };
        } catch (error) {
          // The operation's own answers (404, 409, 400) are kept for a replay; anything else (a 500,
          // a 503 of an outage) is thrown: never kept, and answered with its headers (Retry-After).
          const known = toProblem(error, { instance: problemInstance(req.originalUrl), input: 'body' });
          if (known === undefined || known.problem.status >= 500) throw error;
          return { status: known.problem.status, body: known.problem };
        }
      };
      if (key === undefined) return send(res, await execute());
      const request = {
        apiKeyId: context.apiKey.id,
        key,
        fingerprint: fingerprintOf(req.method, `${req.baseUrl}${req.path}`, req.body),
        instance: problemInstance(req.originalUrl),
      };
      context.retryToken = retryTokenOf(request);
      const { response, replayed } = await idempotency.run(request, execute);
      send(res, response, replayed ? { 'Idempotent-Replayed': 'true' } : {});
    };

  /**
   * GET /v1/statistics: candidateStatistics under READ_STATISTICS, one read of the rate limit,
   * answered as JSON or, when the client prefers it (Accept), as CSV. Never kept in the answer
   * cache: an answer belongs to its key (its budget, its stored answers), and a new question
   * spends budget each time it is asked.
   */
  const statistics = async (req: Request, res: Response) => {
    const context = contextOf(res);
    context.audit.describeOperation('getCandidateStatistics');
    services.apiKeys.requirePermission(context.apiKey, 'READ_STATISTICS');
    services.audit.admitRead();
    await limit(res, 'reads');
    const { filter, includeEmployed, values } = parseFilteredQuery(req.originalUrl, STATISTICS_PARAMETERS);
    const variables = defined({ filter, includeEmployed, groupBy: values.groupBy ?? [], epsilon: values.epsilon });
    const data = await operations.run('CandidateStatistics', variables, context);
    const csv = req.accepts(['application/json', 'text/csv']) === 'text/csv';
    const body = Buffer.from(
      csv ? statisticsCsv(data.candidateStatistics) : statisticsJson(data.candidateStatistics),
      'utf8',
    );
    res.vary('Accept');
    res.vary('Accept-Encoding');
    res.set('Cache-Control', 'no-store');
    if (csv) res.type(CSV_CONTENT_TYPE);
    else res.type('application/json');
    if (body.length >= MIN_COMPRESSED_BYTES && req.acceptsEncodings('gzip', 'identity') === 'gzip') {
      res.set('Content-Encoding', 'gzip');
      res.status(200).send(await gzipAsync(body));
    } else {
      res.status(200).send(body);
    }
  };

  const router = express.Router();
  router.use(async (req, res, next) => {
    const requestId = requestIdOf(req, res);
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const context = await createContext(services, req.headers['x-api-key'], requestId, 'REST', metrics);
    res.locals.context = context;
    auditWhenClosed(res, services.audit, context.audit, logger);
    // Every authenticated answer states the key's budgets; the charged ones add RateLimit.
    const budgets = services.rateLimits.budgetsOf(context.apiKey);
    if (budgets) res.setHeader('RateLimit-Policy', rateLimitPolicyHeader(budgets));
    next();
  });

  // The literal paths of the POSTs before `/candidates/:publicId`, which would otherwise take them.
  for (const name of WRITE_NAMES) router.route(WRITES[name].path).post(post(name)).all(methodNotAllowed('POST'));
  for (const read of reads) router.route(read.path).get(get(read)).all(methodNotAllowed('GET, HEAD'));
  router.route(REST_ROUTES.statistics).get(statistics).all(methodNotAllowed('GET, HEAD'));
  router.use(() => {
    throw new RestProblem(PROBLEM_TYPES.notFound, 'No resource of this API has this path.');
  });
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const instance = problemInstance(req.originalUrl);
    // The router's own failure to percent-decode a path segment (its message quotes the segment).
    const failure =
      error instanceof URIError
        ? new RestProblem(
            PROBLEM_TYPES.invalidParameter,
            'Invalid parameter: a path segment is not valid percent-encoding.',
          )
        : error;
    const known = toProblem(failure, { instance, input: req.method === 'POST' ? 'body' : 'parameter' });
    if (known) return send(res, { status: known.problem.status, body: known.problem }, known.headers);
    const requestId = requestIdOf(req, res);
    logger.error({ err: error, requestId, method: req.method, path: req.path }, 'unexpected error in a /v1 request');
    send(res, { status: 500, body: internalProblem(instance, requestId) });
  });
  return router;
}

function contextOf(res: Response): GraphQLContext {
  return res.locals.context as GraphQLContext;
}

function methodNotAllowed(allow: string) {
  return (req: Request) => {
    throw new RestProblem(
      PROBLEM_TYPES.methodNotAllowed,
      `${req.method} is not supported on this path; it supports ${allow}.`,
      { Allow: allow },
    );
  };
}

/** 415 unless the body is declared JSON (charset aside); the body parser then refuses other charsets. */
function requireJson(req: Request): void {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new RestProblem(PROBLEM_TYPES.unsupportedMediaType, 'The request body must be application/json.');
  }
}

/** The problem of a body the JSON parser refused. Its message is never used: it may quote the body. */
function bodyProblem(error: unknown): RestProblem {
  const type = (error as { type?: unknown }).type;
  switch (type) {
    case 'entity.too.large':
      return new RestProblem(PROBLEM_TYPES.payloadTooLarge, `The request body is larger than ${JSON_BODY_LIMIT}.`);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new RestProblem(
        PROBLEM_TYPES.unsupportedMediaType,
        'The request body must be UTF-8 JSON, uncompressed or compressed with gzip, deflate or br.',
      );
    default:
      return new RestProblem(PROBLEM_TYPES.malformedJson, 'The request body is not valid JSON.');
  }
}

/** A search of saved lists finds what its key may read of them (a partner's lists are its own). */
function namesSavedLists(req: Request): boolean {
  const query = new URL(req.originalUrl, 'http://localhost').searchParams;
  return query.has('inSavedLists') || query.has('notInSavedLists');
}

/** Variables without undefined entries: an absent variable takes the argument's default. */
function defined<T extends object>(values: T): T {
  // The same object type with some optional entries left out.
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as T;
}
