import type { ChangeEvent } from '../../src/changes/change-events';
import { followChanges } from '../../src/changes/change-follower';

/**
 * The live follower of the change feed without a store or a timer: a feed in memory read in
 * pages of two, and a tip the test moves by hand (feed-tip.ts polls it in the service).
 */

function feed() {
  const events: ChangeEvent[] = [];
  let tip = 0;
  let reads = 0;
  const waiting = new Set<() => void>();
  const append = (count: number) => {
    for (let i = 0; i < count; i++)
      events.push({ seq: ++tip, kind: 'REGISTERED', publicId: `candidate-${tip}`, at: new Date(0) });
    for (const wake of waiting) wake();
  };
  const follower = (start: number, check: () => Promise<void> = async () => undefined) =>
    followChanges({
      read: async (after) => {
        reads++;
        return events.filter((event) => event.seq > after).slice(0, 2);
      },
      start,
      cursorOf: (event) => String(event.seq),
      check,
      tip: {
        current: async () => tip,
        wait: (beyond) => {
          let cancel = () => undefined as void;
          const done = new Promise<void>((resolve) => {
            const wake = () => {
              if (tip <= beyond) return;
              waiting.delete(wake);
              resolve();
            };
            cancel = () => {
              waiting.delete(wake);
              resolve();
            };
            waiting.add(wake);
          });
          return { done, cancel };
        },
      },
      checkEveryMs: Number.MAX_SAFE_INTEGER,
      now: () => 0,
    });
  return { append, follower, reads: () => reads, waiting: () => waiting.size };
}

const seqsOf = async (iterator: AsyncIterator<{ cursor: string }>, count: number): Promise<string[]> => {
  const seqs: string[] = [];
  for (let i = 0; i < count; i++) seqs.push(((await iterator.next()).value as { cursor: string }).cursor);
  return seqs;
};

describe('followChanges', () => {
  test('when more changes wait than a page holds, then every one comes once, in order, before it waits', async () => {
    const { append, follower } = feed();
    append(5);
    const changes = follower(1);

    expect(await seqsOf(changes, 4)).toEqual(['2', '3', '4', '5']);
    const later = changes.next();
    append(1);
    expect((await later).value).toMatchObject({ cursor: '6' });
    await changes.return?.();
  });

  test('when it waits and the tip does not move, then it does not read the feed again; a move wakes it', async () => {
    const { append, follower, reads, waiting } = feed();
    const changes = follower(0);
    const next = changes.next();
    await new Promise(setImmediate);
    const readsWhileIdle = reads();
    expect(waiting()).toBe(1);

    append(1);
    expect((await next).value).toMatchObject({ cursor: '1' });
    expect(reads()).toBe(readsWhileIdle + 1);
    await changes.return?.();
  });

  test('when it is returned while it waits, then it ends at once and waits no more', async () => {
    const { follower, waiting } = feed();
    const changes = follower(0);
    const next = changes.next();
    await new Promise(setImmediate);

    await changes.return?.();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(waiting()).toBe(0);
  });

  test('when the check refuses before an event, then the event is not handed over', async () => {
    const { append, follower } = feed();
    append(1);
    const changes = follower(0, async () => {
      throw new Error('revoked');
    });
    await expect(changes.next()).rejects.toThrow('revoked');
  });
});
