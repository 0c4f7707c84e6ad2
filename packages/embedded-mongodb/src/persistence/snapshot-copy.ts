import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** What the copy's thread is given. */
export interface SnapshotCopyData {
  /** the store's directory (its `data.mdb`) */
  source: string;
  /** the new directory the copy's `data.mdb` is written into */
  target: string;
  /** the key spaces of `data.mdb` to copy, by name */
  spaces: readonly string[];
}

export type SnapshotCopyRequest = { type: 'snapshot' };

export type SnapshotCopyReply =
  { type: 'opened' } | { type: 'snapshot' } | { type: 'copied'; bytes: number } | { type: 'failed'; message: string };

/**
 * A copy of the store's `data.mdb` as one read transaction sees it, written by a thread of its
 * own (snapshot-copy-worker.ts) at the lowest priority: the store's thread goes on answering
 * commands at full speed meanwhile, and the copy takes only the CPU they leave. Only entries are
 * copied, in key order, so the copy is compact (no free page, nothing deleted before the
 * snapshot) and fsync'ed before it is reported done.
 *
 * `start` opens both files; `snapshot` begins the read transaction (the caller holds the store's
 * writes until it resolves: the copy holds exactly what was committed then); `copied` resolves
 * with the new file's bytes once it is complete.
 */
export class SnapshotCopy {
  private readonly replies: SnapshotCopyReply[] = [];
  private waiting: ((reply: SnapshotCopyReply) => void) | undefined;
  private failure: Error | undefined;
  private readonly exited: Promise<void>;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: SnapshotCopyReply) => this.deliver(reply));
    worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      worker.once('exit', (code) => {
        this.fail(new Error(`the snapshot copy's thread ended before it was done (exit code ${code})`));
        resolve();
      }),
    );
  }

  static async start(data: SnapshotCopyData): Promise<SnapshotCopy> {
    const { script, evaluate } = workerScript();
    const copy = new SnapshotCopy(new Worker(script, { eval: evaluate, workerData: data }));
    try {
      await copy.next('opened');
    } catch (error) {
      await copy.stop();
      throw error;
    }
    return copy;
  }

  /** Begins the copy's read transaction; resolves once it is open. */
  async snapshot(): Promise<void> {
    this.worker.postMessage({ type: 'snapshot' } satisfies SnapshotCopyRequest);
    await this.next('snapshot');
  }

  /** Resolves with the bytes of the copy's `data.mdb` once it is written and fsync'ed. */
  async copied(): Promise<number> {
    const reply = await this.next('copied');
    return reply.type === 'copied' ? reply.bytes : 0;
  }

  /** Ends the thread (a copy not done is abandoned: its read transaction ends with it). */
  async stop(): Promise<void> {
    await this.worker.terminate();
    await this.exited;
  }

  private deliver(reply: SnapshotCopyReply): void {
    if (reply.type === 'failed') return this.fail(new Error(`the snapshot copy failed: ${reply.message}`));
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(reply);
    else this.replies.push(reply);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ type: 'failed', message: error.message });
  }

  private async next(type: SnapshotCopyReply['type']): Promise<SnapshotCopyReply> {
    const reply =
      this.replies.shift() ??
      (this.failure
        ? undefined
        : await new Promise<SnapshotCopyReply>((resolve) => {
            this.waiting = resolve;
          }));
    if (reply === undefined || reply.type === 'failed') throw this.failure ?? new Error('the snapshot copy failed');
    if (reply.type !== type) throw new Error(`the snapshot copy answered ${reply.type}, not ${type}`);
    return reply;
  }
}

/**
 * The compiled worker next to this module, or, when this module runs from source (tests, tsx),
 * the TypeScript one behind tsx's require hook, which a worker does not inherit from its parent.
 */
function workerScript(): { script: string; evaluate: boolean } {
  const file = path.join(__dirname, `snapshot-copy-worker${path.extname(__filename)}`);
  if (!__filename.endsWith('.ts')) return { script: file, evaluate: false };
  return {
    script: `require(${JSON.stringify(require.resolve('tsx/cjs'))});\nrequire(${JSON.stringify(file)});`,
    evaluate: true,
  };
}
