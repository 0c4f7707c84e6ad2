/** Counts of a conformance run, printed once at the end. */
export class Tally {
  passed = 0;
  failed = 0;
  private readonly skips: Array<{ name: string; reason: string }> = [];
  private readonly refusals: Array<{ name: string; reason: string }> = [];

  skip(name: string, reason: string): void {
    this.skips.push({ name, reason });
  }

  /** A test the server answered with a clear "not supported" error instead of running it. */
  refuse(name: string, reason: string): void {
    this.refusals.push({ name, reason });
  }

  get skipped(): number {
    return this.skips.length;
  }

  get refused(): readonly string[] {
    return this.refusals.map(({ name }) => name);
  }

  report(label: string, target: string): string {
    const lines = [
      `${label}: ${this.passed} passed, ${this.failed} failed, ${this.skipped} skipped, ${this.refusals.length} refused as not supported (against ${target})`,
    ];
    for (const { name, reason } of this.skips) lines.push(`  skipped ${name}: ${reason}`);
    for (const { name, reason } of this.refusals) lines.push(`  not supported ${name}: ${reason}`);
    return lines.join('\n');
  }
}
