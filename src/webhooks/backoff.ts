/**
 * Delay before retry number `attempt` (1 = the retry after the first failure): exponential
 * from `baseMs`, capped at `maxMs`, with "full jitter" (uniform in [delay/2, delay]) so that
 * endpoints coming back are not hit by every webhook's retries at the same instant.
 */
export function retryDelayMs(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
