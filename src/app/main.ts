// First: the traces' instrumentations patch the HTTP server and Express as they load.
import { tracing } from './traces';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../config';
import { systemClock, type Clock } from '../common/clock';
import { createLogger, type Logger } from '../logger';
import { answerClientError } from '../http/client-errors';
import { createHttpApp } from './http-app';
import { driverTimeouts, type Database } from '../store/mongo';
import { isStoreReachable } from '../store/availability';
import { watchConnection } from '../store/connection-watch';
import { createHealth } from '../http/health';
import { httpHygiene, httpServerOptions } from '../http/security';
import { COLLECTIONS, dropSupersededIndexes, ensureIndexes } from './indexes';
import { CandidateRepository } from '../candidates/candidate-repository';
import { STATISTICS_LISTS_INDEX } from '../statistics/statistics-indexes';
import { sealEarlierIdentities } from '../candidates/identity-migration';
import { erasureLogFor } from '../changes/erasure-log';
import { reapplyLoggedErasures } from '../changes/erasure-replay';
import { ErasureRepository } from '../changes/erasure-repository';
import { SEARCH_FIELDS_INDEX } from '../candidates/candidate-indexes';
import { applyAuditRetention } from '../audit/audit-repository';
import { compactOnEmbeddedStore } from '../store/secure-delete';
import { openStore } from '../store/open-store';
import { bootstrapDemo, type DemoBootstrap } from './demo-bootstrap';
import { showStartBanner, startFailureMessage } from './start-banner';
import { loadReferenceData } from '../reference/load-reference-data';
import { createServices, serviceOptions } from './create-services';
import { attachSubscriptionServer } from '../graphql/subscription-server';
import { createLiveOperations } from '../graphql/live-operations';
import { createSubscriptionStream } from '../graphql/subscription-stream';
import { createGraphQLEndpoint } from '../graphql/graphql-server';
import { servePlayground } from '../graphql/playground';
import { createSchema } from '../graphql/schema';
import { attachOperationExecutor } from '../graphql/execution/operation-executor';
import { createRestRouter } from '../rest/rest-router';
import { withAvailability } from '../store/availability';
import { Idempotency } from '../rest/idempotency';
import { IdempotencyRepository } from '../idempotency/idempotency-repository';
import { createMetrics, type Metrics } from '../observability/metrics';
import { observeMongoCommands } from '../observability/mongo-commands';
import { traceMongoCommands } from '../observability/mongo-command-spans';
import { createApiKeyRepository } from '../auth/api-key-repository';
import { createDeliveryClient } from '../webhooks/delivery-client';
import { changeOutbox } from '../webhooks/outbox-source';
import { createSecretBox } from '../webhooks/secret-box';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher';
import { WebhookRepository } from '../webhooks/webhook-repository';
import { hasWrittenOutMutationInput } from '../graphql/written-out-input';

export interface CandidateDirectory {
  readonly config: Config;
  readonly database: Database;
  readonly server: http.Server;
  /** The Prometheus metrics of this instance (its own registry), served at GET /metrics. */
  readonly metrics: Metrics;
  /** Resolves when the embedded store kept dying and was given up: the instance cannot serve any more. Never resolves otherwise. */
  readonly storeGaveUp: Promise<Error>;
  /** What an embedded demo store got at this start (the demo key to show once). */
  readonly demo: DemoBootstrap | undefined;
  /**
   * Writes what the bookkeeping holds back now: the buffered rate-limit counts and the queued
   * audit events (a stop does it too; tests call it instead of waiting for the flush intervals).
   */
  flushBookkeeping(): Promise<void>;
  /** Listens on config.host:config.port (0 = a free port) and resolves with the base URL. */
  start(): Promise<string>;
  /** Stops accepting requests, waits for in-flight ones, closes the pool and the embedded store. */
  stop(): Promise<void>;
}

/**
 * Composition root. Without MONGODB_URI the embedded store runs as a child process on
 * DATA_DIR: it then uses the second core, its garbage collection never pauses request
 * handling, and the service talks to it exactly as to a real mongod.
 */
export async function createApp(
  config: Config,
  logger: Logger = createLogger(config),
  /** what every time-based rule reads (src/common/clock.ts); tests pass one they move by hand */
  clock: Clock = systemClock,
): Promise<CandidateDirectory> {
  const metrics = createMetrics();
  const store = await openStore(config, {
    embedded: {
      run: 'child',
      events: {
        restarting: (details) => {
          metrics.embeddedStoreRestarts.inc();
          logger.error(details, 'embedded store exited unexpectedly; restarting it');
        },
        restarted: ({ pid, socketPath }) =>
          logger.info({ socket: socketPath, pid }, 'embedded MongoDB-compatible store restarted'),
      },
    },
    driver: driverTimeouts(config),
  });
  const { database, embedded } = store;
  if (embedded)
    logger.info(
      { socket: embedded.socketPath, pid: embedded.pid(), dataDir: config.dataDir },
      'embedded MongoDB-compatible store started',
    );
  observeMongoCommands(database.client, metrics);
  traceMongoCommands(database.client);
  await dropSupersededIndexes(database.db);
  // Data written before the statistics lists existed gets them before any statistics query counts
  // by them; before the indexes, whose creation records that this has run to its end.
  await new CandidateRepository(database.db).backfillStatisticsLists(STATISTICS_LISTS_INDEX);
  // The same for the search fields, before the search indexes that record it.
  await new CandidateRepository(database.db).backfillSearchFields(SEARCH_FIELDS_INDEX);
  await ensureIndexes(database.db);
  await applyAuditRetention(database.db, config.auditRetentionDays);
  // Data written before `listed` existed gets it before any search relies on it.
  await new CandidateRepository(database.db).backfillListed();
  // Identities an earlier release stored in clear are sealed under keys of their own; their clear
  // bytes then leave the data file (the embedded store's compaction) or stay with the operator's MongoDB.
  const earlier = await sealEarlierIdentities(database.db);
  if (earlier.sealed > 0) {
    const bytesFreed = await compactOnEmbeddedStore(database.db, COLLECTIONS.candidateIdentities);
    if (bytesFreed === undefined)
      logger.warn(
        earlier,
        'sealed identities stored in clear by an earlier release; their clear bytes stay in MongoDB until it reuses the space (docs/operators.md, "What an erasure removes")',
      );
    else logger.info({ ...earlier, bytesFreed }, 'sealed identities stored in clear by an earlier release');
  }
  // Erasures the store does not reflect (a restored older backup, an erasure a crash cut short)
  // are carried out again before anything is served.
  const erasureLog = erasureLogFor(config);
  if (erasureLog !== undefined) {
    const replay = await reapplyLoggedErasures(erasureLog, new ErasureRepository(database.db));
    if (replay.reapplied.length > 0)
      logger.warn(
        { erased: replay.reapplied.length, logged: replay.logged, erasureLog: erasureLog.file },
        'erased again candidates of the erasure log that the store still held',
      );
  }
  // Reference data ships with the code: upserted at every start, so a new release's list lands.
  await loadReferenceData(database.db);
  const demo = embedded ? await bootstrapDemo(database.db, config, logger, clock) : undefined;

  const services = createServices(database.db, serviceOptions(config, clock));
  // Automatic persisted queries keep queries only: mutations an earlier release kept (their text may hold identity data) go.
  const purged = await services.persistedQueries.removeAllButQueries();
  if (purged > 0) logger.info({ removed: purged }, 'removed stored automatic persisted queries that were not queries');
  // Likewise published operations an earlier release accepted with a mutation's input written out in their text.
  for (const { keyId, operationId } of await services.publishedOperations.retireWhere(hasWrittenOutMutationInput))
    logger.warn(
      { apiKeyId: keyId, operationId },
      "retired a published operation whose mutation input is written out in its text: publish the app's operation again taking its input from variables",
    );
  services.rateLimits.onRejection((kind) => metrics.rateLimitRejections.inc({ kind }));
  // The units stay buffered and go with the next flush; the requests are not failed for it.
  services.rateLimits.onFlushFailure((error) =>
    logger.warn({ err: error }, 'could not write the buffered rate-limit counts; retrying with the next flush'),
  );
  const flushBookkeeping = async (): Promise<void> => {
    await Promise.all([services.rateLimits.flush(), services.audit.drain()]);
  };
  // Reference data is public and does not change while the process runs: read once, here.
  await services.repositories.referenceCache.load();
  // One executable schema: Apollo serves it on /graphql, the persisted operations of /v1 run on it.
  const schema = createSchema();
  // GRAPHQL_JIT: both transports run the schema's operations through this instance's executor.
  attachOperationExecutor(schema, { compiled: config.graphqlJit });
  // REST first: a persisted operation that no longer fits the schema stops the start before Apollo runs.
  const rest = await createRestRouter({
    schema,
    services,
    logger,
    idempotency: new Idempotency(
      withAvailability(new IdempotencyRepository(database.db)),
      logger,
      config.writeLeaseMs,
      clock,
    ),
    metrics,
    responseCacheBytes: config.readCacheMb * 2 ** 20,
  });
  const graphql = await createGraphQLEndpoint(config, services, logger, schema, metrics);
  const health = createHealth(() => isStoreReachable(database.db, config.mongodbTimeoutMs));
  const connection = watchConnection(database, {
    timeoutMs: config.mongodbTimeoutMs,
    onReset: () => logger.warn('reconnected to the store: it answered a new connection while ours did not'),
  });
  // Subscriptions: Server-Sent Events at POST /graphql/stream, WebSocket upgrades of /graphql (below).
  const live = createLiveOperations({ config, schema, services, logger });
  const stream = createSubscriptionStream(live);
  const server = http.createServer(
    httpServerOptions(config.requestTimeoutMs),
    createHttpApp(
      {
        graphql: graphql.handler,
        graphqlStream: stream.handler,
        playground: servePlayground('/graphql'),
        rest,
        health: health.router,
      },
      logger,
      metrics,
      httpHygiene(config, logger),
    ),
  );
  server.on('clientError', answerClientError);
  // Subscriptions: the upgrades of /graphql to WebSocket, on the same port.
  const subscriptions = attachSubscriptionServer(server, live);
  // The webhooks command registers endpoints by the rules this service delivers by.
  await new WebhookRepository(database.db).recordEndpointPolicy(webhookEndpoints(config), clock.now());
  const webhooks = createWebhookDispatcher(database, config, clock, logger);
  let stopped: Promise<void> | undefined;
  return {
    config,
    database,
    server,
    metrics,
    storeGaveUp: embedded?.gaveUp ?? new Promise<Error>(() => undefined),
    demo,
    flushBookkeeping,
    start: () =>
      new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          const { port } = server.address() as AddressInfo;
          webhooks.start();
          resolve(`http://${config.host}:${port}`);
        });
      }),
    stop: () =>
      (stopped ??= (async () => {
        // Subscriptions end first: their connections would keep the server from draining.
        stream.close();
        await subscriptions.close();
        // Requests in flight finish (up to SHUTDOWN_GRACE_MS) while they still have Apollo and the pool.
        await health.drain(server, config.shutdownGraceMs);
        // An attempt in flight finishes (bounded by WEBHOOK_TIMEOUT_MS); what it did not confirm is sent after the restart.
        await webhooks.stop();
        await graphql.stop();
        // Every answered request's audit event and rate-limit units are written before the pool
        // closes (graphql.stop drained the audit queue already; this also covers REST-only traffic).
        await flushBookkeeping().catch((error: unknown) =>
          logger.error({ err: error }, 'could not write the buffered bookkeeping at stop'),
        );
        connection.stop();
        if (!(await store.close()))
          logger.warn(
            'the MongoDB client did not close in time (its server unreachable); left to the exit of the process',
          );
      })()),
  };
}

function webhookEndpoints(config: Config) {
  return { allowHttp: config.webhookAllowHttp, allowPrivateAddresses: config.webhookAllowPrivateAddresses };
}

/** The webhook deliveries of this instance, from the change outbox (src/webhooks/webhook-dispatcher.ts). */
function createWebhookDispatcher(database: Database, config: Config, clock: Clock, logger: Logger): WebhookDispatcher {
  return new WebhookDispatcher(
    new WebhookRepository(database.db),
    changeOutbox(database.db),
    createDeliveryClient({ ...webhookEndpoints(config), timeoutMs: config.webhookTimeoutMs }),
    clock,
    {
      maxAttempts: config.webhookMaxAttempts,
      backoffBaseMs: config.webhookBackoffBaseMs,
      backoffMaxMs: config.webhookBackoffMaxMs,
      pollMs: config.webhookPollMs,
      leaseMs: config.webhookLeaseMs,
      concurrency: config.webhookConcurrency,
    },
    logger,
    createApiKeyRepository(database.db),
    createSecretBox(config.webhookSecretKey),
  );
}

/** Entry point of `npm start`: validates the configuration, starts, and stops on SIGINT/SIGTERM. */
export async function start(): Promise<CandidateDirectory> {
  const config = loadConfig();
  const logger = createLogger(config);
  const app = await createApp(config, logger);
  let url: string;
  try {
    url = await app.start();
  } catch (error) {
    // Seeded and maybe given a demo key already: say where that key is, and stop the store.
    await app.stop().catch(() => undefined);
    throw new Error(await startFailureMessage(error, config, app.demo), { cause: error });
  }
  logger.info({ url }, 'candidate directory listening');
  showStartBanner(url, app.demo, { output: process.stdout, dataDir: config.dataDir, logger });
  const shutdown = (signal: string): void => {
    logger.info({ signal }, 'shutting down');
    app
      .stop()
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  void app.storeGaveUp.then((error) => {
    // Nothing left to serve from: exit non-zero so that the supervisor (systemd, Kubernetes) restarts the service.
    logger.fatal({ err: error }, 'embedded store keeps dying; exiting');
    process.exit(1);
  });
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return app;
}

if (require.main === module) {
  start().catch((error: unknown) => {
    // Config errors name the bad variable; anything else is printed for the operator.
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
