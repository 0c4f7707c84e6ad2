/** One request's share of a coalesced fetch. */
interface Waiter<V> {
  ids: readonly string[];
  resolve(values: V[]): void;
  reject: (error: unknown) => void;
}

/**
 * Lookups by id of concurrent requests, sent as one: every id asked under one read epoch within
 * one turn of the event loop goes to the store in one `find {publicId: {$in: [...]}}` (in
 * chunks of `maxIds`), and each request gets back only the documents of its own ids. Requests
 * waiting for a shared epoch read resume together, so under load their loads meet here.
 *
 * Nothing is kept once a fetch is answered (the read caches do that), and nothing is decided:
 * each request checked its own permissions before it asked. When a combined fetch fails, each
 * request's ids are fetched again on their own, so a failure reaches only the requests whose own
 * fetch fails. Built once per process by the composition root (src/app/create-services.ts), like the caches.
 */
export class CoalescedFetch<V> {
  /** requests not yet sent, by the read epoch they read */
  private readonly waiting = new Map<string, Waiter<V>[]>();
  private scheduled = false;

  constructor(
    private readonly fetch: (ids: readonly string[]) => Promise<V[]>,
    private readonly idOf: (value: V) => string,
    private readonly maxIds = 1000,
  ) {
    if (!Number.isSafeInteger(maxIds) || maxIds < 1) throw new RangeError('maxIds must be a positive integer');
  }

  /** The documents of `ids` (those that exist, in any order), fetched now for this caller alone (a caller with no read epoch to share). */
  fetchAlone(ids: readonly string[]): Promise<V[]> {
    return this.fetch(ids);
  }

  /** The documents of `ids` (those that exist, in any order), fetched with the other requests of this turn under `epoch`. */
  load(ids: readonly string[], epoch: string): Promise<V[]> {
    return new Promise<V[]>((resolve, reject) => {
      const waiters = this.waiting.get(epoch);
      if (waiters === undefined) this.waiting.set(epoch, [{ ids, resolve, reject }]);
      else waiters.push({ ids, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the I/O callbacks of this turn and every microtask they started: the loads of
        // all requests that resumed meanwhile are in.
        setImmediate(() => this.dispatch());
      }
    });
  }

  private dispatch(): void {
    this.scheduled = false;
    const groups = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiters of groups) void this.send(waiters);
  }

  private async send(waiters: readonly Waiter<V>[]): Promise<void> {
    const ids = [...new Set(waiters.flatMap((waiter) => waiter.ids))];
    let found: Map<string, V>;
    try {
      found = await this.fetchAll(ids);
    } catch (error) {
      if (waiters.length === 1) {
        waiters[0].reject(error);
        return;
      }
      // Which request's ids failed is unknown: each is asked again on its own.
      await Promise.all(
        waiters.map((waiter) =>
          this.fetchAll(waiter.ids).then((own) => waiter.resolve(valuesOf(waiter.ids, own)), waiter.reject),
        ),
      );
      return;
    }
    for (const waiter of waiters) waiter.resolve(valuesOf(waiter.ids, found));
  }

  private async fetchAll(ids: readonly string[]): Promise<Map<string, V>> {
    const chunks: (readonly string[])[] = [];
    for (let start = 0; start < ids.length; start += this.maxIds) chunks.push(ids.slice(start, start + this.maxIds));
    const found = new Map<string, V>();
    for (const values of await Promise.all(chunks.map((chunk) => this.fetch(chunk)))) {
      for (const value of values) found.set(this.idOf(value), value);
    }
    return found;
  }
}

function valuesOf<V>(ids: readonly string[], found: ReadonlyMap<string, V>): V[] {
  const values: V[] = [];
  for (const id of new Set(ids)) {
    const value = found.get(id);
    if (value !== undefined) values.push(value);
  }
  return values;
}
