import path from 'node:path';
import type { Db } from 'mongodb';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import type { Permission } from '../../src/auth/permissions';
import { seedDemoData } from '../../src/app/seed-demo-data';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { ERASURE_LOG_FILE } from '../../src/changes/erasure-log';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startInProcessStore } from '../../src/store/open-store';
import { appLogDestination, recordSecret } from './log-capture';

/** The service on a data directory of its own, as `npm start` keeps one (its files are what a test reads). */
export interface DurableApp {
  readonly url: string;
  readonly db: Db;
  readonly app: CandidateDirectory;
  /** The configuration the service runs with: what a CLI beside it is given (DATA_DIR, …). */
  readonly env: Record<string, string>;
  key(...permissions: [Permission, ...Permission[]]): Promise<string>;
  /** Stops the service, then its store (a clean stop: every commit on disk, the store's files closed). */
  stop(): Promise<void>;
}

/**
 * The real service over the embedded store running durably on `dataDir` in this process (on its
 * socket, its address in `dataDir/store.uri` for the CLIs, as under `npm start`), with the erasure
 * log where `npm start` keeps it (DATA_DIR/erasures.log). `candidates` demo candidates are seeded
 * into an empty store.
 */
export async function startDurableApp(
  dataDir: string,
  options: { candidates?: number; seed?: number; config?: Partial<Config> } = {},
): Promise<DurableApp> {
  const store = await startInProcessStore(dataDir);
  const logs = appLogDestination(`durable-${path.basename(dataDir)}`);
  const env = { DATA_DIR: dataDir };
  const config = loadConfig(env, {
    port: 0,
    mongodbUri: store.uri,
    erasureLog: path.join(dataDir, ERASURE_LOG_FILE),
    logLevel: logs.level,
    ...options.config,
  });
  let app: CandidateDirectory;
  try {
    app = await createApp(config, createLogger(config, logs.destination));
  } catch (error) {
    await store.close();
    throw error;
  }
  const db = app.database.db;
  if (options.candidates !== undefined)
    await seedDemoData(db, { candidates: options.candidates, seed: options.seed ?? 1 });
  const url = await app.start();
  const apiKeys = new ApiKeyService(createApiKeyRepository(db));
  return {
    url,
    db,
    app,
    env,
    key: async (...permissions) => {
      const { key } = await apiKeys.createKey({ name: `test ${permissions.join(' ')}`, permissions });
      recordSecret(key);
      return key;
    },
    stop: async () => {
      try {
        await app.stop();
      } finally {
        await store.close();
      }
    },
  };
}
