import { MongoClient } from 'mongodb';
import { isStoreReachable } from './availability';
import type { Database } from './mongo';

export interface ConnectionWatch {
  stop(): void;
}

/**
 * Reconnects the service's one client when the store answers a new connection but not it.
 *
 * After a store (a MongoDB on TCP, or the embedded store) stopped and started again, the driver
 * rediscovers it by itself within seconds, most of the time; sometimes its topology keeps the
 * server Unknown and hands out a pooled connection that is already closed, for minutes (seen:
 * "connection 5 to 127.0.0.1:… closed" every flush, the same connection each time). Every
 * `intervalMs` the watch pings through the client and, when that fails, through a new,
 * short-lived client; after `failuresBeforeReset` checks in a row where the new client is
 * answered and the service's is not, it closes the service's client and connects it again
 * (operations caught by the close end in a 503, as any outage's). While the store is really
 * down, the new client fails too and nothing is reset.
 */
export function watchConnection(
  database: Database,
  options: { timeoutMs: number; intervalMs?: number; failuresBeforeReset?: number; onReset?: () => void },
): ConnectionWatch {
  const intervalMs = options.intervalMs ?? 1_000;
  const failuresBeforeReset = options.failuresBeforeReset ?? 4;
  let failures = 0;
  let checking = false;
  let stopped = false;

  const answersNewConnection = async (): Promise<boolean> => {
    const probe = new MongoClient(database.uri, {
      ...database.options,
      monitorCommands: false,
      serverSelectionTimeoutMS: options.timeoutMs,
      connectTimeoutMS: options.timeoutMs,
    });
    try {
      await probe.db('admin').command({ ping: 1 });
      return true;
    } catch {
      return false;
    } finally {
      await probe.close().catch(() => undefined);
    }
  };

  const check = async (): Promise<void> => {
    // Only failures while the store answers a new connection count: while it is down, the driver
    // is not at fault, and once it is back the driver usually finds it within a second by itself.
    if ((await isStoreReachable(database.db, options.timeoutMs)) || stopped || !(await answersNewConnection())) {
      failures = 0;
      return;
    }
    failures += 1;
    if (failures < failuresBeforeReset || stopped) return;
    failures = 0;
    await database.client.close();
    if (stopped) return;
    await database.client.connect();
    options.onReset?.();
  };

  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    void check()
      .catch(() => undefined)
      .finally(() => (checking = false));
  }, intervalMs);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
