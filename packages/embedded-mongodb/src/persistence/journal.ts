import fs from 'node:fs';
import path from 'node:path';
import { serialize } from 'bson';
import type { Change, ChangeLog } from '../engine/change-log';
import { documentFieldOffset, withDocumentField } from '../engine/raw-bson';
import type { StoredRecord } from '../engine/stored-record';
import { DataFile } from './data-file';
import { FRAME_HEADER_BYTES, frameHeader } from './record-file';

interface Waiter {
  readonly sequence: number;
  resolve(): void;
  reject(error: Error): void;
}

/** A put's document in the pending bytes: `at` is its offset from the start of the batch. */
interface Placement {
  readonly record: StoredRecord;
  readonly version: number;
  readonly at: number;
}

/**
 * Append-only log of changes. `append` only buffers (it runs inside a command, synchronously);
 * `waitDurable` resolves once everything appended so far is written and fdatasync'ed. While
 * one write+sync is in flight, later appends accumulate and go out together in the next one,
 * so concurrent writers share fsyncs (group commit). A put writes its record's bytes as they
 * are; once they are durable the record keeps only their place in this file.
 */
export class Journal implements ChangeLog {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private placements: Placement[] = [];
  private appended = 0;
  private durable = 0;
  private waiters: Waiter[] = [];
  private flushing = false;
  private failure: Error | undefined;

  private constructor(
    private readonly handle: fs.promises.FileHandle,
    private readonly file: DataFile,
    /** Bytes in the file: where the next batch starts. */
    private size: number,
    private readonly marks: DurableMarks | undefined,
  ) {}

  /** `durableMarks`: test only, see DurableMarks. */
  static async open(path: string, durableMarks?: string): Promise<Journal> {
    // The owner alone (DATA_FILE_MODE of data-directory.ts), whatever the umask.
    const handle = await fs.promises.open(path, 'a', 0o600);
    const { size } = await handle.stat();
    return new Journal(
      handle,
      new DataFile(path),
      size,
      durableMarks === undefined ? undefined : new DurableMarks(durableMarks, path),
    );
  }

  /** A marker for `waitDurable`: the number of changes appended so far. */
  get position(): number {
    return this.appended;
  }

  append(change: Change, record?: StoredRecord): void {
    let payload: Uint8Array;
    if (change.t === 'put' && record !== undefined) {
      const bson = record.bson;
      payload = withDocumentField(serialize({ t: change.t, db: change.db, c: change.c }), 'd', bson);
      const at = this.pendingBytes + FRAME_HEADER_BYTES + documentFieldOffset(payload, bson);
      this.placements.push({ record, version: record.currentVersion, at });
    } else {
      payload = serialize(change);
    }
    this.pending.push(frameHeader(payload), payload);
    this.pendingBytes += FRAME_HEADER_BYTES + payload.length;
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

  /** After this, the documents of records that kept only their place here cannot be read. */
  async close(): Promise<void> {
    await this.waitDurable().catch(() => undefined);
    await this.handle.close();
    this.file.close();
    this.marks?.close();
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.durable < this.appended) {
        const batch = this.pending;
        const placements = this.placements;
        const start = this.size;
        const upTo = this.appended;
        this.pending = [];
        this.placements = [];
        this.pendingBytes = 0;
        const data = Buffer.concat(batch);
        await this.writeAll(data);
        await this.handle.datasync();
        this.size += data.length;
        this.marks?.record(this.size);
        for (const { record, version, at } of placements) record.writtenTo(this.file, start + at, version);
        this.durable = upTo;
        this.settle(
          (waiter) => waiter.sequence <= upTo,
          (waiter) => waiter.resolve(),
        );
      }
    } catch (error) {
      // After a failed write the file's tail is unknown; refuse further acknowledgements.
      this.failure = error instanceof Error ? error : new Error(String(error));
      const failure = this.failure;
      this.settle(
        () => true,
        (waiter) => waiter.reject(failure),
      );
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

/**
 * Test only (the store's `--durable-marks <file>`): after every fdatasync of the journal, and
 * before any write it made durable is acknowledged, appends "<journal file name> <durable
 * length>" to `file`. A kill -9 does not lose what the process wrote but did not sync (the
 * page cache keeps it), so a crash test truncates the journal to its last mark to lose what a
 * power cut would, and counts the lines to count the fsyncs.
 */
class DurableMarks {
  private readonly fd: number;
  private readonly journal: string;

  constructor(file: string, journalPath: string) {
    this.fd = fs.openSync(file, 'a', 0o600);
    this.journal = path.basename(journalPath);
  }

  record(durableLength: number): void {
    fs.writeSync(this.fd, `${this.journal} ${durableLength}\n`);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
