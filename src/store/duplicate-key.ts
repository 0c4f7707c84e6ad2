import { ConflictError } from '../errors';

/**
 * MongoDB's duplicate-key errors, for the repositories: the one place that knows their codes.
 * A repository turns them into a ConflictError (conflictOnDuplicate) or into its own outcome
 * (a lost creation race); no driver error goes further.
 */

/** True for one write error of a bulk write that is a duplicate key (E11000). */
export function isDuplicateKeyWriteError(writeError: { readonly code?: unknown } | undefined): boolean {
  return writeError?.code === 11000;
}

/** True for a MongoDB duplicate-key error (E11000), single write or bulk write. */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, writeErrors } = error as { code?: unknown; writeErrors?: unknown };
  if (code === 11000 || code === 11001) return true;
  return Array.isArray(writeErrors) && writeErrors.some((w) => isDuplicateKeyWriteError(w as { code?: unknown }));
}

/**
 * Runs a write and turns a duplicate-key error into a ConflictError carrying `message`
 * (shown to callers). The cause names only the index: the driver's own message also holds
 * the duplicate value, which may be personal data (an e-mail) and must not reach the logs.
 */
export async function conflictOnDuplicate<T>(write: () => Promise<T>, message: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    throw new ConflictError(message, { cause: new Error(`duplicate key on index ${duplicateIndexName(error)}`) });
  }
}

function duplicateIndexName(error: unknown): string {
  const message = (error as { message?: unknown }).message;
  const text = typeof message === 'string' ? message : '';
  return /index: ([A-Za-z0-9_.$-]+)/.exec(text)?.[1] ?? '(unknown)';
}
