import { execFileSync } from 'node:child_process';
import { MongoClient } from 'mongodb';
import { superviseEmbeddedStore, type SupervisedStore } from '../src/index';
import { makeTempDir } from './helpers';

/** The pids of this process's children now. */
function children(): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

describe('a supervised store killed while it starts', () => {
  const temp = (() => {
    let made: ReturnType<typeof makeTempDir>;
    beforeEach(() => (made = makeTempDir('supervised-start')));
    afterEach(() => made.remove());
    return {
      get dir() {
        return made.dir;
      },
    };
  })();
  let supervised: SupervisedStore | undefined;
  afterEach(async () => {
    await supervised?.stop();
    supervised = undefined;
  });

  test('when the first store child is killed before it reports ready, then it is started again and serves', async () => {
    const before = new Set(children());
    const restarting: unknown[] = [];
    let killed: number | undefined;
    const killer = setInterval(() => {
      if (killed !== undefined) return;
      const child = children().find((pid) => !before.has(pid));
      if (child === undefined) return;
      killed = child;
      process.kill(child, 'SIGKILL');
    }, 5);
    try {
      supervised = await superviseEmbeddedStore(
        temp.dir,
        { backoffMs: 50, maxRestarts: 5, windowMs: 60_000 },
        { restarting: (details) => restarting.push(details), restarted: () => undefined },
      );
    } finally {
      clearInterval(killer);
    }

    expect(killed).toBeDefined();
    expect(supervised.pid()).not.toBe(killed);
    expect(restarting).toEqual([expect.objectContaining({ delayMs: 50 })]);
    const client = await MongoClient.connect(supervised.uri, { serverSelectionTimeoutMS: 2000 });
    try {
      expect(await client.db('x').command({ ping: 1 })).toMatchObject({ ok: 1 });
    } finally {
      await client.close();
    }
  });
});
