import { deepFreeze } from '../common/deep-freeze';
import { LruCache } from './lru-cache';

/**
 * Values loaded from the store, each kept with the read epoch it was loaded under
 * (src/cache/read-epoch.ts) and served only to a request that read the same epoch. Bounded:
 * the least recently used entry goes first. Values are shared by every request that gets
 * them, so they are frozen and never changed.
 */
export class EpochCache<K, V> {
  private readonly entries: LruCache<K, { epoch: string; value: V }> | undefined;

  /** `capacity` 0: caches nothing. */
  constructor(capacity: number) {
    this.entries = capacity > 0 ? new LruCache(capacity) : undefined;
  }

  get(key: K, epoch: string): V | undefined {
    const entry = this.entries?.get(key);
    return entry !== undefined && entry.epoch === epoch ? entry.value : undefined;
  }

  /** Keeps `value`, loaded after `epoch` was read; returns it frozen. */
  set(key: K, epoch: string, value: V): V {
    const frozen = deepFreeze(value);
    this.entries?.set(key, { epoch, value: frozen });
    return frozen;
  }
}
