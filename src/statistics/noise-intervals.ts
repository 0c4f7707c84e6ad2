/**
 * How far a published count may be from the true count, read off the distribution its noise was
 * drawn from: the discrete Laplace of discrete-laplace.ts, whose probability of the integer x is
 * (1 - q)/(1 + q) · q^|x| with q = exp(-ε/Δ). Its tails have a closed form,
 *
 *   P(|X| > t) = 2 q^(t+1) / (1 + q)   for integers t >= 0,
 *
 * so the interval is exact, not simulated. Floating point is fine here: ε and Δ are public, and
 * nothing drawn from the data passes through these functions (the noise itself never does).
 */

/** The share of published numbers whose interval holds the true count (at least). */
export const CONFIDENCE = 0.95;

/** A range of counts: `low` is never below 0 (no count is). */
export interface CountInterval {
  low: number;
  high: number;
}

/** P(|X| <= halfWidth) for the noise of scale Δ/ε: the share of intervals of this half-width that hold the truth. */
export function coverage(epsilon: number, sensitivity: number, halfWidth: number): number {
  if (halfWidth < 0) return 0;
  const rate = epsilon / sensitivity;
  // 1 - 2 q^(t+1)/(1+q), with q^(t+1) = exp(-(t+1)·ε/Δ)
  return 1 - (2 * Math.exp(-(halfWidth + 1) * rate)) / (1 + Math.exp(-rate));
}

/**
 * The smallest integer t >= 0 with P(|X| <= t) >= `confidence`: a published number is within ±t of
 * the true count with at least that probability. Its coverage is above `confidence` by up to the
 * probability of the values ±(t), which is large when the noise is narrow (at ε/Δ = 4 the noise
 * is 0 with probability 0.96, so t = 0 covers 96 %).
 */
export function halfWidth(epsilon: number, sensitivity: number, confidence = CONFIDENCE): number {
  if (!(epsilon > 0) || !(sensitivity > 0) || !(confidence > 0 && confidence < 1))
    throw new RangeError('halfWidth needs ε > 0, Δ > 0 and a confidence between 0 and 1');
  const rate = epsilon / sensitivity;
  // 2 q^(t+1)/(1+q) <= 1 - confidence  <=>  t + 1 >= -ln((1 - confidence)(1 + q)/2) / (ε/Δ)
  const tail = ((1 - confidence) * (1 + Math.exp(-rate))) / 2;
  let t = Math.max(0, Math.ceil(-Math.log(tail) / rate) - 1);
  // The logarithm may land a hair either side of an integer: settle it on the definition.
  while (t > 0 && coverage(epsilon, sensitivity, t - 1) >= confidence) t--;
  while (coverage(epsilon, sensitivity, t) < confidence) t++;
  return t;
}

/** The interval of a published count: ±halfWidth around it, cut at 0 (a true count is never negative). */
export function intervalAround(published: number, width: number): CountInterval {
  return { low: Math.max(0, published - width), high: published + width };
}
