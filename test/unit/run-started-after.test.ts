import { RunStartedAfter } from '../../src/cache/run-started-after';
import { ServiceUnavailableError } from '../../src/errors';

describe('RunStartedAfter with a deadline', () => {
  test('when a run never settles, then its callers get a ServiceUnavailableError at the deadline, and those queued behind it get a new run', async () => {
    let started = 0;
    const runs = new RunStartedAfter<string>(() => {
      started += 1;
      // The first run hangs for good, as a driver operation caught by a store crash did.
      return started === 1 ? new Promise<string>(() => undefined) : Promise.resolve(`run ${started}`);
    }, 50);

    const hung = runs.run();
    const queued = runs.run();
    const [first, second] = await Promise.allSettled([hung, queued]);
    const next = await runs.run();

    expect(first.status === 'rejected' && first.reason instanceof ServiceUnavailableError).toBe(true);
    expect(second).toEqual({ status: 'fulfilled', value: 'run 2' });
    expect(next).toBe('run 3');
  });

  test('when a run settles before the deadline, then its callers get its answer', async () => {
    const runs = new RunStartedAfter(
      () => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 10)),
      1_000,
    );

    expect(await runs.run()).toBe('ok');
  });
});
