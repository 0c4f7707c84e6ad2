/**
 * MongoDB commands as the service counts them: the counter `mongodb_commands_total{command,outcome}`
 * of GET /metrics (Prometheus text format), summed over every label set.
 */

export interface CommandCounts {
  total: number;
  /** per command name, over every outcome */
  byCommand: Record<string, number>;
  /** commands whose outcome label is not a success */
  failed: number;
}

const SAMPLE = /^mongodb_commands_total(?:\{([^}]*)\})?\s+(\S+)/;

export function parseCommandCounts(text: string): CommandCounts | undefined {
  let found = false;
  const counts: CommandCounts = { total: 0, byCommand: {}, failed: 0 };
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE mongodb_commands_total')) found = true;
    const match = SAMPLE.exec(line);
    if (!match) continue;
    found = true;
    const value = Number(match[2]);
    if (!Number.isFinite(value)) continue;
    const labels = Object.fromEntries(
      [...(match[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    counts.total += value;
    const command = labels.command ?? '(none)';
    counts.byCommand[command] = (counts.byCommand[command] ?? 0) + value;
    if (labels.outcome !== undefined && !/^(success|succeeded|ok)$/i.test(labels.outcome)) counts.failed += value;
  }
  return found ? counts : undefined;
}

/** The counts now, or undefined when the service has no such metric (yet). */
export async function readCommandCounts(baseUrl: string, apiKey: string): Promise<CommandCounts | undefined> {
  try {
    const response = await fetch(`${baseUrl}/metrics`, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return undefined;
    return parseCommandCounts(await response.text());
  } catch {
    return undefined;
  }
}

/** after − before, per command too. */
export function difference(before: CommandCounts, after: CommandCounts): CommandCounts {
  const byCommand: Record<string, number> = {};
  for (const [command, value] of Object.entries(after.byCommand)) {
    const delta = value - (before.byCommand[command] ?? 0);
    if (delta !== 0) byCommand[command] = delta;
  }
  return { total: after.total - before.total, byCommand, failed: after.failed - before.failed };
}
