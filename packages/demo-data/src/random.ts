import { Faker, base, en } from '@faker-js/faker';
import { publicIdFromUuid } from 'candidate-documents';
import type { Weighted } from './vocabulary';

/**
 * A seeded source of every random choice of the demo data. Each instance owns its own
 * Faker (never the shared global one, which other code may reseed or draw from), so the
 * same seed always gives the same sequence. All dates are computed from numbers drawn
 * here, never from the clock.
 */
export class DemoRandom {
  private readonly faker: Faker;

  /** `stream` separates independent sequences of one seed (ids, jobs, candidates, lists). */
  constructor(seed: number, stream: number) {
    this.faker = new Faker({ locale: [en, base] });
    this.faker.seed([seed, stream]);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.faker.number.float();
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)];
  }

  weighted<T>(entries: readonly Weighted<T>[]): T {
    let total = 0;
    for (const entry of entries) total += entry.weight;
    let r = this.next() * total;
    for (const entry of entries) {
      r -= entry.weight;
      if (r < 0) return entry.value;
    }
    return entries[entries.length - 1].value;
  }

  /** Up to `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    const n = Math.min(count, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, n);
  }

  /** A public id made of the bytes of a seeded UUID v4. */
  publicId(): string {
    return publicIdFromUuid(this.faker.string.uuid());
  }
}
