import type { ApiKeyRecord } from '../auth/api-key-repository';
import { authorize } from '../auth/authorize';
import { newPublicId, publicIdOfRetry } from 'candidate-documents';
import { NotFoundError, type InputIssue } from '../errors';
import type { JobMatchInput, OfferToAssistInput } from '../graphql/generated/schema-types';
import type { OfferDoc, OfferReason } from 'candidate-documents';
import type { CandidateRepository } from './candidate-repository';
import type { OfferRepository } from './offer-repository';
import { throwIfAny } from './search-input';
import { hasRefusedCharacter, TEXT_RULES } from './text-input';
import { systemClock, type Clock } from '../common/clock';
import { PLAIN_WRITE, type WriteRequest } from '../store/write-transaction';

/*
 * The rules of a job match's and an offer's fields. This service checks them for both
 * transports; the REST body check (rest/request-bodies.ts) reads the same bounds and pattern,
 * so that it can answer every fault of a body at once, in the contract's words.
 */
export const MAX_CANDIDATES_PER_OFFER = 100;
export const MAX_NOTES_LENGTH = 2000;
export const MAX_COUPON_LENGTH = 64;
/** A coupon code's characters: printable ASCII without spaces, at least one. */
export const COUPON_PATTERN = /^[\x21-\x7e]+$/;
export const COUPON_RULE = `1 to ${MAX_COUPON_LENGTH} printable characters without spaces`;

/**
 * Job matches and offers to assist. A job match is recorded like an offer with reason
 * JOB_OPPORTUNITY. The caller is always the API key, never a field of the body. Every
 * candidate must exist, or nothing is recorded. A request that may be retried (`write.retryToken`)
 * records at most one offer: every attempt gives it the same id, and a retry of one stored gets it
 * back, with the same answer.
 */
export class OfferService {
  constructor(
    private readonly candidates: CandidateRepository,
    private readonly offers: OfferRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  async createJobMatch(
    caller: ApiKeyRecord,
    input: JobMatchInput,
    write: WriteRequest = PLAIN_WRITE,
  ): Promise<{ message: string; jobMatchId: string }> {
    authorize(caller, 'SUBMIT_JOB_MATCHES');
    const answer = (offer: OfferDoc) => ({
      message: `Job match recorded for ${offer.candidates.length} candidate(s).`,
      jobMatchId: offer.publicId,
    });
    const offer = await this.record(caller, { ...input, kind: 'JOB_MATCH', reason: 'JOB_OPPORTUNITY' }, write, answer);
    return answer(offer);
  }

  async offerToAssist(
    caller: ApiKeyRecord,
    input: OfferToAssistInput,
    write: WriteRequest = PLAIN_WRITE,
  ): Promise<{ message: string; offerId: string }> {
    authorize(caller, 'OFFER_CANDIDATE_SERVICES');
    const answer = (offer: OfferDoc) => ({
      message: `Offer to assist recorded for ${offer.candidates.length} candidate(s).`,
      offerId: offer.publicId,
    });
    const offer = await this.record(caller, { ...input, kind: 'OFFER_TO_ASSIST' }, write, answer);
    return answer(offer);
  }

  private async record(
    caller: ApiKeyRecord,
    {
      kind,
      reason,
      candidates,
      additionalNotes,
    }: {
      kind: OfferDoc['kind'];
      reason: OfferReason;
      candidates: readonly { publicId: string; couponCode?: string | null }[];
      additionalNotes?: string | null;
    },
    write: WriteRequest,
    answer: (offer: OfferDoc) => Record<string, unknown>,
  ): Promise<OfferDoc> {
    const entries = validateCandidates(candidates);
    const notes = additionalNotes ?? undefined;
    if (notes !== undefined && hasRefusedCharacter(notes, 'multiline')) {
      throwIfAny([{ parameter: 'additionalNotes', rule: TEXT_RULES.multiline }]);
    }
    if (notes !== undefined && notes.length > MAX_NOTES_LENGTH) {
      throwIfAny([{ parameter: 'additionalNotes', rule: `at most ${MAX_NOTES_LENGTH} characters` }]);
    }
    const existing = await this.candidates.findExistingPublicIds(entries.map((entry) => entry.publicId));
    const missing = entries.map((entry) => entry.publicId).filter((id) => !existing.has(id));
    if (missing.length > 0) throw new NotFoundError(`Candidate(s) not found: ${missing.join(', ')}.`);

    const offer: OfferDoc = {
      publicId: write.retryToken === undefined ? newPublicId() : publicIdOfRetry(kind, write.retryToken),
      kind,
      reason,
      candidates: entries,
      apiKeyId: caller.id,
      createdDate: this.clock.now(),
      ...(notes !== undefined && notes.trim() !== '' ? { additionalNotes: notes } : {}),
    };
    const companions = write.companions({
      candidatePublicIds: entries.map((entry) => entry.publicId),
      result: answer(offer),
    });
    return this.offers.insert(offer, companions, write.retryToken !== undefined);
  }
}

function validateCandidates(
  candidates: readonly { publicId: string; couponCode?: string | null }[],
): { publicId: string; couponCode?: string }[] {
  const issues: InputIssue[] = [];
  if (candidates.length === 0) issues.push({ parameter: 'candidates', rule: 'a non-empty array' });
  if (candidates.length > MAX_CANDIDATES_PER_OFFER) {
    issues.push({ parameter: 'candidates', rule: `at most ${MAX_CANDIDATES_PER_OFFER} entries` });
  }
  const seen = new Set<string>();
  const entries: { publicId: string; couponCode?: string }[] = [];
  candidates.forEach((candidate, index) => {
    const coupon = candidate.couponCode ?? undefined;
    if (coupon !== undefined && (coupon.length > MAX_COUPON_LENGTH || !COUPON_PATTERN.test(coupon))) {
      issues.push({
        parameter: `candidates[${index}].couponCode`,
        rule: COUPON_RULE,
      });
    }
    if (seen.has(candidate.publicId)) {
      issues.push({ parameter: `candidates[${index}].publicId`, rule: 'unique within the request' });
    }
    seen.add(candidate.publicId);
    entries.push({ publicId: candidate.publicId, ...(coupon !== undefined ? { couponCode: coupon } : {}) });
  });
  throwIfAny(issues);
  return entries;
}
