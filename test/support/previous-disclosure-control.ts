/**
 * Disclosure control of published counts, as official statistics practise it: small cells are
 * withheld and every published count is rounded. Deterministic on purpose: random noise would
 * average out over repeated queries, rounding does not.
 */
export interface DisclosureRules {
  /** STATISTICS_MIN_CELL: a count below this is never published */
  readonly minimumCellSize: number;
  /** STATISTICS_ROUNDING: published counts are multiples of this */
  readonly rounding: number;
}

/**
 * The published form of a true count: null when it is below the minimum; otherwise the nearest
 * multiple of the rounding base (halves up), raised to the smallest multiple at or above the
 * minimum if rounding took it below (so no published count is below the minimum).
 */
export function publishedCount(count: number, rules: DisclosureRules): number | null {
  const { minimumCellSize, rounding } = rules;
  if (count < minimumCellSize) return null;
  const nearest = Math.floor((count + rounding / 2) / rounding) * rounding;
  const floor = Math.ceil(minimumCellSize / rounding) * rounding;
  return Math.max(nearest, floor);
}
