/**
 * The names of what a store writes in its data directory. Whatever else a data directory holds
 * is not the store's: it is never changed, moved or removed (data-directory-checks.ts).
 */

/** The storage engine's files: LMDB's data file and its table of readers. */
export const ENGINE_FILES = ['data.mdb', 'lock.mdb'] as const;
/** The secure space of secure-delete collections (secure-space.ts), its readers' table and their compaction's new files. */
export const SECURE_FILES = [
  'secure.mdb',
  'secure.mdb-lock',
  'secure.mdb.compacting',
  'secure.mdb.compacting-lock',
] as const;
/** Where a compaction of data.mdb writes the new file before it replaces the old one (storage-engine.ts). */
export const COMPACTING_FOLDER = 'compacting';
/** Names the process holding the directory (store-lock.ts). */
export const STORE_LOCK_FILE = 'store.lock';
/** Held for the moment a stale lock is replaced, so that two stores starting together do not both take it. */
export const STORE_LOCK_TAKEOVER_FILE = 'store.lock.takeover';
/** The running store's connection string, for other processes of the same user (store-address.ts). */
export const STORE_URI_FILE = 'store.uri';
/** The socket the store listens on when it runs for the service; the driver takes a host ending in `.sock` for a socket path. */
export const STORE_SOCKET_FILE = 'store.sock';
/** Where a conversion of an earlier release's files builds the engine's files before they are moved into place. */
export const CONVERTING_FOLDER = 'converting';

/** The earlier release's files (a snapshot, its temporary file, journals), converted once at open. */
const EARLIER_RELEASE_FILE = /^(snapshot\.bin(\.tmp)?|journal-\d+\.log)$/;

const STORE_NAMES: ReadonlySet<string> = new Set([
  ...ENGINE_FILES,
  ...SECURE_FILES,
  COMPACTING_FOLDER,
  STORE_LOCK_FILE,
  STORE_LOCK_TAKEOVER_FILE,
  STORE_URI_FILE,
  `${STORE_URI_FILE}.tmp`,
  STORE_SOCKET_FILE,
]);

/** True when the entry called `name` is one this store writes (and so one it may narrow to 0600). */
export function isStoreFile(name: string): boolean {
  return STORE_NAMES.has(name);
}

/**
 * True when the entry called `name` is one a store of this or the earlier release writes: a
 * directory holding nothing else is one the operator gave the store.
 */
export function isStoreOrEarlierReleaseFile(name: string): boolean {
  return STORE_NAMES.has(name) || name === CONVERTING_FOLDER || EARLIER_RELEASE_FILE.test(name);
}
