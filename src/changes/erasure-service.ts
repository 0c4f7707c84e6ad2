import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { systemClock, type Clock } from '../common/clock';
import { isPublicId } from 'candidate-documents';
import { BadUserInputError, NotFoundError } from '../errors';
import type { ErasureLog } from './erasure-log';
import type { ErasureRepository, Recipient } from './erasure-repository';

export interface ErasureResult {
  publicId: string;
  /** when the candidate was first erased: repeating the erasure answers the same time */
  erasedAt: Date;
  /** the keys that received the candidate, per the audit trail (told through the change feed) */
  recipients: Recipient[];
}

/**
 * Erasure of a candidate (GDPR Art. 17): identity, candidate document and what derives from them,
 * in one transaction, with an ERASED change event that tells every recipient (Art. 19).
 */
export class ErasureService {
  constructor(
    private readonly erasures: ErasureRepository,
    private readonly clock: Clock = systemClock,
    /**
     * Where every erasure is written before it is carried out (ERASURE_LOG): a restore of an
     * older backup, and every start, erase again what it names. Absent: none is kept.
     */
    private readonly log?: ErasureLog,
  ) {}

  /** `caller`: an ADMIN key; absent for the operator's CLI, which holds the store itself. */
  async erase(caller: ApiKeyRecord | undefined, publicId: string): Promise<ErasureResult> {
    if (caller !== undefined) authorize(caller, 'ADMIN');
    if (!isPublicId(publicId)) {
      throw new BadUserInputError('Invalid input: publicId must be a public id.', {
        parameter: 'publicId',
        rule: 'a public id (22 characters of A-Z, a-z, 0-9, _ and -)',
      });
    }
    const now = this.clock.now();
    await this.log?.append(publicId, now);
    await this.erasures.erase(publicId, now, caller?.id);
    const erasedAt = await this.erasures.erasedAt(publicId);
    if (erasedAt === null) throw new NotFoundError('No candidate has this publicId.');
    return { publicId, erasedAt, recipients: await this.erasures.recipients(publicId) };
  }
}
