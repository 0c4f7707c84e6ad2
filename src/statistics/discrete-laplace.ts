import { randomFillSync } from 'node:crypto';

/**
 * Exact sampling of the discrete Laplace distribution (two-sided geometric), whose probability
 * of the integer x is proportional to exp(-|x|·s/t) for positive integers s and t: the noise of
 * pure ε-differential privacy for integer counts (scale t/s = sensitivity/ε).
 *
 * Integer arithmetic only, from uniformly random bytes: no floating-point logarithm or
 * exponential, whose rounding makes floating-point samplers leak the true value (Mironov 2012).
 * The algorithms are those of Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential
 * Privacy" (2020), section 5: Bernoulli(exp(-γ)) for rational γ, then the discrete Laplace.
 */

/** Where random bytes come from: node:crypto in the service, a fixed sequence in tests. */
export type ByteSource = (bytes: Uint8Array) => void;

export const cryptoBytes: ByteSource = (bytes) => {
  randomFillSync(bytes);
};

/** Largest bound a uniform draw accepts: 2^48 (281,474,976,710,656) keeps every product exact in a double. */
const MAX_BOUND = 281_474_976_710_656;

export class DiscreteLaplaceSampler {
  private readonly buffer = new Uint8Array(4096);
  private position = this.buffer.length;

  constructor(private readonly source: ByteSource = cryptoBytes) {}

  private byte(): number {
    if (this.position === this.buffer.length) {
      this.source(this.buffer);
      this.position = 0;
    }
    return this.buffer[this.position++];
  }

  /** A uniform integer in [0, bound), by rejection of 6-byte draws (no modulo bias). */
  uniform(bound: number): number {
    if (!Number.isSafeInteger(bound) || bound < 1 || bound > MAX_BOUND) throw new RangeError(`bad bound ${bound}`);
    if (bound === 1) return 0;
    const limit = MAX_BOUND - (MAX_BOUND % bound);
    for (;;) {
      let value = 0;
      for (let i = 0; i < 6; i++) value = value * 256 + this.byte();
      if (value < limit) return value % bound;
    }
  }

  /** true with probability numerator/denominator (0 <= numerator <= denominator). */
  bernoulli(numerator: number, denominator: number): boolean {
    return this.uniform(denominator) < numerator;
  }

  /** true with probability exp(-n/d), for integers n >= 0, d >= 1. */
  bernoulliExp(n: number, d: number): boolean {
    let remaining = n;
    // exp(-γ) = exp(-1)^floor(γ) · exp(-(γ - floor(γ)))
    while (remaining > d) {
      if (!this.bernoulliExpAtMostOne(d, d)) return false;
      remaining -= d;
    }
    return this.bernoulliExpAtMostOne(remaining, d);
  }

  /** exp(-n/d) for 0 <= n <= d: the parity of the first k with Bernoulli(γ/k) false. */
  private bernoulliExpAtMostOne(n: number, d: number): boolean {
    let k = 1;
    while (this.bernoulli(n, d * k)) k++;
    return k % 2 === 1;
  }

  /** An integer x with probability proportional to exp(-|x|·s/t), for integers s, t >= 1. */
  sample(s: number, t: number): number {
    for (;;) {
      const u = this.uniform(t);
      if (!this.bernoulliExp(u, t)) continue;
      let v = 0;
      while (this.bernoulliExp(1, 1)) v++;
      const x = Math.floor((u + t * v) / s);
      const negative = this.bernoulli(1, 2);
      if (negative && x === 0) continue;
      return negative ? -x : x;
    }
  }
}
