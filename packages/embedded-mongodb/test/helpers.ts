import { randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { spawnEmbeddedStore, type EmbeddedStoreProcess } from '../src/embedded-process';
import { Catalog } from '../src/engine/catalog';
import { StorageEngine } from '../src/persistence/storage-engine';

/**
 * A catalog on a storage engine of its own (a temporary directory), for tests of the engine's
 * parts without a server; closed and removed after the file's tests.
 */
export function temporaryCatalog(): Catalog {
  const catalog = new Catalog(StorageEngine.temporary());
  afterAll(() => catalog.engine.close());
  return catalog;
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function makeTempDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** The storage engine's data file in a data directory (LMDB's `data.mdb`). */
function engineDataFile(dir: string): string {
  return path.join(dir, 'data.mdb');
}

/**
 * A copy of the data file of `dir`, to take while the store is idle (every write it was sent
 * answered), for powerCutSince.
 */
export function copyOfDataFile(dir: string): Buffer {
  return fs.readFileSync(engineDataFile(dir));
}

/** LMDB's page size, as the storage engine opens its environment (storage-engine.ts). */
const ENGINE_PAGE_BYTES = 8192;
/** Pages 0 and 1 are LMDB's meta pages: a commit ends by writing one of them, with its txnid. */
const META_PAGES = 2;
/** LMDB's page header (page number, txnid, flags, free-space bounds), which MDB_meta follows on a meta page. */
const PAGE_HEADER_BYTES = 24;
/** MDB_meta opens with LMDB's magic number and holds the id of the transaction that wrote it at byte 128. */
const LMDB_MAGIC = 0xbeefc0de;
const META_TXNID_OFFSET = PAGE_HEADER_BYTES + 128;

/**
 * The id of the last transaction committed in a copy of the data file: the higher txnid of its
 * two meta pages (LMDB opens the file at that one).
 */
function lastCommittedTxn(dataFile: Buffer): bigint {
  let last = 0n;
  for (let page = 0; page < META_PAGES; page++) {
    const start = page * ENGINE_PAGE_BYTES;
    if (dataFile.readUInt32LE(start + PAGE_HEADER_BYTES) !== LMDB_MAGIC)
      throw new Error(`page ${page} of the data file is no meta page`);
    const txn = dataFile.readBigUInt64LE(start + META_TXNID_OFFSET);
    if (txn > last) last = txn;
  }
  return last;
}

/** What powerCutSince did to the data file. */
export interface PowerCut {
  /** Commits since the copy, none of which reached the disk. */
  readonly commitsLost: number;
  /** Pages other than the meta pages that those commits had written, now garbage. */
  readonly tornPages: number;
}

/**
 * Makes the data file of `dir` what a power cut leaves when the commits since `copy` (taken
 * while the store was idle, every write until then acknowledged) never fully reached the disk.
 * An LMDB commit is copy-on-write: it writes new pages, never one of the tree the last commit
 * left, fdatasyncs, then writes a meta page (0 or 1), which makes them the current tree. Here
 * the meta page never got there and the pages written before it were torn: each 8192-byte page
 * that differs from the copy gets the copy's bytes back when it is a meta page, random bytes
 * otherwise (pages the file grew by included). The store must be dead (kill -9).
 *
 * Sound for at most two commits: the third after the copy may reuse pages of the copy's tree
 * that the first freed, which loses nothing once the first is on the disk. Throws beyond that.
 */
export function powerCutSince(dir: string, copy: Buffer): PowerCut {
  const file = engineDataFile(dir);
  const now = fs.readFileSync(file);
  const commitsLost = Number(lastCommittedTxn(now) - lastCommittedTxn(copy));
  if (commitsLost < 0 || commitsLost > 2) {
    throw new Error(
      `the power-cut model undoes at most two commits; ${commitsLost} ran since the copy of the data file`,
    );
  }
  let tornPages = 0;
  for (let start = 0; start < now.length; start += ENGINE_PAGE_BYTES) {
    const page = now.subarray(start, start + ENGINE_PAGE_BYTES);
    const before = copy.subarray(start, start + ENGINE_PAGE_BYTES);
    if (page.equals(before)) continue;
    if (start < META_PAGES * ENGINE_PAGE_BYTES) {
      before.copy(page);
    } else {
      randomFillSync(page);
      tornPages++;
    }
  }
  fs.writeFileSync(file, now);
  return { commitsLost, tornPages };
}

/**
 * A store child on a temporary data directory, which a test starts, kills with SIGKILL and
 * starts again on the same files, with one client at a time. Registers its own beforeEach and
 * afterEach.
 *
 * A client that was open when its store was killed is closed by the next `start`, once a store
 * listens on the socket again, never while none does: the driver's close() then ends the
 * client's sessions against a server that is gone, and at times it never returned (in about 1
 * of 20 runs of transactions.test.ts beside other load: the test and its cleanup both past
 * jest's limit, the jest process left idle afterwards). The client also gives up server
 * selection after 2 s instead of 30.
 */
export function crashableStoreChild(prefix: string) {
  let temp: ReturnType<typeof makeTempDir>;
  let store: EmbeddedStoreProcess | undefined;
  let client: MongoClient | undefined;

  beforeEach(() => {
    temp = makeTempDir(prefix);
  });

  afterEach(async () => {
    await client?.close();
    await store?.kill('SIGKILL');
    client = undefined;
    store = undefined;
    temp.remove();
  });

  return {
    get dir(): string {
      return temp.dir;
    },
    /** The client of the running store (after start). */
    get client(): MongoClient {
      if (!client) throw new Error('the store child is not started');
      return client;
    },
    /** Starts the store child on the data directory and connects a new client to it. */
    async start(): Promise<MongoClient> {
      store = await spawnEmbeddedStore({ dbPath: temp.dir });
      await client?.close();
      client = await MongoClient.connect(store.uri, { serverSelectionTimeoutMS: 2000 });
      return client;
    },
    /** The URI of the running store (after start), for a service of the test's own. */
    get uri(): string {
      if (!store) throw new Error('the store child is not started');
      return store.uri;
    },
    /** SIGKILL of the store child, without warning. */
    async kill(): Promise<void> {
      await store?.kill('SIGKILL');
      store = undefined;
    },
    async closeClient(): Promise<void> {
      await client?.close();
      client = undefined;
    },
  };
}
