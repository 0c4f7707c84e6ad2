import type { Db } from 'mongodb';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import type { Permission } from '../../src/auth/permissions';
import type { Clock } from '../../src/common/clock';
import { loadConfig, type Config } from '../../src/config';
import { seedDemoData, writeDemoDocuments, type DemoDocuments } from '../../src/app/seed-demo-data';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { testDatabaseName } from './builders';
import { appLogDestination, recordSecret, type LogCapture } from './log-capture';
import { startStoreUnderTest } from 'embedded-mongodb/test-support';

export interface AppUnderTest {
  readonly url: string;
  readonly db: Db;
  readonly app: CandidateDirectory;
  /** A new API key with exactly these permissions. */
  key(...permissions: [Permission, ...Permission[]]): Promise<string>;
  stop(): Promise<void>;
}

export interface AppUnderTestOptions {
  /** demo candidates to seed with reference data (absent: nothing is seeded) */
  candidates?: number;
  seed?: number;
  /** instead of generated demo candidates: these documents, with reference data */
  documents?: DemoDocuments;
  config?: Partial<Config>;
  /** also sends the app's logs, at level trace, to this capture (they always go to the run's log files) */
  captureLogs?: LogCapture;
  /** the app's clock, which the keys made by `key()` are dated by too; absent: the system clock */
  clock?: Clock;
}

/**
 * The real service on a free port over the store under test (embedded in memory, or the
 * MongoDB of MONGODB_URI), in a database of its own so test files never share data.
 */
export async function startAppUnderTest(options: AppUnderTestOptions = {}): Promise<AppUnderTest> {
  const store = await startStoreUnderTest();
  const mongodbDb = testDatabaseName('app');
  // Every app logs to the run's files (searched for recorded secrets after the run), or to nowhere.
  const logs = appLogDestination(mongodbDb, options.captureLogs);
  const config = loadConfig(
    {},
    {
      port: 0,
      mongodbUri: store.uri,
      mongodbDb,
      logLevel: logs.level,
      ...options.config,
    },
  );
  const app = await createApp(config, createLogger(config, logs.destination), options.clock);
  const db = app.database.db;
  if (options.documents !== undefined) {
    await writeDemoDocuments(db, options.documents);
  } else if (options.candidates !== undefined) {
    await seedDemoData(db, { candidates: options.candidates, seed: options.seed ?? 1 });
  }
  const url = await app.start();
  const apiKeys = new ApiKeyService(createApiKeyRepository(db), options.clock);
  return {
    url,
    db,
    app,
    key: async (...permissions) => {
      const { key } = await apiKeys.createKey({ name: `test ${permissions.join(' ')}`, permissions });
      recordSecret(key);
      return key;
    },
    stop: async () => {
      await app.stop();
      await store.stop();
    },
  };
}

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  body: {
    data?: T | null;
    errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string; [k: string]: unknown } }[];
  };
}

/** One GraphQL request over HTTP, as a client app sends it. */
export async function graphql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  apiKey?: string,
): Promise<GraphQLResponse<T>> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as GraphQLResponse<T>['body'] };
}
