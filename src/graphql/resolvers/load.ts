import type DataLoader from 'dataloader';

/** Loads `key` through the request's loader; an absent reference resolves to null. */
export function loadOptional<K, V>(
  loader: DataLoader<K, V | null>,
  key: K | undefined | null,
): Promise<V | null> | null {
  return key === undefined || key === null ? null : loader.load(key);
}
