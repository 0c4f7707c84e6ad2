/**
 * What an API key may do. Reading candidates needs READ_CANDIDATE_DATA; READ_STATISTICS runs
 * aggregate statistics (candidateStatistics) and returns no candidate; ADMIN implies every permission.
 */
export const PERMISSIONS = [
  'READ_CANDIDATE_DATA',
  'READ_STATISTICS',
  'SUBMIT_JOB_MATCHES',
  'OFFER_CANDIDATE_SERVICES',
  'REGISTER_CANDIDATES',
  'ADMIN',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** True when the granted permissions include `required`, directly or through ADMIN. */
export function hasPermission(granted: readonly Permission[], required: Permission): boolean {
  return granted.includes('ADMIN') || granted.includes(required);
}
