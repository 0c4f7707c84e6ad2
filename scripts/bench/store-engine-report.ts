import { FOREIGN_CPU_NOTE } from './load';
import type { Heat } from './scenarios';
import {
  CPU_TICK_MS,
  KEYS_LIST_RUNS,
  LOAD_BUDGET_MS,
  LOADS,
  median,
  PAGES_PER_LOAD,
  REGISTRATION_CONCURRENCY,
  REGISTRATIONS,
  type ColdPageLoad,
  type ServiceStart,
  type StoreEngineRun,
} from './store-engine';

/** The store engine part of BENCHMARKS.md: its figures per size, then its goals. */

const MiB = 2 ** 20;
const SMALL = 2_000;
const LARGE = 100_000;
const HUGE = 1_000_000;

const count = (n: number): string => n.toLocaleString('en-GB');
const seconds = (ms: number | undefined): string => (ms === undefined ? '—' : `${(ms / 1000).toFixed(2)} s`);
const mib = (bytes: number | undefined): string => (bytes === undefined ? '—' : `${Math.round(bytes / MiB)} MiB`);
const millis = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const noisy = (cores: number): string => (cores >= FOREIGN_CPU_NOTE ? ' †' : '');

export interface StoreEngineGoal {
  goal: string;
  heat: Heat;
  /** the size, or the sizes of a ratio */
  at: string;
  value: string;
  target: string;
  /** undefined: not measured in this run (`value` says why) */
  met: boolean | undefined;
}

const at = (runs: readonly StoreEngineRun[], size: number): StoreEngineRun | undefined =>
  runs.find((run) => run.size === size);

const loadOf = (run: StoreEngineRun | undefined, state: number): ColdPageLoad | undefined =>
  run?.loads.find((load) => load.state === LOADS[state]);

const storeCpuPerPage = (load: ColdPageLoad): number | undefined =>
  load.storeCpuMs === undefined ? undefined : load.storeCpuMs / load.pages;

/** One side of a ratio, with the marks of its figure ('†', '‡'). */
interface Figure {
  size: number;
  value: number | undefined;
  marks: string[];
}

const noisyMarks = (cores: number): string[] => (cores >= FOREIGN_CPU_NOTE ? ['†'] : []);

function ratioGoal(
  goal: string,
  heat: Heat,
  bound: number,
  small: Figure | undefined,
  large: Figure | undefined,
  format: (value: number) => string,
  whyNot: string,
): StoreEngineGoal {
  if (small?.value === undefined || large?.value === undefined)
    return {
      goal,
      heat,
      at: '—',
      value: whyNot,
      target: `≤ ${bound}`,
      met: undefined,
    };
  const ratio = large.value / small.value;
  return {
    goal,
    heat,
    at: `${count(large.size)} ÷ ${count(small.size)}`,
    value: `${ratio.toFixed(2)} (${format(large.value)} ÷ ${format(small.value)})${[...new Set([...small.marks, ...large.marks])].map((mark) => ` ${mark}`).join('')}`,
    target: `≤ ${bound}`,
    met: ratio <= bound,
  };
}

export function storeEngineGoals(runs: readonly StoreEngineRun[]): StoreEngineGoal[] {
  const goals: StoreEngineGoal[] = [];
  const large = at(runs, LARGE);
  const huge = at(runs, HUGE);
  // Why a goal has no figure: its size was not run, or stopped before the figure.
  const notAt = (...sizes: number[]): string => {
    const failed = sizes.filter((size) => at(runs, size)?.failure !== undefined);
    if (failed.length > 0) return `not measured: size ${failed.map(count).join(' and ')} stopped early (see below)`;
    return `not measured in this run (needs size${sizes.length > 1 ? 's' : ''} ${sizes.map(count).join(' and ')})`;
  };

  {
    const goal = 'Seed: wall time of `seed --candidates 1000000` into a fresh data directory';
    const seed = huge?.seed;
    const failedMs = huge?.seedFailedMs;
    if (failedMs !== undefined)
      goals.push({
        goal,
        heat: 'cold',
        at: count(HUGE),
        value: `the seed failed after ${(failedMs / 60_000).toFixed(2)} min (see below)`,
        target: '≤ 6 min',
        met: false,
      });
    else
      goals.push({
        goal,
        heat: 'cold',
        at: count(HUGE),
        value: seed
          ? `${(seed.wallMs / 60_000).toFixed(2)} min (${(seed.wallMs / 1000).toFixed(1)} s)${noisy(seed.foreignCores)}`
          : notAt(HUGE),
        target: '≤ 6 min',
        met: seed ? seed.wallMs <= 6 * 60_000 : undefined,
      });
  }

  {
    // Every size up to 100k: the largest of them against the smallest.
    const started = runs.filter((run) => run.size <= LARGE && run.firstStart !== undefined);
    started.sort((a, b) => a.size - b.size);
    const firstStart = (run: StoreEngineRun | undefined) =>
      run && { size: run.size, value: run.firstStart!.ms, marks: noisyMarks(run.firstStart!.foreignCores) };
    const first = started[0];
    const last = started[started.length - 1];
    goals.push(
      ratioGoal(
        'First start after the seed (spawn to /healthz 200): largest size up to 100k ÷ smallest',
        'cold',
        1.2,
        firstStart(first),
        last !== first ? firstStart(last) : undefined,
        seconds,
        'two sizes up to 100,000',
      ),
    );
  }

  {
    // A timed run that built (a source changed during the run) is not a start of the CLI alone.
    const keysList = (run: StoreEngineRun | undefined) =>
      run?.keysList && {
        size: run.size,
        value: median(run.keysList.npmMs),
        marks: [...(run.keysList.builtDuring ? ['‡'] : []), ...noisyMarks(run.keysList.foreignCores)],
      };
    goals.push(
      ratioGoal(
        '`npm run keys -- list` beside the running service, median: 100k ÷ 2k',
        'hot',
        1.2,
        keysList(at(runs, SMALL)),
        keysList(large),
        seconds,
        notAt(SMALL, LARGE),
      ),
    );
    const value = keysList(large)?.value;
    goals.push({
      goal: '`npm run keys -- list` beside the running service, median, at 100k',
      heat: 'hot',
      at: count(LARGE),
      value:
        value === undefined
          ? notAt(LARGE)
          : `${seconds(value)}${large?.keysList?.builtDuring ? ' ‡' : ''}${noisy(large!.keysList!.foreignCores)}`,
      target: '≤ 1.5 s',
      met: value === undefined ? undefined : value <= 1_500,
    });
  }

  for (const [state, name] of LOADS.entries()) {
    const load = loadOf(large, state);
    const perPage = load && storeCpuPerPage(load);
    goals.push({
      goal: `Store CPU per cold page of 100, ${name}`,
      heat: 'cold',
      at: count(LARGE),
      value:
        perPage === undefined
          ? notAt(LARGE)
          : `${perPage.toFixed(2)} ms (${load!.storeCpuMs} ms over ${load!.pages} pages)${noisy(load!.foreignCores)}`,
      target: '≤ 2 ms',
      met: perPage === undefined ? undefined : perPage <= 2,
    });
  }

  {
    const peaks = (large?.loads ?? []).flatMap((load) => (load.storeMemory ? [load.storeMemory] : []));
    const rssAnon = peaks.length > 0 ? Math.max(...peaks.map((p) => p.rssAnon)) : undefined;
    const vmRss = peaks.length > 0 ? Math.max(...peaks.map((p) => p.vmRss)) : undefined;
    goals.push({
      goal: 'Store anonymous memory under the cold page loads: peak RssAnon (VmRSS beside it)',
      heat: 'cold',
      at: count(LARGE),
      value: rssAnon === undefined ? notAt(LARGE) : `${mib(rssAnon)} (VmRSS ${mib(vmRss)})`,
      target: '≤ 250 MiB',
      met: rssAnon === undefined ? undefined : rssAnon <= 250 * MiB,
    });
  }

  {
    const p50 = (run: StoreEngineRun | undefined) => {
      const load = loadOf(run, 0);
      return load && { size: run!.size, value: load.p50Ms, marks: noisyMarks(load.foreignCores) };
    };
    const goal = ratioGoal(
      `Cold page of 100, 1 connection, p50 over ${PAGES_PER_LOAD} distinct pages spread over the whole store (after the seed and first start): 1M ÷ 100k`,
      'cold',
      1.2,
      p50(large),
      p50(huge),
      (ms) => `${millis(ms)} ms`,
      notAt(LARGE, HUGE),
    );
    // A size with fewer pages than the goal's asked for fewer.
    const pages = [loadOf(huge, 0)?.pages, loadOf(large, 0)?.pages];
    if (goal.met !== undefined && pages.some((n) => n !== PAGES_PER_LOAD))
      goal.value += ` (pages: ${pages.join(' and ')})`;
    goals.push(goal);
  }
  return goals;
}

const verdict = (met: boolean | undefined): string =>
  met === undefined ? '**not measured**' : met ? '**MET**' : '**MISSED**';

export function storeEngineGoalsTable(runs: readonly StoreEngineRun[]): string {
  return [
    '| goal | hot / cold | size | value | target | verdict |',
    '|---|---|---:|---|---|---|',
    ...storeEngineGoals(runs).map(
      (g) => `| ${g.goal} | ${g.heat} | ${g.at} | ${g.value} | ${g.target} | ${verdict(g.met)} |`,
    ),
  ].join('\n');
}

function sizesTable(runs: readonly StoreEngineRun[]): string {
  const started = (start: ServiceStart | undefined): string =>
    start ? `${seconds(start.ms)}${noisy(start.foreignCores)}` : '—';
  const cli = (list: readonly number[] | undefined): string => {
    if (!list || list.length === 0) return '—';
    return `${seconds(median(list))} (${seconds(Math.min(...list))}–${seconds(Math.max(...list))})`;
  };
  const lines = [
    `| candidates | seed (wall) | seed (self-reported) | data directory | first start | \`npm run keys -- list\` (median, min–max) | \`node dist/src/cli/keys.js list\` (median, min–max) | ${count(REGISTRATIONS)} registrations | restart |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const run of runs) {
    const { seed, registrations: r } = run;
    const registrations = r
      ? `${(r.wallMs / 1000).toFixed(1)} s (${Math.round(r.sent / (r.wallMs / 1000))}/s)${r.created < r.sent ? ` ⚠ ${r.sent - r.created} not 201` : ''}`
      : '—';
    lines.push(
      `| ${count(run.size)} | ${seed ? `${(seed.wallMs / 1000).toFixed(1)} s${noisy(seed.foreignCores)}` : '—'} | ${seed?.reportedMs !== undefined ? `${(seed.reportedMs / 1000).toFixed(1)} s` : '—'} | ${mib(seed?.dataDirBytes)} | ${started(run.firstStart)} | ${cli(run.keysList?.npmMs)}${run.keysList?.builtDuring ? ' ‡' : ''}${run.keysList ? noisy(run.keysList.foreignCores) : ''} | ${cli(run.keysList?.nodeMs)} | ${registrations} | ${started(run.restart)} |`,
    );
  }
  return lines.join('\n');
}

function loadsTable(runs: readonly StoreEngineRun[]): string {
  const lines = [
    '| candidates | load | hot / cold | pages (of) | store CPU ms/page | store CPU idle ms/s | service CPU ms/page | p50 ms | p99 ms | max ms | store RssAnon peak | store VmRSS peak |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const run of runs) {
    for (const load of run.loads) {
      const perPage = storeCpuPerPage(load);
      lines.push(
        `| ${count(run.size)} | ${load.state}${load.repeatsEarlierLoads ? ' §' : ''} | cold | ${load.pages}${load.cutShortOf !== undefined ? ` of ${load.cutShortOf} ⏱` : ''} (${load.totalPages}) | ${perPage === undefined ? '—' : `${perPage.toFixed(2)} ± ${(CPU_TICK_MS / load.pages).toFixed(2)}`}${noisy(load.foreignCores)} | ${load.storeIdleCpuMsPerS === undefined ? '—' : load.storeIdleCpuMsPerS.toFixed(1)} | ${(load.serviceCpuMs / load.pages).toFixed(2)} | ${millis(load.p50Ms)} | ${millis(load.p99Ms)} | ${millis(load.maxMs)} | ${mib(load.storeMemory?.rssAnon)} | ${mib(load.storeMemory?.vmRss)} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The section, or undefined when the part did not run. */
export function storeEngineSection(runs: readonly StoreEngineRun[]): string | undefined {
  if (runs.length === 0) return undefined;
  const notes = runs.flatMap((run) => [
    ...run.notes.map((note) => `- ${count(run.size)}: ${note}.`),
    ...run.loads
      .filter((load) => load.retried > 0)
      .map(
        (load) =>
          `- ${count(run.size)}, ${load.state}: ${load.retried} requests sent again after their connection failed before any answer.`,
      ),
    // The failure ends with the command's last output: kept as it was printed.
    ...(run.failure
      ? [`- ${count(run.size)} stopped early:\n\n  \`\`\`\n${run.failure.replace(/^/gm, '  ')}\n  \`\`\``]
      : []),
  ]);
  const repeated = runs.some((run) => run.loads.some((load) => load.repeatsEarlierLoads));
  const cut = runs.some((run) => run.loads.some((load) => load.cutShortOf !== undefined));
  return `## Store engine

\`npm run bench -- --scenarios store-engine\`. Per size, in this order, on a data directory of its own:

1. **Seed**: wall time of \`node dist/src/cli/seed.js --candidates <n>\` into a fresh data directory
   (node start to exit, the store closed); beside it the time the command reports itself.
2. **First start**: \`node dist/src/app/main.js\` on the directory as seeded, from the spawn to the
   first 200 of GET /healthz (asked every 20 ms; the app listens last, once its store is open and
   its start-up work is done).
3. The benchmark's key is created with the keys CLI beside the running service (\`keys create
   --permissions ADMIN\` with the budgets of the load scenarios' key), then
   **cold page load 1**: ${PAGES_PER_LOAD} distinct pages of \`GET /v1/candidates?limit=100&page=<n>\`
   (fewer at a size with fewer than ${3 * PAGES_PER_LOAD} pages), spread evenly over the whole
   search and asked in a fixed shuffled order, one request at a time (1 connection), so that no
   answer can come from a cache of the service; a load stops sending after ${LOAD_BUDGET_MS / 1000} s. **Store CPU per page** is the store child's utime + stime (/proc/<pid>/stat of the
   \`embedded-mongodb/dist/cli.js\` child of the service, all its threads) from an idle server
   before the first request to an idle server after the last (the audit and rate-limit batches
   of these requests written), divided by the pages; its resolution is one clock tick
   (${CPU_TICK_MS} ms) over the pages (the ± of the table). The waits for an idle server around
   the load (about a second) are counted too: "store CPU idle" is the store's CPU per second of
   two idle seconds just before the load, what each of those seconds adds. Service CPU likewise,
   of the service process. p50/p99/max: each request's time as the harness saw it, sent to body read.
   **Store memory**: RssAnon and VmRSS of /proc/<pid>/status of the store child, sampled every
   200 ms from the first request until idle; the peak of each. RssAnon leaves out the pages of
   the mapped data file (RssFile), which the kernel can drop and read again.
4. **\`npm run keys -- list\`** beside the running service (the CLI connects to the service's
   store): one untimed run, then ${KEYS_LIST_RUNS} timed runs each of \`npm run keys -- list\` (npm, the build
   check, the CLI) and of \`node dist/src/cli/keys.js list\`, alternately; the goal reads the
   median of the npm runs. Hot: the same command repeated.
5. ${count(REGISTRATIONS)} **registrations** (POST /v1/candidates/register, unique e-mails,
   ${REGISTRATION_CONCURRENCY} at a time), then **cold page load 2** (pages moved on by one from load 1: none asked before).
6. **Restart**: the service stopped (SIGTERM) and started again, spawn to /healthz 200, then
   **cold page load 3** (pages moved on by two).

"Cold" is about the caches of the service and its store: every request of a load asks for a page
not asked before. The machine's page cache is not dropped (that needs root): the data file is in
it as the seed, or an earlier load, left it. † marks a measurement during which other processes
of the machine used ${FOREIGN_CPU_NOTE} cores or more. ‡ on a keys CLI figure: some of its timed npm runs
built the service (a source changed during the run), so they include a build.${cut ? `\n⏱ the load stopped after ${LOAD_BUDGET_MS / 1000} s, before all the pages it meant to ask for (they are asked in a shuffled order: those sent are spread over the store as well).` : ''}${repeated ? `\n§ too few pages for each load to have its own: this load asked for the same pages as load 1 (each once); the registrations before load 2 changed the store, so the service's cached answers no longer serve, and load 3 follows a restart.` : ''}

${sizesTable(runs)}

${loadsTable(runs)}

### Goals of the store engine

${storeEngineGoalsTable(runs)}
${notes.length > 0 ? `\n${notes.join('\n')}\n` : ''}`;
}
