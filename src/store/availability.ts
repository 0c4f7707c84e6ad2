import {
  MongoClientClosedError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Db,
} from 'mongodb';
import { ServiceUnavailableError } from '../errors';

/**
 * The database's availability as the rest of the code sees it. A driver error that means "the
 * database cannot be reached right now" becomes a ServiceUnavailableError (503) here, at the
 * boundary between repositories and services, so that no driver error leaks past the
 * repositories and an outage is never answered as a 500 (or, during authentication, a 401).
 */

/**
 * Server error codes of a replica set that is electing, stepping down or shutting down (the
 * driver's retryable read and write codes): the same operation succeeds once a primary is back.
 */
const UNAVAILABLE_SERVER_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Driver errors without an exported class, known by name: the pool closed under an operation, or no connection freed in time. */
const UNAVAILABLE_ERROR_NAMES = new Set(['MongoPoolClosedError', 'MongoWaitQueueTimeoutError']);

/**
 * Socket errors of the operating system. The driver wraps most as MongoNetworkError, but a write
 * to a connection whose peer just died can surface as the bare `write EPIPE` (seen when the
 * store was killed under load): from a repository, any of these means the store went away.
 */
const SOCKET_ERROR_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ENOTCONN', 'ETIMEDOUT']);

/**
 * True for a driver error meaning the database is unreachable or unable to serve now: no
 * server selectable in time, a network error or timeout (a cleared pool is one), a client or
 * topology closed under the operation (shutdown), a primary stepping down, a socket error.
 */
export function isStoreUnavailableError(error: unknown): boolean {
  // Not `instanceof Error`: Node's own errors may come from another realm (a VM context, as in tests).
  if (typeof error === 'object' && error !== null && SOCKET_ERROR_CODES.has(String((error as { code?: unknown }).code)))
    return true;
  if (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoClientClosedError
  ) {
    return true;
  }
  if (error instanceof MongoServerError)
    return typeof error.code === 'number' && UNAVAILABLE_SERVER_CODES.has(error.code);
  return error instanceof Error && UNAVAILABLE_ERROR_NAMES.has(error.name);
}

/** `error` as the services should see it: a ServiceUnavailableError for an availability failure, else unchanged. */
export function translateStoreError(error: unknown): unknown {
  return isStoreUnavailableError(error) ? new ServiceUnavailableError(undefined, { cause: error }) : error;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * `repository` with every method's failures passed through `translateStoreError`: thrown
 * errors and rejections alike. Everything else (arguments, results, `this`) is untouched, and
 * the type is the repository's own.
 *
 * One guard around whole repositories rather than a helper around each driver call: a method
 * added later is covered without anyone remembering to wrap it, and the repositories keep
 * owning only what is theirs to decide (E11000 becomes a ConflictError there, not here).
 */
export function withAvailability<T extends object>(repository: T): T {
  const guarded = new WeakMap<(...args: unknown[]) => unknown, (...args: unknown[]) => unknown>();
  return new Proxy(repository, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      let guard = guarded.get(method);
      if (guard === undefined) {
        guard = (...args: unknown[]): unknown => {
          let result: unknown;
          try {
            // The repository itself as `this`: its private state is on the target, not the proxy.
            result = method.apply(target, args);
          } catch (error) {
            throw translateStoreError(error);
          }
          return isPromiseLike(result)
            ? Promise.resolve(result).catch((error: unknown) => {
                throw translateStoreError(error);
              })
            : result;
        };
        guarded.set(method, guard);
      }
      return guard;
    },
  });
}

/**
 * Whether the database answers a `ping` within `timeoutMs` (the readiness probe). Never throws
 * and never waits longer, whatever the driver's own timeouts.
 */
export async function isStoreReachable(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const ping = db.command({ ping: 1 }).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([ping, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
