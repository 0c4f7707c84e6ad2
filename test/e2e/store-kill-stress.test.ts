import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { logRecords, startServiceProcess, type ServiceProcess } from '../support/service-process';

/**
 * The store child killed (SIGKILL) again and again at random moments under `npm start`: right
 * after the service or a restarted store came up, while idle, under a load of reads and writes.
 * Each time the service answers 200 again without anyone's help (within 30 s: a bound on
 * liveness, not a speed figure; the heal times are printed), and no
 * request is ever answered 500 (an outage is 503 with Retry-After). Kills are spaced further
 * apart than STORE_RESTART_WINDOW_MS, so none is part of a crash loop and the back-off stays
 * short. The moments come from a seeded generator; the seed is printed.
 */

const KEY = `cdk_${randomBytes(32).toString('base64url')}`;
/** Kills per service start: 12 in the suite (about 35 s a start); STRESS_KILLS=<n> runs a longer stress by hand. */
const KILLS_PER_START = Number(process.env.STRESS_KILLS ?? 12);
const STARTS = 2;
/**
 * A kill that has not healed by then never heals by itself. Not a speed goal (speed is `npm run bench`'s):
 * heals took 0.55-0.6 s on a quiet machine and took 11-14 s under a load of 15 or more on 2 cores, so
 * 30 s is twice the slowest seen on a busy machine.
 */
const HEAL_LIMIT_MS = 30_000;

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function storePids(service: ServiceProcess): number[] {
  return logRecords(service.output())
    .filter((r) => typeof r.msg === 'string' && /^embedded MongoDB-compatible store (started|restarted)$/.test(r.msg))
    .map((r) => r.pid as number);
}

async function statusOf(url: string, init?: RequestInit): Promise<{ status: number; retryAfter: string | null }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
    await response.arrayBuffer();
    return { status: response.status, retryAfter: response.headers.get('retry-after') };
  } catch {
    return { status: 0, retryAfter: null };
  }
}

describe('the store child killed at random moments', () => {
  const seed = Number(process.env.STRESS_SEED ?? Date.now() % 1_000_000);
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeAll(() => {
    console.log(`store kill stress: seed ${seed} (STRESS_SEED=${seed} repeats it)`);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-kill-stress-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  afterEach(async () => {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    service = undefined;
  });

  test.each(Array.from({ length: STARTS }, (_, i) => i + 1))(
    'when the store child is killed again and again (service start %i), then every kill heals by itself and no answer is a 500',
    async (start) => {
      const random = mulberry32(seed + start);
      service = await startServiceProcess({
        DATA_DIR: dataDir,
        DEMO_CANDIDATES: '20',
        DEMO_API_KEY: KEY,
        LOG_LEVEL: 'info',
        STORE_RESTART_BACKOFF_MS: '50',
        STORE_RESTART_WINDOW_MS: '300',
        STORE_MAX_RESTARTS: '5',
        MONGODB_TIMEOUT_MS: '2000',
        RATE_LIMIT_READS: '1000000',
        RATE_LIMIT_WRITES: '1000000',
      });
      const url = service.url;
      const headers = { 'x-api-key': KEY };
      const answers: { status: number; retryAfter: string | null }[] = [];
      const load = { on: true };
      let n = 0;
      const client = async (role: number) => {
        while (load.on) {
          n += 1;
          if (role === 0) {
            const body = JSON.stringify({
              registrationData: {
                identity: { email: `stress-${start}-${n}-${randomBytes(3).toString('hex')}@example.org` },
                country: { isoCode: 'JO' },
              },
            });
            answers.push(
              await statusOf(`${url}/v1/candidates/register`, {
                method: 'POST',
                headers: { ...headers, 'content-type': 'application/json' },
                body,
              }),
            );
          } else {
            answers.push(await statusOf(`${url}/v1/candidates?limit=5&page=${n % 4}`, { headers }));
          }
        }
      };
      const clients = [0, 1, 2].map((role) => client(role));
      const heals: number[] = [];
      try {
        for (let kill = 0; kill < KILLS_PER_START; kill++) {
          const pids = storePids(service);
          // Right after a (re)start, while idle or under load: a random moment within 1.5 s,
          // never closer to the last death than the restart window (else it is a crash loop).
          await sleep(350 + random() * 1150);
          process.kill(pids[pids.length - 1], 'SIGKILL');
          const killedAt = Date.now();
          let healed: number | undefined;
          while (healed === undefined && Date.now() - killedAt <= HEAL_LIMIT_MS) {
            const { status } = await statusOf(`${url}/v1/candidates?limit=1`, { headers });
            if (status === 200 && storePids(service).length > pids.length) healed = Date.now() - killedAt;
            else await sleep(50);
          }
          heals.push(healed ?? Number.POSITIVE_INFINITY);
        }
      } finally {
        load.on = false;
        await Promise.all(clients);
      }

      console.log(`service start ${start}: heal times (ms) ${heals.join(', ')}`);
      expect(heals.filter((ms) => ms > HEAL_LIMIT_MS)).toEqual([]);
      expect(answers.filter(({ status }) => status >= 500 && status !== 503).map(({ status }) => status)).toEqual([]);
      expect(answers.filter(({ status, retryAfter }) => status === 503 && retryAfter === null)).toEqual([]);
      expect(answers.filter(({ status }) => status === 200 || status === 201).length).toBeGreaterThan(KILLS_PER_START);
      expect(service.child.exitCode).toBeNull();
    },
    // Twelve kills spaced up to 1.5 s, each healed within HEAL_LIMIT_MS at worst, and the start.
    KILLS_PER_START * (1_500 + HEAL_LIMIT_MS) + 60_000,
  );
});
