import { Kind, OperationTypeNode, parse, type DocumentNode } from 'graphql';
import type { PersistedQueryRepository } from './persisted-query-repository';
import { systemClock, type Clock } from '../common/clock';

/**
 * Whether `document` (a text or parsed) holds only query operations: what may be kept as an
 * automatic persisted query. A mutation's text may hold what it writes (a registration's
 * identity data written out in it); a text that does not parse is never kept either.
 */
export function isQueryDocument(document: string | DocumentNode): boolean {
  let parsed: DocumentNode;
  try {
    parsed = typeof document === 'string' ? parse(document, { noLocation: true }) : document;
  } catch {
    return false;
  }
  return parsed.definitions.every(
    (definition) => definition.kind !== Kind.OPERATION_DEFINITION || definition.operation === OperationTypeNode.QUERY,
  );
}

export interface PersistedQueryBounds {
  /** GRAPHQL_APQ_MAX_ENTRIES: most queries kept; past it the earliest to expire go first */
  maxEntries: number;
  /** GRAPHQL_APQ_TTL_SECONDS: how long a query is kept after it was last registered */
  ttlSeconds: number;
}

/**
 * The cache of automatic persisted queries (Apollo Server's `persistedQueries.cache`, a
 * KeyValueCache): the query texts clients registered, kept in the store so that every instance
 * knows a query any of them was sent. Apollo checks the hash against the query and registers a
 * query only once it passed validation (the abuse limits), authentication and the rate limit, so
 * only queries this service would run are kept; bounded in number and in time. Only queries:
 * a document with a mutation is not stored (persistedQueryPlugin refuses its request first), and
 * what an earlier release stored of them is removed at start (`removeAllButQueries`).
 */
export class PersistedQueryStore {
  /** writes under way: a registering request is answered once they end (persistedQueryPlugin) */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly repository: PersistedQueryRepository,
    private readonly bounds: PersistedQueryBounds,
    private readonly clock: Clock = systemClock,
  ) {}

  get(key: string): Promise<string | undefined> {
    return this.repository.find(key, this.clock.now());
  }

  set(key: string, query: string, options?: { ttl?: number | null }): Promise<void> {
    if (!isQueryDocument(query)) return Promise.resolve();
    const now = this.clock.now();
    const ttlSeconds = Math.min(options?.ttl ?? this.bounds.ttlSeconds, this.bounds.ttlSeconds);
    const write = (async () => {
      await this.repository.save(key, query, new Date(now.getTime() + ttlSeconds * 1000));
      await this.repository.trim(now, this.bounds.maxEntries);
    })();
    this.pending.add(write);
    const done = () => this.pending.delete(write);
    write.then(done, done);
    return write;
  }

  async delete(key: string): Promise<void> {
    await this.repository.remove(key);
  }

  /** Removes every stored document that is not queries only (see isQueryDocument); resolves with how many. */
  removeAllButQueries(): Promise<number> {
    return this.repository.removeWhere((query) => !isQueryDocument(query));
  }

  /** Resolves once every write started so far has ended (a failed one included: Apollo logs it). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
