import type { RequestAudit } from '../../audit/request-audit';

/**
 * The audit trail records every candidate a response carries. Candidates reach a response
 * through exactly five fields, each of which records what it returns: `Query.candidate`,
 * `Candidate.partner`, `CandidatePage.content` (searches and saved lists), `CandidateEdge.node`
 * (the connection) and `CandidateChange.candidate` (the change feed). Recording there, rather than where services return candidates, counts only
 * the candidates a response really carries (`candidates { totalElements }` returns none), and,
 * unlike a `Candidate.publicId` resolver, also those whose publicId was not selected.
 */
export async function auditedCandidate<T extends { publicId: string }>(
  audit: RequestAudit,
  candidate: T | null | Promise<T | null>,
): Promise<T | null> {
  const value = await candidate;
  if (value !== null) audit.addCandidates([value.publicId]);
  return value;
}

/** The list form of auditedCandidate. */
export function auditedCandidates<T extends { publicId: string }>(
  audit: RequestAudit,
  candidates: readonly T[],
): readonly T[] {
  audit.addCandidates(candidates.map((candidate) => candidate.publicId));
  return candidates;
}
