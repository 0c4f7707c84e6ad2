import type { YesNo, YesNoUnsure } from 'candidate-documents';
import type { DemoRandom } from './random';

/** Answers and dates that every kind of demo document draws and writes the same way. */

export const DAY_MS = 86_400_000;

export function yesNo(rng: DemoRandom, yes: number): YesNo {
  const r = rng.next();
  if (r < yes) return 'YES';
  return r < yes + (1 - yes) * 0.9 ? 'NO' : 'NO_RESPONSE';
}

export function yesNoUnsure(rng: DemoRandom, yes: number): YesNoUnsure {
  const r = rng.next();
  if (r < yes) return 'YES';
  const rest = 1 - yes;
  if (r < yes + rest * 0.75) return 'NO';
  return r < yes + rest * 0.9 ? 'UNSURE' : 'NO_RESPONSE';
}

/** `YYYY-MM-DD` of a UTC time (toISOString is several times slower, and this runs millions of times). */
export function isoDate(ms: number): string {
  const date = new Date(ms);
  const month = date.getUTCMonth() + 1;
  const day = date.getUTCDate();
  return `${date.getUTCFullYear()}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}
