import { CursorRegistry } from './cursors/cursor-registry';
import { Catalog } from './engine/catalog';
import type { Journal } from './persistence/journal';
import type { StoreLog } from './store-log';

/** Everything one running store holds; commands reach state only through it. */
export class StoreRuntime {
  readonly catalog = new Catalog();
  readonly cursors = new CursorRegistry();
  readonly startedAt = Date.now();
  readonly connections = { current: 0, totalCreated: 0 };
  /** Absent in memory mode. */
  journal: Journal | undefined;
  port = 0;

  constructor(
    readonly log: StoreLog,
    readonly host: string,
    readonly dbPath: string | undefined,
  ) {}
}
