import type { Db, MongoClient } from 'mongodb';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { COLLECTIONS } from '../../src/app/indexes';
import { copyOfDataFile, crashableStoreChild, powerCutSince } from 'embedded-mongodb/test-support';
import { appLogDestination, recordSecret } from '../support/log-capture';
import { expectWholeRegistrations } from '../support/registrations';
import { rest } from '../support/rest-client';

/**
 * A write is acknowledged only once it is durable. Many writers at once (registrations through
 * the service, and straight to the store: inserts, updates, findAndModify, transactions, index
 * builds) keep the store busy, two rounds. At a random moment of each round the writers
 * stop, the service writes what it holds back, and with every write answered and the store
 * idle the test copies its data file: the disk as a power cut would find it. One more write (a
 * batch) is sent and the store is killed with SIGKILL, before or after answering it. A kill -9
 * loses nothing the store wrote (the page cache keeps it), so the test then undoes that last
 * commit as a power cut would (powerCutSince: the meta page as in the copy, the commit's pages
 * torn). After the restarts every write acknowledged before a copy must be there, and nothing
 * of the lost batches.
 */
/** One round kills the store as the last batch is sent, the other once it is answered: each crash point once. */
const ROUNDS = 2;
const DB = 'durable_commit';
const WRITES = 'writes';
const PAIRS = 'pairs';

interface Acknowledged {
  inserts: string[];
  /** tokens pushed by update, by document */
  pushes: Map<string, string[]>;
  /** tokens pushed by findAndModify, by document */
  modified: Map<string, string[]>;
  /** _ids inserted in both WRITES and PAIRS by one transaction */
  transactions: string[];
  indexes: string[];
  registrations: string[];
}

/** Documents in each batch whose commit a power cut undoes. */
const LOST_BATCH = 200;

const store = crashableStoreChild('durable-commit');

describe('acknowledged writes under kill -9 and a power cut during the last commit', () => {
  let app: CandidateDirectory | undefined;

  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  it('when writers are answered, then the store is killed and the commit it was making lost to a power cut, then every write acknowledged before it is there and nothing of the lost commit', async () => {
    // Arrange
    let client = await store.start();
    const { key: apiKey } = await new ApiKeyService(createApiKeyRepository(client.db(DB))).createKey({
      name: 'durable-commit',
      permissions: ['REGISTER_CANDIDATES'],
    });
    recordSecret(apiKey);
    const logs = appLogDestination(DB);
    const config = loadConfig(
      {},
      {
        port: 0,
        mongodbUri: `${store.uri}&heartbeatFrequencyMS=500`,
        mongodbDb: DB,
        logLevel: logs.level,
        mongodbTimeoutMs: 1000,
      },
    );
    app = await createApp(config, createLogger(config, logs.destination));
    const url = await app.start();
    const acknowledged: Acknowledged = {
      inserts: [],
      pushes: new Map(),
      modified: new Map(),
      transactions: [],
      indexes: [],
      registrations: [],
    };
    const lost: string[] = [];
    let tornPages = 0;

    // Act
    for (let round = 1; round <= ROUNDS; round++) {
      let stopped = false;
      const acks = () => countAcknowledged(acknowledged);
      const atStart = acks();
      const writers = [
        ...range(8, (w) =>
          loop(
            () => stopped,
            async (i) => {
              const id = `r${round}-insert-${w}-${i}`;
              await client.db(DB).collection<{ _id: string }>(WRITES).insertOne({ _id: id });
              acknowledged.inserts.push(id);
            },
          ),
        ),
        ...range(3, (w) =>
          loop(
            () => stopped,
            async (i) => {
              const id = `push-${w}`;
              const token = `r${round}-${i}`;
              await client
                .db(DB)
                .collection<{ _id: string; tokens: string[] }>(WRITES)
                .updateOne({ _id: id }, { $push: { tokens: token } }, { upsert: true });
              pushTo(acknowledged.pushes, id, token);
            },
          ),
        ),
        ...range(3, (w) =>
          loop(
            () => stopped,
            async (i) => {
              const id = `modify-${w}`;
              const token = `r${round}-${i}`;
              await client
                .db(DB)
                .collection<{ _id: string; tokens: string[] }>(WRITES)
                .findOneAndUpdate({ _id: id }, { $push: { tokens: token } }, { upsert: true });
              pushTo(acknowledged.modified, id, token);
            },
          ),
        ),
        ...range(3, (w) =>
          loop(
            () => stopped,
            async (i) => {
              const id = `r${round}-transaction-${w}-${i}`;
              await inTransaction(client, async (db, session) => {
                await db.collection<{ _id: string }>(WRITES).insertOne({ _id: id }, { session });
                await db.collection<{ _id: string }>(PAIRS).insertOne({ _id: id }, { session });
              });
              acknowledged.transactions.push(id);
            },
          ),
        ),
        ...range(6, (w) =>
          loop(
            () => stopped,
            async (i) => {
              const email = `durable-commit-r${round}-${w}-${i}@example.org`;
              recordSecret(email);
              const body = {
                registrarId: 'durable-commit',
                registrationData: { identity: { email, lastName: 'Commit' }, city: 'Amman' },
              };
              const answer = await rest(url, 'POST', '/v1/candidates/register', { key: apiKey, body });
              if (answer.status === 201) acknowledged.registrations.push(answer.body.publicId as string);
            },
          ),
        ),
        (async () => {
          const name = `round_${round}`;
          await client
            .db(DB)
            .collection(WRITES)
            .createIndex({ [name]: 1 }, { name });
          acknowledged.indexes.push(name);
        })().catch(() => undefined),
      ];
      // Stopped once the writers are well under way, at a random moment after that.
      await until(() => acks() - atStart >= 50);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
      stopped = true;
      await Promise.all(writers);
      // Every write sent is answered; what the service holds back is written: the store is idle.
      await app.flushBookkeeping();
      const copy = copyOfDataFile(store.dir);

      // The last commit: a batch, killed as soon as it is sent (odd rounds) or once answered.
      const batch = range(LOST_BATCH, (i) => `r${round}-lost-${i}`);
      const sent = client
        .db(DB)
        .collection<{ _id: string }>(WRITES)
        .insertMany(batch.map((_id) => ({ _id })));
      if (round % 2 === 0) await sent;
      await store.kill();
      await sent.catch(() => undefined);
      lost.push(...batch);
      tornPages += powerCutSince(store.dir, copy).tornPages;
      client = await store.start();
    }

    // Assert
    const db = client.db(DB);
    const missing = async (collection: string, ids: readonly string[]): Promise<string[]> => {
      const found = new Set(
        (
          await db
            .collection<{ _id: string }>(collection)
            .find({ _id: { $in: [...ids] } }, { projection: { _id: 1 } })
            .toArray()
        ).map((doc) => doc._id),
      );
      return ids.filter((id) => !found.has(id));
    };
    const missingTokens = async (byDocument: Map<string, string[]>): Promise<string[]> => {
      const lost: string[] = [];
      for (const [id, tokens] of byDocument) {
        const doc = await db.collection<{ _id: string; tokens?: string[] }>(WRITES).findOne({ _id: id });
        const stored = new Set(doc?.tokens ?? []);
        lost.push(...tokens.filter((token) => !stored.has(token)).map((token) => `${id}:${token}`));
      }
      return lost;
    };
    const indexes = new Set((await db.collection(WRITES).listIndexes().toArray()).map((index) => index.name as string));
    const registered = new Set(
      (
        await db
          .collection(COLLECTIONS.candidates)
          .find({ publicId: { $in: acknowledged.registrations } }, { projection: { _id: 0, publicId: 1 } })
          .toArray()
      ).map((doc) => doc.publicId as string),
    );
    expect({
      inserts: await missing(WRITES, acknowledged.inserts),
      updates: await missingTokens(acknowledged.pushes),
      findAndModify: await missingTokens(acknowledged.modified),
      transactions: [
        ...(await missing(WRITES, acknowledged.transactions)),
        ...(await missing(PAIRS, acknowledged.transactions)),
      ],
      indexes: acknowledged.indexes.filter((name) => !indexes.has(name)),
      registrations: acknowledged.registrations.filter((publicId) => !registered.has(publicId)),
    }).toEqual({ inserts: [], updates: [], findAndModify: [], transactions: [], indexes: [], registrations: [] });
    expect(await db.collection<{ _id: string }>(WRITES).countDocuments({ _id: { $in: lost } })).toBe(0);
    await expectWholeRegistrations(db);
    // Every kind of write was acknowledged during the rounds, and the commits answered before a kill were torn.
    expect(acknowledged.registrations.length).toBeGreaterThan(0);
    expect(acknowledged.transactions.length).toBeGreaterThan(0);
    expect(acknowledged.indexes.length).toBeGreaterThan(0);
    expect(tornPages).toBeGreaterThan(0);
  }, 180_000);
});

function countAcknowledged(acknowledged: Acknowledged): number {
  const tokens = (byDocument: Map<string, string[]>) =>
    [...byDocument.values()].reduce((sum, list) => sum + list.length, 0);
  return (
    acknowledged.inserts.length +
    tokens(acknowledged.pushes) +
    tokens(acknowledged.modified) +
    acknowledged.transactions.length +
    acknowledged.indexes.length +
    acknowledged.registrations.length
  );
}

function range<T>(count: number, make: (index: number) => T): T[] {
  return Array.from({ length: count }, (_, index) => make(index));
}

function pushTo(byDocument: Map<string, string[]>, id: string, token: string): void {
  byDocument.set(id, [...(byDocument.get(id) ?? []), token]);
}

/** Runs `write` (iteration 0, 1, ...) until `stopped`; a failed write (the store is down) is not acknowledged. */
async function loop(stopped: () => boolean, write: (iteration: number) => Promise<void>): Promise<void> {
  for (let i = 0; !stopped(); i++) {
    try {
      await write(i);
    } catch {
      if (stopped()) return;
    }
    // Let the other writers and the kill run when a write returns at once.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** One transaction, without the driver's retries (withTransaction would retry a dead store for 120 s). */
async function inTransaction(
  client: MongoClient,
  work: (db: Db, session: ReturnType<MongoClient['startSession']>) => Promise<void>,
): Promise<void> {
  const session = client.startSession();
  try {
    session.startTransaction();
    await work(client.db(DB), session);
    await session.commitTransaction();
  } catch (error) {
    if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
    throw error;
  } finally {
    await session.endSession().catch(() => undefined);
  }
}

async function until(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the writers did not get under way');
}
