import type { Measurement } from '../../scripts/bench/load';
import type { BackupBenchResult, BackupWindow } from '../../scripts/bench/backup';
import { cliStartTable, coldGoals, goals, resultsTable, type RunReport } from '../../scripts/bench/report';
import type { Heat, Scenario } from '../../scripts/bench/scenarios';

/** The cold-read goals as BENCHMARKS.md states them, from a run's measurements (scripts/bench/report.ts). */

interface Figures {
  reqPerS: number;
  p50Ms?: number;
  p99Ms?: number;
  connections?: number;
  heat?: Heat;
  statusCodes?: Record<string, number>;
  non2xx?: number;
  cpuMsPerRequest?: Record<string, number>;
}

function measurement(key: string, size: string, figures: Figures): Measurement {
  const scenario: Scenario = {
    key,
    label: key,
    kind: key.startsWith('baseline') ? 'baseline' : key.startsWith('graphql') ? 'GraphQL' : 'REST',
    heat: figures.heat ?? 'hot',
    dynamic: false,
    next: () => ({ method: 'GET', path: '/', headers: {} }),
  };
  return {
    scenario,
    size,
    connections: figures.connections ?? 50,
    reqPerS: figures.reqPerS,
    p50Ms: figures.p50Ms ?? 10,
    p99Ms: figures.p99Ms ?? 20,
    responses: Math.round(figures.reqPerS * 10),
    warmupMs: 3000,
    sent: Math.round(figures.reqPerS * 13),
    non2xx: figures.non2xx ?? 0,
    statusCodes: figures.statusCodes ?? { '200': Math.round(figures.reqPerS * 13) },
    socketErrors: 0,
    timeouts: 0,
    mismatches: 0,
    rss: { byLabel: { service: 2 ** 29, store: 2 ** 29 }, sum: 2 ** 30, samples: 10 },
    responseBytes: 6000,
    drainMs: 0,
    cpuCores: 1,
    cpuMsPerRequest: figures.cpuMsPerRequest ?? { service: 0.5, store: 0.25 },
    foreignCores: 0,
    notes: [],
  };
}

function report(baselines: Measurement[], bySize: Record<number, Measurement[]>): RunReport {
  return {
    date: new Date(0),
    machine: { cpus: 2, cpuModel: 'test', ramGiB: 1, node: 'v20', kernel: 'Linux' },
    commit: { short: 'abc1234', dirtyFiles: [] },
    settings: {
      connections: 50,
      durationS: 10,
      warmupS: 3,
      timeoutS: 30,
      quietWaitS: 10,
      sizes: Object.keys(bySize).map(Number),
    },
    serviceEnv: {},
    features: { commandMetric: true, keys: { rateLimit: true, unlimited: true } },
    keyKind: 'test',
    sizes: Object.entries(bySize).map(([size, rows]) => ({
      size: Number(size),
      measurements: rows.filter((m) => !m.scenario.key.endsWith('-cold') && !m.scenario.key.endsWith('-caches-off')),
      cold: rows.filter((m) => m.scenario.key.endsWith('-cold')),
      variants: rows.filter((m) => m.scenario.key.endsWith('-caches-off')),
    })),
    baselines,
    searchBodyBytes: 570_000,
    wallS: 0,
    leftovers: [],
    problems: [],
  };
}

const goal = (lines: string[], start: string): string => {
  const line = lines.find((l) => l.startsWith(`- ${start}`));
  if (!line) throw new Error(`no goal starting with "${start}" in:\n${lines.join('\n')}`);
  return line;
};

const baselines = [
  measurement('baseline-express', '—', { reqPerS: 10_000, heat: 'fixed body' }),
  measurement('baseline-http-search-100', '—', { reqPerS: 1_000, p99Ms: 100, heat: 'fixed body' }),
];

describe('the cold-read goals of the benchmark report', () => {
  test('when cold by id reaches 0.30 of bare Express at 100k, then the goal is missed with its figure', () => {
    const lines = coldGoals(
      report(baselines, { 100_000: [measurement('rest-by-id-cold', '100000', { reqPerS: 3_000, heat: 'cold' })] }),
    );

    expect(goal(lines, 'Cold by id')).toMatch(/\*\*MISSED\*\* \(3,000 of 10,000 req\/s = 0\.30/);
  });

  test('when cold by id reaches 0.40 of bare Express at 100k, then the goal is met', () => {
    const lines = coldGoals(
      report(baselines, { 100_000: [measurement('rest-by-id-cold', '100000', { reqPerS: 4_000, heat: 'cold' })] }),
    );

    expect(goal(lines, 'Cold by id')).toContain('**MET**');
  });

  test('when one cold search row has enough req/s but a p99 over twice the bare p99, then the search goal is missed', () => {
    const rows = [
      measurement('rest-search-100-cold', '100000', { reqPerS: 300, p99Ms: 150, heat: 'cold' }),
      measurement('rest-search-100-stride-cold', '100000', { reqPerS: 300, p99Ms: 250, heat: 'cold' }),
    ];

    const line = goal(coldGoals(report(baselines, { 100_000: rows })), 'Cold search limit=100');

    expect(line).toContain('**MISSED**');
    expect(line).toContain('p99 250 ms = 2.50× the bare p99');
  });

  test('when both cold search rows reach 0.30 of bare node:http with p99 within twice its p99, then the search goal is met', () => {
    const rows = [
      measurement('rest-search-100-cold', '100000', { reqPerS: 300, p99Ms: 150, heat: 'cold' }),
      measurement('rest-search-100-stride-cold', '100000', { reqPerS: 300, p99Ms: 190, heat: 'cold' }),
    ];

    expect(goal(coldGoals(report(baselines, { 100_000: rows })), 'Cold search limit=100')).toContain('**MET**');
  });

  test('when the deepest page takes twice the first page alone and 100k is 1.1× 10k, then one latency goal is missed and the other met', () => {
    const pair = (size: string, first: number, deepest: number) => [
      measurement('rest-search-100-1c-caches-off', size, {
        reqPerS: 30,
        p50Ms: first,
        connections: 1,
        heat: 'cold, caches off',
      }),
      measurement('rest-search-100-1c-deepest-caches-off', size, {
        reqPerS: 15,
        p50Ms: deepest,
        connections: 1,
        heat: 'cold, caches off',
      }),
    ];

    const lines = coldGoals(report(baselines, { 10_000: pair('10000', 20, 40), 100_000: pair('100000', 22, 44) }));

    expect(goal(lines, 'Cold search, 1 connection: deepest page')).toMatch(/\*\*MISSED\*\* .*= 2\.00×/);
    expect(goal(lines, 'Cold search, 1 connection, p50 at 100k')).toMatch(
      /\*\*MET\*\* .*first page: 22 vs 20 ms = 1\.10×.*deepest page: 44 vs 40 ms = 1\.10×/,
    );
  });

  test('when registrations at 100k reach 1,100 req/s and every answer is 201, then the goal is met with both ratios', () => {
    const row = measurement('rest-register', '100000', {
      reqPerS: 1_100,
      heat: 'cold',
      statusCodes: { '201': 14_300 },
    });

    const line = goal(coldGoals(report(baselines, { 100_000: [row] })), 'Registrations per second');

    expect(line).toContain('**MET**');
    expect(line).toContain('4.40× 250');
    expect(line).toContain('2.14× the 515 req/s measured at the last full run before it');
  });

  test('when a registration at 100k is answered 500, then the goal is missed even at enough req/s', () => {
    const row = measurement('rest-register', '100000', {
      reqPerS: 1_100,
      heat: 'cold',
      statusCodes: { '201': 14_299, '500': 1 },
      non2xx: 1,
    });

    expect(goal(coldGoals(report(baselines, { 100_000: [row] })), 'Registrations per second')).toMatch(
      /\*\*MISSED\*\*.*1× 500/,
    );
  });

  test('when the cold GraphQL page runs at 0.4 of the same page hot, then the goal is missed', () => {
    const rows = [
      measurement('graphql-deep', '10000', { reqPerS: 1_000 }),
      measurement('graphql-deep-cold', '10000', { reqPerS: 400, heat: 'cold' }),
    ];

    expect(goal(coldGoals(report(baselines, { 10_000: rows })), 'Cold GraphQL deep page')).toMatch(
      /\*\*MISSED\*\* \(10,000: 400 vs 1,000 req\/s = 0\.40/,
    );
  });

  test('when a cold row had errors and both rows of a ratio were disturbed, then each flag is said once', () => {
    const disturbed = { foreignCores: 1 };
    const rows = [
      { ...measurement('graphql-deep', '10000', { reqPerS: 1_000 }), ...disturbed },
      {
        ...measurement('graphql-deep-cold', '10000', {
          reqPerS: 400,
          heat: 'cold',
          statusCodes: { '503': 3 },
          non2xx: 3,
        }),
        ...disturbed,
      },
    ];

    const line = goal(coldGoals(report(baselines, { 10_000: rows })), 'Cold GraphQL deep page');

    expect(line.split('† disturbed').length - 1).toBe(1);
    expect(line.split('⚠ the run had errors').length - 1).toBe(1);
  });

  test('when the table is written, then every row says hot or cold, its CPU split, and a cold by-id row its share of the same-body baseline', () => {
    const row = measurement('rest-by-id-cold', '100000', {
      reqPerS: 3_000,
      heat: 'cold',
      cpuMsPerRequest: { service: 0.4, store: 0.21 },
    });

    const table = resultsTable(report(baselines, { 100_000: [row] }));
    const line = table.split('\n').find((l) => l.startsWith('| rest-by-id-cold '))!;

    expect(table.split('\n')[0]).toContain('| hot / cold |');
    expect(line).toContain('| cold | 100,000 | 3,000 |');
    expect(line).toContain('| 30 % (Express) |');
    expect(line).toContain('| 0.40 | 0.21 |');
  });
});

describe('the CLI start rows of the benchmark report', () => {
  test('when a size timed npm run keys -- list, then its row gives the median and the range of each command', () => {
    const run = report(baselines, { 10_000: [] });
    run.sizes[0].cliStart = {
      npmMs: [1_900, 1_500, 1_600, 2_400, 1_700],
      nodeMs: [700, 600, 650, 900, 640],
      rebuilt: false,
    };

    const table = cliStartTable(run);

    expect(table).toContain('| 10,000 | 1.70 s (1.50–2.40, 5 runs) | 0.65 s (0.60–0.90, 5 runs) |');
    expect(table).not.toContain('‡');
  });

  test('when the first untimed run had to build, then the row says so', () => {
    const run = report(baselines, { 10_000: [] });
    run.sizes[0].cliStart = { npmMs: [1_000], nodeMs: [500], rebuilt: true };

    expect(cliStartTable(run)).toMatch(/1\.00 s \(1\.00–1\.00, 1 runs\) ‡[\s\S]*‡ the build was not current/);
  });

  test('when no size timed the CLI (--scenarios without cli-start), then there is no CLI start table', () => {
    expect(cliStartTable(report(baselines, { 10_000: [] }))).toBeUndefined();
  });
});

function latency(p99Ms: number) {
  return { requests: 100, p50Ms: p99Ms / 4, p99Ms };
}

function window(backup: boolean, p99Ms: number): BackupWindow {
  return { backup, ms: 10_000, reads: latency(p99Ms), failedReads: 0, registrations: latency(40), otherCores: 0 };
}

/** A backup row of three backups between windows without one, the pooled p99s as given. */
function backupRow(figures: {
  without: number;
  during: number;
  perSecond?: number;
  differing?: number;
  missing?: number;
}): BackupBenchResult {
  const windows = [false, true, false, true, false, true, false].map((b) =>
    window(b, b ? figures.during : figures.without),
  );
  const tool = { wallMs: 30_000, summary: '' };
  return {
    windows,
    without: latency(figures.without),
    during: latency(figures.during),
    registrationsWithout: latency(40),
    registrationsDuring: latency(45),
    backups: [tool, tool, tool],
    archiveBytes: 2 ** 27,
    filesBytes: 2 ** 30,
    restore: { wallMs: 20_000, summary: '' },
    registrations: { perSecond: figures.perSecond ?? 50, sent: 3_000, created: 3_000, failed: 0 },
    consistency: { acknowledgedBefore: 1_000, missing: figures.missing ?? 0 },
    comparison: { candidates: 100_000, differing: figures.differing ?? 0, byId: 2_000, byIdDiffering: 0, ms: 1 },
  };
}

function withBackup(row: BackupBenchResult): RunReport {
  const run = report(baselines, { 100_000: [] });
  run.sizes[0].backup = row;
  return run;
}

describe('the backup goals of the benchmark report', () => {
  test('when the by-id p99 during the backups is 2.5 times that of the windows without, then the goal is missed with each backup against its neighbours', () => {
    const line = goal(goals(withBackup(backupRow({ without: 20, during: 50 }))), 'Service p99 during a backup');

    expect(line).toMatch(
      /\*\*MISSED\*\* \(100,000: p99 50\.0 ms during 3 backups vs 20\.0 ms .* = 2\.50×; .*50\.0 vs 20\.0\/20\.0 ms \(2\.50×\)/,
    );
  });

  test("when the backups ran beside another registration rate than the goal's, then the p99 goal is not measured and the rate is said", () => {
    const line = goal(
      goals(withBackup(backupRow({ without: 20, during: 25, perSecond: 10 }))),
      'Service p99 during a backup',
    );

    expect(line).toMatch(/\*\*not measured\*\* \(100,000 at 10 registrations\/s, not the goal's 50:/);
  });

  test('when one restored candidate differs from the original, then the consistency goal is missed even with every registration in it', () => {
    const line = goal(goals(withBackup(backupRow({ without: 20, during: 25, differing: 1 }))), 'Backup under load');

    expect(line).toMatch(/^- Backup under load.*: \*\*MISSED\*\* \(100,000: 1000 of the 1000 registrations/);
    expect(line).toContain('1 differing');
  });
});
