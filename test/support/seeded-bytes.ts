import type { ByteSource } from '../../src/statistics/discrete-laplace';

/** A deterministic byte source (xorshift32), so that a draw sequence can be replayed. */
export function seededBytes(seed: number): ByteSource {
  let state = seed >>> 0 || 1;
  return (bytes) => {
    for (let i = 0; i < bytes.length; i++) {
      state ^= state << 13;
      state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      bytes[i] = state & 0xff;
    }
  };
}
