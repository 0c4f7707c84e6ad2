import type { ErasureLog } from './erasure-log';
import type { ErasureRepository } from './erasure-repository';

/** Public ids looked up per query while the log is replayed. */
const BATCH = 500;

/**
 * Carries out again every erasure of `log` whose candidate the store still holds anything of:
 * after a restore of a backup taken before it, or an erasure a crash cut short. Each is erased as
 * it was (identity key, identity, candidate, saved-list memberships, the answer kept for the
 * Idempotency-Key of its registration, an ERASED change at the logged time). Run before the
 * service serves, and by `npm run restore` before a restored data directory is put in place.
 * Resolves with how many erasures the log holds and the public ids erased again.
 */
export async function reapplyLoggedErasures(
  log: ErasureLog,
  erasures: Pick<ErasureRepository, 'stillStored' | 'erase'>,
): Promise<{ logged: number; reapplied: string[] }> {
  const logged = await log.read();
  const firstAt = new Map<string, Date>();
  for (const { publicId, at } of logged) if (!firstAt.has(publicId)) firstAt.set(publicId, at);
  const ids = [...firstAt.keys()];
  const reapplied: string[] = [];
  for (let start = 0; start < ids.length; start += BATCH) {
    const stored = await erasures.stillStored(ids.slice(start, start + BATCH));
    for (const publicId of stored) {
      await erasures.erase(publicId, firstAt.get(publicId)!);
      reapplied.push(publicId);
    }
  }
  return { logged: logged.length, reapplied };
}
