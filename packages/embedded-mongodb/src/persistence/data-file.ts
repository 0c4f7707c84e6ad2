import fs from 'node:fs';
import type { RecordSource } from '../engine/stored-record';

/**
 * A data file (snapshot or journal) opened for reading the documents of records that keep only
 * their place in it. Reads are synchronous: they run inside a command, like everything the
 * store does in memory, and come from the page cache once a document has been read or written.
 */
export class DataFile implements RecordSource {
  private fd: number | undefined;

  constructor(readonly path: string) {
    this.fd = fs.openSync(path, 'r');
  }

  read(offset: number, length: number): Uint8Array {
    if (this.fd === undefined) throw new Error(`${this.path} is closed; its documents cannot be read`);
    const bytes = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const read = fs.readSync(this.fd, bytes, done, length - done, offset + done);
      if (read === 0) throw new Error(`${this.path} ends before the document at ${offset} (${length} bytes)`);
      done += read;
    }
    return bytes;
  }

  close(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
