import fs from 'node:fs';
import { serialize } from 'bson';
import type { Change, ChangeLog } from '../engine/change-log';
import { frameHeader } from './record-file';

interface Waiter {
  readonly sequence: number;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Append-only log of changes. `append` only buffers (it runs inside a command, synchronously);
 * `waitDurable` resolves once everything appended so far is written and fdatasync'ed. While
 * one write+sync is in flight, later appends accumulate and go out together in the next one,
 * so concurrent writers share fsyncs (group commit).
 */
export class Journal implements ChangeLog {
  private pending: Uint8Array[] = [];
  private appended = 0;
  private durable = 0;
  private waiters: Waiter[] = [];
  private flushing = false;
  private failure: Error | undefined;

  private constructor(private readonly handle: fs.promises.FileHandle) {}

  static async open(path: string): Promise<Journal> {
    return new Journal(await fs.promises.open(path, 'a'));
  }

  /** A marker for `waitDurable`: the number of changes appended so far. */
  get position(): number {
    return this.appended;
  }

  append(change: Change): void {
    const payload = serialize(change);
    this.pending.push(frameHeader(payload), payload);
    this.appended++;
  }

  /** Resolves when every change up to `position` (default: all) is on disk. */
  waitDurable(position = this.appended): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (position <= this.durable) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ sequence: position, resolve, reject }));
    void this.flush();
    return done;
  }

  async close(): Promise<void> {
    await this.waitDurable().catch(() => undefined);
    await this.handle.close();
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.durable < this.appended) {
        const batch = this.pending;
        const upTo = this.appended;
        this.pending = [];
        await this.writeAll(Buffer.concat(batch));
        await this.handle.datasync();
        this.durable = upTo;
        this.settle((waiter) => waiter.sequence <= upTo, (waiter) => waiter.resolve());
      }
    } catch (error) {
      // After a failed write the file's tail is unknown; refuse further acknowledgements.
      this.failure = error instanceof Error ? error : new Error(String(error));
      const failure = this.failure;
      this.settle(() => true, (waiter) => waiter.reject(failure));
    } finally {
      this.flushing = false;
    }
  }

  private async writeAll(data: Buffer): Promise<void> {
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await this.handle.write(data, written, data.length - written);
      written += bytesWritten;
    }
  }

  private settle(selected: (waiter: Waiter) => boolean, action: (waiter: Waiter) => void): void {
    const remaining: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (selected(waiter)) action(waiter);
      else remaining.push(waiter);
    }
    this.waiters = remaining;
  }
}
