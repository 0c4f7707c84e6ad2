import type { Db } from 'mongodb';
import { createApiKeyRepository } from '../auth/api-key-repository';
import { ApiKeyService } from '../auth/api-key-service';
import { PERMISSIONS } from '../auth/permissions';
import { CandidateRepository } from '../candidates/candidate-repository';
import type { Config } from '../config';
import { isAppError } from '../errors';
import type { Logger } from '../logger';
import type { Clock } from '../common/clock';
import { seedDemoData } from './seed-demo-data';
import { writeDemoKeyFile } from './demo-key-file';

/** The seed of the demo data the service puts into an empty embedded store. */
export const BOOTSTRAP_SEED = 1;

export interface DemoBootstrap {
  /** The demo key, when this start created it (to be shown once, never logged). */
  createdKey?: string;
  /**
   * DATA_DIR/demo-api-key.txt, when this start created the key: written at once, before the
   * service listens, so that a start failing after this point keeps the key.
   */
  keyFile?: string;
}

/**
 * Makes an embedded store usable at once (never called with MONGODB_URI): on a store without
 * candidates, seeds DEMO_CANDIDATES demo candidates (seed 1) with job opportunities and saved
 * lists; then makes sure a demo key with every permission exists: DEMO_API_KEY when set
 * (created if the store does not know it yet), else a random one on a store without keys,
 * written to DATA_DIR/demo-api-key.txt (mode 0600) at once.
 * Expects indexes and reference data to be in place.
 */
export async function bootstrapDemo(db: Db, config: Config, logger: Logger, clock: Clock): Promise<DemoBootstrap> {
  const candidates = await new CandidateRepository(db).countAll();
  if (candidates === 0 && config.demoCandidates > 0) {
    const started = process.hrtime.bigint();
    const counts = await seedDemoData(db, { candidates: config.demoCandidates, seed: BOOTSTRAP_SEED });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.info({ ...counts, ms: Math.round(ms) }, 'demo data seeded into the empty embedded store');
  }

  const keys = new ApiKeyService(createApiKeyRepository(db), clock);
  const demoKey = { name: 'demo', permissions: PERMISSIONS };
  if (config.demoApiKey !== '') {
    if (await isKnown(keys, config.demoApiKey)) return {};
    const created = await keys.createKey({ ...demoKey, value: config.demoApiKey });
    logger.info({ keyId: created.record.id }, 'demo API key created from DEMO_API_KEY');
    return {};
  }
  if ((await keys.listKeys()).length > 0) return {};
  const created = await keys.createKey(demoKey);
  const keyFile = writeDemoKeyFile(config.dataDir, created.key);
  logger.info(
    { keyId: created.record.id },
    'random demo API key created; it is shown once, outside the logs (on the terminal, or in a file of DATA_DIR)',
  );
  return { createdKey: created.key, keyFile };
}

async function isKnown(keys: ApiKeyService, key: string): Promise<boolean> {
  try {
    await keys.authenticate(key);
    return true;
  } catch (error) {
    if (isAppError(error)) return false;
    throw error;
  }
}
