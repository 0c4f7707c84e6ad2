import fs from 'node:fs';
import { crc32 } from 'node:zlib';

/**
 * The earlier release's snapshots and journals are sequences of framed records:
 *   u32 LE payload length | u32 LE CRC-32 of the payload | payload (one BSON document).
 * A record whose frame runs past the end of the file or whose checksum fails is a torn write
 * (the process died mid-append); reading stops there and everything before it stands.
 */
export const FRAME_HEADER_BYTES = 8;

/** Larger than any legitimate record (a 16 MB document plus framing); a bigger length is garbage. */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

const READ_CHUNK_BYTES = 4 * 1024 * 1024;

/** The frame header of `payload`; written just before it, so the payload is never copied into a frame. */
export function frameHeader(payload: Uint8Array): Buffer {
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUInt32LE(payload.length, 0);
  header.writeUInt32LE(crc32(payload), 4);
  return header;
}

/** Reads the intact records of a file, front to back, without loading it whole. */
export class RecordFileReader {
  /** Bytes of the file covered by intact records. */
  validBytes = 0;
  /** Bytes after the last intact record (a torn tail), 0 for a clean file. */
  discardedBytes = 0;

  constructor(private readonly path: string) {}

  /** Payloads in file order; each is only valid until the next one is requested. */
  *payloads(): Generator<Buffer> {
    const fd = fs.openSync(this.path, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      let buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      let bufferStart = 0; // file offset of buffer[0]
      let bufferEnd = 0; // file offset just past the buffered bytes
      const ensure = (from: number, bytes: number): void => {
        if (from + bytes <= bufferEnd) return;
        const keep = bufferEnd - from;
        if (bytes > buffer.length) {
          const larger = Buffer.allocUnsafe(Math.max(bytes, buffer.length * 2));
          buffer.copy(larger, 0, from - bufferStart, bufferEnd - bufferStart);
          buffer = larger;
        } else {
          buffer.copy(buffer, 0, from - bufferStart, bufferEnd - bufferStart);
        }
        bufferStart = from;
        bufferEnd = from + keep;
        while (bufferEnd < from + bytes) {
          const read = fs.readSync(
            fd,
            buffer,
            bufferEnd - bufferStart,
            buffer.length - (bufferEnd - bufferStart),
            bufferEnd,
          );
          if (read === 0) break;
          bufferEnd += read;
        }
      };

      let position = 0;
      while (position + FRAME_HEADER_BYTES <= size) {
        ensure(position, FRAME_HEADER_BYTES);
        const length = buffer.readUInt32LE(position - bufferStart);
        const checksum = buffer.readUInt32LE(position - bufferStart + 4);
        if (length > MAX_RECORD_BYTES || position + FRAME_HEADER_BYTES + length > size) break;
        ensure(position, FRAME_HEADER_BYTES + length);
        const offset = position - bufferStart + FRAME_HEADER_BYTES;
        const payload = buffer.subarray(offset, offset + length);
        if (crc32(payload) !== checksum) break;
        position += FRAME_HEADER_BYTES + length;
        this.validBytes = position;
        yield payload;
      }
      this.discardedBytes = size - position;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Where `part`, a view into the payload being looked at, starts in the file. */
  fileOffsetOf(part: Uint8Array, payload: Uint8Array): number {
    return this.validBytes - payload.length + (part.byteOffset - payload.byteOffset);
  }
}

/** Makes a directory's entries (created, renamed, deleted files) durable. */
export function fsyncDirectory(directory: string): void {
  fsyncOpened(directory, 'r');
}

/** Makes a file's contents durable. */
export function fsyncFile(file: string): void {
  fsyncOpened(file, 'r+');
}

function fsyncOpened(target: string, flags: 'r' | 'r+'): void {
  const fd = fs.openSync(target, flags);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
