/** Counts of a conformance run, printed once at the end. */
export class Tally {
  passed = 0;
  failed = 0;
  private readonly skips: Array<{ name: string; reason: string }> = [];

  skip(name: string, reason: string): void {
    this.skips.push({ name, reason });
  }

  get skipped(): number {
    return this.skips.length;
  }

  report(label: string, target: string): string {
    const lines = [`${label}: ${this.passed} passed, ${this.failed} failed, ${this.skipped} skipped (against ${target})`];
    for (const { name, reason } of this.skips) lines.push(`  skipped ${name}: ${reason}`);
    return lines.join('\n');
  }
}
