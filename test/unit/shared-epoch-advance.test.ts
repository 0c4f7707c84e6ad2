import type { Db } from 'mongodb';
import { SharedEpochAdvance } from '../../src/cache/shared-epoch-advance';

/** A database whose epoch updates the test finishes by hand, oldest first. */
function storeWithManualUpdates() {
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let started = 0;
  const db = {
    collection: () => ({
      updateOne: () =>
        new Promise<void>((resolve, reject) => {
          started++;
          pending.push({ resolve, reject });
        }),
    }),
  } as unknown as Db;
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return {
    db,
    started: () => started,
    inFlight: () => pending.length,
    finishUpdate: async () => {
      pending.shift()!.resolve();
      await settle();
    },
    failUpdate: async (error: Error) => {
      pending.shift()!.reject(error);
      await settle();
    },
  };
}

describe('SharedEpochAdvance', () => {
  test('when many writers advance together, then two updates serve them all: the first, and one for those that came while it ran', async () => {
    const store = storeWithManualUpdates();
    const epoch = new SharedEpochAdvance(store.db);
    const settled: number[] = [];

    const first = epoch.advance().then(() => settled.push(0));
    const others = Array.from({ length: 19 }, (_, i) => epoch.advance().then(() => settled.push(i + 1)));
    expect(store.started()).toBe(1);

    await store.finishUpdate();
    // The first update may have started before the others' writes: they wait for the second.
    expect(settled).toEqual([0]);
    expect(store.started()).toBe(2);
    await store.finishUpdate();

    await Promise.all([first, ...others]);
    expect(settled).toHaveLength(20);
    expect(store.started()).toBe(2);
  });

  test('when nobody is waiting, then each advance is an update of its own', async () => {
    const store = storeWithManualUpdates();
    const epoch = new SharedEpochAdvance(store.db);

    const one = epoch.advance();
    await store.finishUpdate();
    await one;
    const two = epoch.advance();
    await store.finishUpdate();
    await two;

    expect(store.started()).toBe(2);
  });

  test('when an update fails, then its writers see the failure and a later advance runs a new update', async () => {
    const store = storeWithManualUpdates();
    const epoch = new SharedEpochAdvance(store.db);

    const failed = epoch.advance();
    const waiting = epoch.advance();
    await store.failUpdate(new Error('store unreachable'));
    await expect(failed).rejects.toThrow('store unreachable');
    expect(store.inFlight()).toBe(1);
    await store.finishUpdate();
    await expect(waiting).resolves.toBeUndefined();
  });
});
