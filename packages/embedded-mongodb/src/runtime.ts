import { CursorRegistry } from './cursors/cursor-registry';
import { Catalog } from './engine/catalog';
import type { StorageEngine } from './persistence/storage-engine';
import type { StoreLog } from './store-log';
import { Transactions } from './transactions';

/** Everything one running store holds; commands reach state only through it. */
export class StoreRuntime {
  readonly catalog: Catalog;
  readonly cursors = new CursorRegistry();
  readonly startedAt = Date.now();
  readonly connections = { current: 0, totalCreated: 0 };
  /**
   * Sessions and transactions, as a one-member replica set has them; absent when the store runs
   * as a standalone (it then refuses transactions, as a standalone mongod does).
   */
  readonly transactions: Transactions | undefined;
  port = 0;

  constructor(
    readonly log: StoreLog,
    readonly host: string,
    readonly dbPath: string | undefined,
    engine: StorageEngine,
    standalone = false,
  ) {
    this.catalog = new Catalog(engine);
    this.transactions = standalone ? undefined : new Transactions(this.catalog);
  }

  /** The store's address as MongoDB writes it: `host:port`, or the path of its Unix socket (then `host`, with no port). */
  get address(): string {
    return this.host.startsWith('/') ? this.host : `${this.host}:${this.port}`;
  }
}
