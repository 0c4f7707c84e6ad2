import fs from 'node:fs';
import path from 'node:path';
import { applyAuditRetention } from '../../src/audit/audit-repository';
import { AUDIT_RETENTION_INDEX } from '../../src/audit/audit-indexes';
import { READ_EPOCH_COLLECTION } from '../../src/cache/read-epoch';
import { WEBHOOK_SETTINGS_COLLECTION } from '../../src/webhooks/webhook-indexes';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';

/** The collections every request, retry or query adds to: each must expire what it holds. */
const TRAFFIC = [
  COLLECTIONS.idempotencyKeys,
  COLLECTIONS.rateLimits,
  COLLECTIONS.persistedQueries,
  COLLECTIONS.auditEvents,
];

describe('what bounds each collection', () => {
  let service: AppUnderTest;

  beforeAll(async () => {
    service = await startAppUnderTest({ config: { auditRetentionDays: 400 } });
  });

  afterAll(async () => {
    await service.stop();
  });

  const ttlOf = async (collection: string) =>
    (await service.db.collection(collection).listIndexes().toArray())
      .filter((index) => typeof index.expireAfterSeconds === 'number')
      .map((index) => ({
        name: index.name as string,
        key: index.key as object,
        seconds: index.expireAfterSeconds as number,
      }));

  test.each(TRAFFIC)('when the service has started, then %s has a TTL index', async (collection) => {
    expect(await ttlOf(collection)).toHaveLength(1);
  });

  test('when AUDIT_RETENTION_DAYS is 400, then audit events expire 400 days after their time; a new value replaces the index, 0 removes it', async () => {
    const day = 24 * 60 * 60;
    const at400 = await ttlOf(COLLECTIONS.auditEvents);

    await applyAuditRetention(service.db, 30);
    const at30 = await ttlOf(COLLECTIONS.auditEvents);
    await applyAuditRetention(service.db, 30);
    const again = await ttlOf(COLLECTIONS.auditEvents);
    await applyAuditRetention(service.db, 0);
    const none = await ttlOf(COLLECTIONS.auditEvents);
    await applyAuditRetention(service.db, 400);

    expect(at400).toEqual([{ name: AUDIT_RETENTION_INDEX, key: { time: 1 }, seconds: 400 * day }]);
    expect(at30).toEqual([{ name: AUDIT_RETENTION_INDEX, key: { time: 1 }, seconds: 30 * day }]);
    expect(again).toEqual(at30);
    expect(none).toEqual([]);
  });

  test('when the operators page lists what bounds each collection, then every collection of the service is there', () => {
    const docs = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'operators.md'), 'utf8');
    const section = /(?:^|\n)## What bounds each collection\n([\s\S]*?)(?=\n#|$)/.exec(docs)?.[1] ?? '';
    const listed = [...section.matchAll(/^\| `(\w+)`\s+\|/gm)].map((match) => match[1]);

    expect(listed.sort()).toEqual(
      [...Object.values(COLLECTIONS), READ_EPOCH_COLLECTION, WEBHOOK_SETTINGS_COLLECTION].sort(),
    );
  });
});
