import type { Document } from 'bson';
import { runCommand } from './commands/dispatcher';
import type { StoreRuntime } from './runtime';

/** mongod's default `ttlMonitorSleepSecs`: one pass a minute. */
export const DEFAULT_TTL_MONITOR_SLEEP_SECS = 60;

/**
 * Removes expired documents, as mongod's TTL monitor does (MongoDB manual, "TTL Indexes"): once
 * every `sleepSecs`, for each single-field index with a numeric `expireAfterSeconds`, the
 * documents whose indexed field is a date, or an array holding a date, earlier than
 * now - expireAfterSeconds (for an array: its earliest date) are deleted, within the index's
 * partial filter if it has one. Other values (numbers, strings, absent fields) never expire.
 *
 * A pass is an ordinary `delete` command through the dispatcher, as a client's would be: it is
 * journaled, made durable and seen by transactions like any other write, and it depends on no
 * storage structure, so it holds whatever keeps the documents and their indexes.
 */
export class TtlMonitor {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly runtime: StoreRuntime,
    private readonly options: { sleepSecs: number; now: () => number },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.pass(), this.options.sleepSecs * 1000);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass over every TTL index; the number of documents deleted. Passes never overlap. */
  pass(): Promise<number> {
    this.running ??= this.deleteExpired().finally(() => (this.running = undefined));
    return this.running;
  }

  private async deleteExpired(): Promise<number> {
    const { catalog } = this.runtime;
    let deleted = 0;
    for (const db of catalog.databaseNames()) {
      for (const collection of catalog.collections(db)) {
        for (const index of collection.indexList()) {
          const filter = expiredFilter(
            index.spec.options,
            index.spec.fields,
            index.spec.partialFilterExpression,
            this.options.now(),
          );
          if (filter === undefined) continue;
          // A delete command's reply is always a document (raw bytes are for cursor batches).
          const reply = (await runCommand(
            { delete: collection.name, deletes: [{ q: filter, limit: 0 }], $db: db },
            this.runtime,
            0,
          )) as Document;
          if (reply.ok !== 1 || reply.writeErrors !== undefined) {
            this.runtime.log('warn', 'TTL pass could not delete expired documents', {
              db,
              collection: collection.name,
              index: index.spec.name,
              error: String(reply.errmsg ?? JSON.stringify(reply.writeErrors)),
            });
            continue;
          }
          deleted += Number(reply.n ?? 0);
        }
      }
    }
    return deleted;
  }
}

/** The documents an index expires at `now`, or undefined when it is not a TTL index. */
function expiredFilter(
  options: Document,
  fields: readonly { path: string }[],
  partialFilterExpression: Document | undefined,
  now: number,
): Document | undefined {
  const seconds = options.expireAfterSeconds as unknown;
  // As mongod: TTL applies to single-field indexes only, never to _id, and needs a number.
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || fields.length !== 1) return undefined;
  const field = fields[0]?.path;
  if (field === undefined || field === '_id') return undefined;
  const expired = { [field]: { $lt: new Date(now - seconds * 1000) } };
  return partialFilterExpression === undefined ? expired : { $and: [partialFilterExpression, expired] };
}
