import type { Readable } from 'node:stream';

/**
 * The ustar archive format (POSIX.1-1988), as far as a backup needs it: regular files with a
 * name of at most 100 bytes. Sizes from 8 GiB on are written in the base-256 form GNU tar and
 * bsdtar read (the octal field holds less). `tar -xzf` unpacks what writeTar produces.
 */

const BLOCK = 512;
const MAX_OCTAL_SIZE = 8 ** 11 - 1;

/** The header block of a regular file. */
export function tarHeader(name: string, size: number, mtime: Date): Buffer {
  const header = Buffer.alloc(BLOCK);
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 100) throw new Error(`a name of at most 100 bytes: ${name}`);
  nameBytes.copy(header, 0);
  octal(header, 100, 8, 0o600);
  octal(header, 108, 8, 0);
  octal(header, 116, 8, 0);
  if (size <= MAX_OCTAL_SIZE) octal(header, 124, 12, size);
  else {
    header[124] = 0x80;
    header.writeBigUInt64BE(BigInt(size), 124 + 4);
  }
  octal(header, 136, 12, Math.floor(mtime.getTime() / 1000));
  header.fill(0x20, 148, 156);
  header[156] = 0x30; // '0': a regular file
  header.write('ustar\u000000', 257, 'latin1');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
  return header;
}

/** Zero bytes that fill a file's data up to the next block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The two zero blocks that end an archive. */
export const TAR_END = Buffer.alloc(2 * BLOCK);

function octal(header: Buffer, offset: number, length: number, value: number): void {
  header.write(`${value.toString(8).padStart(length - 1, '0')}\u0000`, offset, 'latin1');
}

function readSize(header: Buffer): number {
  if (header[124] & 0x80) return Number(header.readBigUInt64BE(124 + 4));
  return Number.parseInt(header.toString('latin1', 124, 136).replace(/\0.*$/, '').trim() || '0', 8);
}

function checksumHolds(header: Buffer): boolean {
  const stored = Number.parseInt(header.toString('latin1', 148, 156).replace(/\0.*$/, '').trim(), 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
  return stored === sum;
}

/** What receives one file of an archive being read: its bytes in order, then its end. */
export interface TarEntrySink {
  write(chunk: Buffer): void | Promise<void>;
  end(): void | Promise<void>;
}

/**
 * Reads the archive `input` (already decompressed), handing each regular file's bytes to the
 * sink `entry` returns for it. Rejects on a damaged header, an entry that is not a regular file,
 * or an archive that ends before its files do.
 */
export async function readTar(input: Readable, entry: (name: string, size: number) => TarEntrySink): Promise<void> {
  let pending: Buffer = Buffer.alloc(0);
  let file: { sink: TarEntrySink; left: number; padding: number } | undefined;
  let ended = false;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (file !== undefined) {
        if (file.left > 0) {
          if (pending.length === 0) break;
          const part = pending.subarray(0, Math.min(file.left, pending.length));
          pending = pending.subarray(part.length);
          file.left -= part.length;
          await file.sink.write(part);
          continue;
        }
        if (pending.length < file.padding) break;
        pending = pending.subarray(file.padding);
        await file.sink.end();
        file = undefined;
        continue;
      }
      if (ended || pending.length < BLOCK) break;
      const header = pending.subarray(0, BLOCK);
      pending = pending.subarray(BLOCK);
      if (header.every((byte) => byte === 0)) {
        ended = true;
        break;
      }
      if (!checksumHolds(header)) throw new Error('the archive has a damaged header');
      if (header[156] !== 0x30 && header[156] !== 0) throw new Error('the archive holds something other than files');
      const name = header.toString('utf8', 0, 100).replace(/\0.*$/s, '');
      const size = readSize(header);
      file = { sink: entry(name, size), left: size, padding: tarPadding(size).length };
    }
  }
  if (file !== undefined) throw new Error('the archive ends in the middle of a file');
  if (!ended) throw new Error('the archive has no end (it was cut short)');
}
