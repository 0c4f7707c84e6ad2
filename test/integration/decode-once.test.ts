import type { CommandSucceededEvent } from 'mongodb';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { rest } from '../support/rest-client';

/**
 * Candidates are decoded once per read. With command monitoring on (the metrics and the command
 * counts need it), the driver would decode each reply whole for its CommandSucceededEvent and
 * then every document again for the cursor; the repositories read candidates, job
 * opportunities and saved lists as raw documents, which the event keeps as bytes.
 */
describe('documents decoded once', () => {
  let service: AppUnderTest;
  let reader: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 60, seed: 5, config: { readCacheMb: 0, readCacheEntries: 0 } });
    reader = await service.key('READ_CANDIDATE_DATA');
  });

  afterAll(async () => {
    await service?.stop();
  });

  /** The documents of every find reply on `collections` while `act` runs: raw bytes, or decoded objects. */
  async function batchesDuring(collections: readonly string[], act: () => Promise<void>): Promise<unknown[]> {
    const documents: unknown[] = [];
    const listener = (event: CommandSucceededEvent) => {
      // Counts (an aggregate's one small document) are not documents read.
      if (event.commandName !== 'find' && event.commandName !== 'getMore') return;
      const cursor = (event.reply as { cursor?: { ns?: string; firstBatch?: unknown[]; nextBatch?: unknown[] } })
        .cursor;
      if (cursor?.ns === undefined || !collections.some((name) => cursor.ns!.endsWith(`.${name}`))) return;
      documents.push(...(cursor.firstBatch ?? cursor.nextBatch ?? []));
    };
    service.app.database.client.on('commandSucceeded', listener);
    try {
      await act();
    } finally {
      service.app.database.client.off('commandSucceeded', listener);
    }
    return documents;
  }

  test('when candidates are searched, fetched by id and by saved list, then the driver never decoded a candidate, job opportunity or saved list for its command event', async () => {
    let ids: string[] = [];
    const list = (await service.db.collection('savedLists').findOne({}))!;

    const documents = await batchesDuring(['candidates', 'jobOpportunities', 'savedLists'], async () => {
      const page = await rest(service.url, 'GET', '/v1/candidates?limit=20&includeEmployed=true', { key: reader });
      expect(page.status).toBe(200);
      ids = (page.body.content as { publicId: string }[]).map((c) => c.publicId);
      for (const id of ids.slice(0, 5))
        expect((await rest(service.url, 'GET', `/v1/candidates/${id}`, { key: reader })).status).toBe(200);
      expect(
        (await rest(service.url, 'GET', `/v1/candidates/by-list/${list.publicId}?limit=3`, { key: reader })).status,
      ).toBe(200);
    });

    expect(ids).toHaveLength(20);
    expect(documents.length).toBeGreaterThanOrEqual(26);
    expect(documents.filter((document) => !(document instanceof Uint8Array))).toEqual([]);
  });
});
