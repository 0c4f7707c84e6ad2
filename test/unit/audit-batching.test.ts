/**
 * How the audit service writes events: queued by record() (synchronous, never throwing), then
 * written in batches of one insertMany each, when a batch is full or a short delay after its
 * first event, and at once by drain(). A repository that records its calls stands in for the
 * store; fake timers stand in for the delay.
 */
import type { AuditEventDoc } from '../../src/audit/audit-event';
import { AuditWriteError, type AuditRepository } from '../../src/audit/audit-repository';
import {
  AuditEventNotKeptError,
  AuditService,
  DEFAULT_AUDIT_BATCH_SIZE,
  DEFAULT_AUDIT_FLUSH_DELAY_MS,
  DEFAULT_AUDIT_RETRY_DELAY_MS,
} from '../../src/audit/audit-service';
import { ServiceUnavailableError } from '../../src/errors';
import { RequestAudit } from '../../src/audit/request-audit';
import type { Clock } from '../../src/common/clock';

/** A write the test settles itself. */
interface HeldWrite {
  events: readonly AuditEventDoc[];
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Stands in for the repository. Each insertMany is kept in `calls`; by default it succeeds at
 * once, `fail` makes the next ones reject, `hold` keeps them open until the test settles them.
 */
function fakeRepository() {
  const calls: AuditEventDoc[][] = [];
  const held: HeldWrite[] = [];
  const failures: unknown[] = [];
  let holding = false;
  const insertMany = jest.fn((events: readonly AuditEventDoc[]): Promise<void> => {
    calls.push([...events]);
    const failure = failures.shift();
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the test feeds the driver's failures as they come, Errors or not
    if (failure !== undefined) return Promise.reject(failure);
    if (!holding) return Promise.resolve();
    return new Promise<void>((resolve, reject) => held.push({ events, resolve, reject }));
  });
  const insert = jest.fn(() => Promise.resolve());
  const repository = {
    insertMany,
    insertInSession: insert,
    find: jest.fn(async () => []),
  } as unknown as AuditRepository;
  return {
    repository,
    insertMany,
    insert,
    calls,
    held,
    /** the next insertMany calls reject with these, in order */
    fail: (...errors: unknown[]) => failures.push(...errors),
    hold: () => {
      holding = true;
    },
  };
}

/** A clock that moves on by one second at every reading. */
function tickingClock(start = Date.UTC(2030, 0, 1)): Clock {
  let next = start;
  return { now: () => new Date((next += 1000)) };
}

/** Records one REST request per request id; returns the failures reported per request id. */
function recordRequests(audit: AuditService, requestIds: readonly string[], status = 200): Map<string, unknown[]> {
  const failures = new Map<string, unknown[]>();
  for (const requestId of requestIds) {
    failures.set(requestId, []);
    audit.record(new RequestAudit('key_batch', 'REST', requestId), status, (error) =>
      failures.get(requestId)!.push(error),
    );
  }
  return failures;
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
const requestIdsOf = (events: readonly AuditEventDoc[]) => events.map((event) => event.requestId);

/** Lets every promise job run (the writes start in one) without moving the fake clock. */
const settle = () => jest.advanceTimersByTimeAsync(0);

beforeEach(() => {
  jest.useFakeTimers();
});

afterEach(() => {
  jest.useRealTimers();
});

describe('batching', () => {
  test('when several events are recorded in one go, then nothing is written before the delay, then one insertMany writes them all in order', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository);

    recordRequests(audit, ids('r', 7));
    await jest.advanceTimersByTimeAsync(DEFAULT_AUDIT_FLUSH_DELAY_MS - 1);
    const beforeDelay = store.calls.length;
    await jest.advanceTimersByTimeAsync(1);

    expect(beforeDelay).toBe(0);
    expect(store.insertMany).toHaveBeenCalledTimes(1);
    expect(requestIdsOf(store.calls[0])).toEqual(ids('r', 7));
    expect(store.insert).not.toHaveBeenCalled();
  });

  test('when an event is recorded, then its time is that of record(), not that of the write', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository, tickingClock(Date.UTC(2030, 0, 1)));

    recordRequests(audit, ['first', 'second']);
    await jest.advanceTimersByTimeAsync(DEFAULT_AUDIT_FLUSH_DELAY_MS);

    expect(store.calls[0].map((event) => event.time)).toEqual([
      new Date(Date.UTC(2030, 0, 1, 0, 0, 1)),
      new Date(Date.UTC(2030, 0, 1, 0, 0, 2)),
    ]);
  });

  test('when the default batch size is reached, then the full batch is written at once and the rest waits for the delay', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository);

    recordRequests(audit, ids('r', 2 * DEFAULT_AUDIT_BATCH_SIZE + 1));
    await settle();
    const sizesAtOnce = store.calls.map((events) => events.length);
    await jest.advanceTimersByTimeAsync(DEFAULT_AUDIT_FLUSH_DELAY_MS);

    expect(sizesAtOnce).toEqual([DEFAULT_AUDIT_BATCH_SIZE, DEFAULT_AUDIT_BATCH_SIZE]);
    expect(store.calls.map((events) => events.length)).toEqual([DEFAULT_AUDIT_BATCH_SIZE, DEFAULT_AUDIT_BATCH_SIZE, 1]);
    expect(store.calls.flatMap(requestIdsOf)).toEqual(ids('r', 2 * DEFAULT_AUDIT_BATCH_SIZE + 1));
  });

  test('when a batch size and a delay are given, then batches split at that size and wait that long', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository, undefined, { batchSize: 3, flushDelayMs: 50 });

    recordRequests(audit, ids('r', 7));
    await settle();
    const atOnce = store.calls.map(requestIdsOf);
    await jest.advanceTimersByTimeAsync(49);
    const before = store.calls.length;
    await jest.advanceTimersByTimeAsync(1);

    expect(atOnce).toEqual([
      ['r-0', 'r-1', 'r-2'],
      ['r-3', 'r-4', 'r-5'],
    ]);
    expect(before).toBe(2);
    expect(store.calls.map(requestIdsOf)).toEqual([...atOnce, ['r-6']]);
  });

  test('when events come after a batch went out, then they form the next batch, timed from its own first event', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository, undefined, { flushDelayMs: 10 });

    recordRequests(audit, ['a']);
    await jest.advanceTimersByTimeAsync(10);
    recordRequests(audit, ['b']);
    await jest.advanceTimersByTimeAsync(4);
    recordRequests(audit, ['c']);
    await jest.advanceTimersByTimeAsync(5);
    const beforeSecondDelay = store.calls.length;
    await jest.advanceTimersByTimeAsync(1);

    expect(beforeSecondDelay).toBe(1);
    expect(store.calls.map(requestIdsOf)).toEqual([['a'], ['b', 'c']]);
  });

  test('when a full batch went out before its delay, then the next event waits a whole delay of its own', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository, undefined, { batchSize: 3, flushDelayMs: 50 });

    recordRequests(audit, ['a']);
    await jest.advanceTimersByTimeAsync(30);
    recordRequests(audit, ['b', 'c', 'd']);
    await jest.advanceTimersByTimeAsync(20);
    const whenFirstDelayEnded = store.calls.map(requestIdsOf);
    await jest.advanceTimersByTimeAsync(30);

    expect(whenFirstDelayEnded).toEqual([['a', 'b', 'c']]);
    expect(store.calls.map(requestIdsOf)).toEqual([['a', 'b', 'c'], ['d']]);
  });

  test('when the options are not a positive batch size and a non-negative delay, then the service is not built', () => {
    const { repository } = fakeRepository();

    expect(() => new AuditService(repository, undefined, { batchSize: 0 })).toThrow(RangeError);
    expect(() => new AuditService(repository, undefined, { batchSize: 1.5 })).toThrow(RangeError);
    expect(() => new AuditService(repository, undefined, { flushDelayMs: -1 })).toThrow(RangeError);
  });
});

describe('drain', () => {
  test('when events are queued, then drain writes them at once without waiting for the delay, in one insertMany', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository, undefined, { flushDelayMs: 60_000 });
    recordRequests(audit, ids('r', 4));

    await audit.drain();

    expect(store.calls.map(requestIdsOf)).toEqual([ids('r', 4)]);
    // The timer went with the queue: nothing is written twice.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(store.insertMany).toHaveBeenCalledTimes(1);
  });

  test('when writes are in flight, then drain resolves only once every one of them has settled', async () => {
    const store = fakeRepository();
    store.hold();
    const audit = new AuditService(store.repository, undefined, { batchSize: 2 });
    recordRequests(audit, ids('r', 5));
    let drained = false;

    const draining = audit.drain().then(() => {
      drained = true;
    });
    await settle();
    const whileHeld = drained;
    store.held[0].resolve();
    store.held[1].reject(new Error('store down'));
    await settle();
    const withOneLeft = drained;
    store.held[2].resolve();
    await jest.advanceTimersByTimeAsync(DEFAULT_AUDIT_RETRY_DELAY_MS);
    const whileRetryHeld = drained;
    store.held[3].resolve();
    await draining;

    expect(store.calls.map(requestIdsOf)).toEqual([['r-0', 'r-1'], ['r-2', 'r-3'], ['r-4'], ['r-2', 'r-3']]);
    expect([whileHeld, withOneLeft, whileRetryHeld, drained]).toEqual([false, false, false, true]);
  });

  test('when an event is recorded while drain waits for a write, then drain writes it too and waits for that write as well', async () => {
    const store = fakeRepository();
    store.hold();
    const audit = new AuditService(store.repository);
    recordRequests(audit, ['before']);
    let drained = false;

    const draining = audit.drain().then(() => {
      drained = true;
    });
    await settle();
    recordRequests(audit, ['during']);
    store.held[0].resolve();
    await settle();
    const whileSecondHeld = drained;
    store.held[1]?.resolve();
    await draining;

    expect(store.calls.map(requestIdsOf)).toEqual([['before'], ['during']]);
    expect(whileSecondHeld).toBe(false);
  });

  test('when nothing was recorded, then drain resolves without writing', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository);

    await audit.drain();

    expect(store.insertMany).not.toHaveBeenCalled();
  });
});

describe('failed writes', () => {
  test('when a batch fails, then each of its events reports the error once, no other event does, the next batch is still written, and the failed one is written again', async () => {
    jest.useRealTimers();
    const store = fakeRepository();
    const failure = new Error('store down');
    store.fail(failure);
    const audit = new AuditService(store.repository, undefined, { batchSize: 3, retryDelayMs: 1 });

    const failures = recordRequests(audit, ids('r', 5));
    await audit.drain();

    expect(store.calls.map(requestIdsOf)).toEqual([
      ['r-0', 'r-1', 'r-2'],
      ['r-3', 'r-4'],
      ['r-0', 'r-1', 'r-2'],
    ]);
    expect(Object.fromEntries(failures)).toEqual({
      'r-0': [failure],
      'r-1': [failure],
      'r-2': [failure],
      'r-3': [],
      'r-4': [],
    });
  });

  test('when the store refuses some events of a batch, then only those report the error, and they are not written again', async () => {
    const store = fakeRepository();
    const partial = new AuditWriteError([1, 3], { cause: new Error('E11000') });
    store.fail(partial);
    const audit = new AuditService(store.repository);

    const failures = recordRequests(audit, ids('r', 4));
    await audit.drain();

    expect(Object.fromEntries(failures)).toEqual({ 'r-0': [], 'r-1': [partial], 'r-2': [], 'r-3': [partial] });
    expect(store.calls).toHaveLength(1);
  });

  test('when the repository throws instead of rejecting, then record still returns, the events report the error, and are written again', async () => {
    jest.useRealTimers();
    const store = fakeRepository();
    store.insertMany.mockImplementationOnce(() => {
      throw new Error('thrown at once');
    });
    const audit = new AuditService(store.repository, undefined, { batchSize: 1, retryDelayMs: 1 });

    let failures = new Map<string, unknown[]>();
    expect(() => {
      failures = recordRequests(audit, ['r-0']);
    }).not.toThrow();
    await audit.drain();

    expect(failures.get('r-0')).toEqual([new Error('thrown at once')]);
    expect(store.insertMany).toHaveBeenCalledTimes(2);
    expect(store.calls.map(requestIdsOf)).toEqual([['r-0']]);
  });

  test('when onFailure itself throws, then no rejection is left unhandled, and later events are still written', async () => {
    // Node reports an unhandled rejection only after a real turn of the event loop.
    jest.useRealTimers();
    const store = fakeRepository();
    store.fail(new Error('store down'));
    const audit = new AuditService(store.repository, undefined, { batchSize: 1 });
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);

    try {
      audit.record(new RequestAudit('key_batch', 'REST', 'r-0'), 200, () => {
        throw new Error('logger broken');
      });
      await new Promise((resolve) => setTimeout(resolve, 10));
      recordRequests(audit, ['r-1']);
      await audit.drain();
    } finally {
      process.off('unhandledRejection', unhandled);
    }

    expect(unhandled).not.toHaveBeenCalled();
    expect(store.calls.map(requestIdsOf)).toEqual([['r-0'], ['r-0'], ['r-1']]);
  });

  test('when the event cannot even be built, then record does not throw and reports the error', () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository, {
      now: () => {
        throw new Error('no clock');
      },
    });
    const failures: unknown[] = [];

    expect(() =>
      audit.record(new RequestAudit('key_batch', 'REST', 'r-0'), 200, (error) => failures.push(error)),
    ).not.toThrow();

    expect(failures).toEqual([new Error('no clock')]);
  });
});

describe('retries and the bounded buffer', () => {
  test('when the store fails several times, then the events are written again with a growing delay until stored, each failure reported once per event', async () => {
    const store = fakeRepository();
    const failure = new Error('store down');
    store.fail(failure, failure, failure);
    const audit = new AuditService(store.repository, undefined, { flushDelayMs: 0, retryDelayMs: 100 });

    const failures = recordRequests(audit, ['r-0']);
    await jest.advanceTimersByTimeAsync(0);
    const afterFirst = store.calls.length;
    await jest.advanceTimersByTimeAsync(100);
    const afterSecond = store.calls.length;
    await jest.advanceTimersByTimeAsync(199);
    const beforeThirdDelay = store.calls.length;
    await jest.advanceTimersByTimeAsync(1);
    await jest.advanceTimersByTimeAsync(400);

    expect([afterFirst, afterSecond, beforeThirdDelay, store.calls.length]).toEqual([1, 2, 2, 4]);
    expect(failures.get('r-0')).toEqual([failure]);
    expect(audit.held).toBe(0);
  });

  test('when the buffer holds its size in events the store has not taken, then reads are refused with a 503, and admitted again once they are stored', async () => {
    const store = fakeRepository();
    store.hold();
    const audit = new AuditService(store.repository, undefined, { bufferSize: 3, flushDelayMs: 0 });

    recordRequests(audit, ids('r', 2));
    const withRoom = audit.hasRoom();
    recordRequests(audit, ['r-2']);
    await settle();
    const refusal = (() => {
      try {
        audit.admitRead();
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    for (const write of store.held) write.resolve();
    await settle();

    expect(withRoom).toBe(true);
    expect(refusal).toBeInstanceOf(ServiceUnavailableError);
    expect((refusal as ServiceUnavailableError).status).toBe(503);
    expect(() => audit.admitRead()).not.toThrow();
  });

  test('when the buffer is full, then the event of a success is still kept, and that of a refusal is not and is reported once', async () => {
    const store = fakeRepository();
    store.hold();
    const audit = new AuditService(store.repository, undefined, { bufferSize: 1, flushDelayMs: 0 });
    recordRequests(audit, ['first']);

    const refused = recordRequests(audit, ['refused-1', 'refused-2'], 503);
    recordRequests(audit, ['answered'], 200);
    await settle();
    for (const write of store.held) write.resolve();
    await audit.drain();

    expect(store.calls.flat().map((event) => event.requestId)).toEqual(['first', 'answered']);
    expect(refused.get('refused-1')).toEqual([expect.any(AuditEventNotKeptError)]);
    expect(refused.get('refused-2')).toEqual([]);
  });

  test('when drain cannot store the events in its rounds, then it reports each as not kept and resolves', async () => {
    jest.useRealTimers();
    const store = fakeRepository();
    store.insertMany.mockImplementation(() => Promise.reject(new Error('store down')));
    const audit = new AuditService(store.repository, undefined, { retryDelayMs: 1, drainAttempts: 3 });

    const failures = recordRequests(audit, ['r-0']);
    await audit.drain();

    expect(failures.get('r-0')).toEqual([new Error('store down'), expect.any(AuditEventNotKeptError)]);
    expect(audit.held).toBe(0);
  });

  test('when a request stored its event with its write, then the event at its close is not appended again, unless the answer says more', async () => {
    const store = fakeRepository();
    const audit = new AuditService(store.repository, undefined, { flushDelayMs: 0 });
    const written = new RequestAudit('key_batch', 'REST', 'written');
    const failedAfter = new RequestAudit('key_batch', 'REST', 'failed-after');
    for (const request of [written, failedAfter]) {
      const companion = audit.companionOf(request)({ candidatePublicIds: ['anqOhLMzRR6ENxcJTfvFfw'], result: {} });
      await companion.write(undefined);
      companion.committed?.();
    }

    audit.record(written, 201, () => undefined);
    audit.record(failedAfter, 503, () => undefined);
    await audit.drain();

    expect(store.insert).toHaveBeenCalledTimes(2);
    expect(store.calls.flat().map((event) => [event.requestId, event.status])).toEqual([['failed-after', 503]]);
  });
});
