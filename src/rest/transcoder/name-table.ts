/**
 * A fixed set of byte strings (a selection's stored names, an enum's values) looked up by the
 * bytes of a stored document without making a string: by a hash of the bytes, computed while
 * they are read, in an open-addressed table, and then compared once. A document's element names
 * of the same length no longer meet every selected name of that length in turn.
 */
export class NameTable {
  /** index + 1 of the name in each cell (0: empty) */
  private readonly cells: Int32Array;
  private readonly mask: number;
  private readonly hashes: Int32Array;
  private readonly names: Buffer[];
  /** how many names the table was made with: those of higher index were learned */
  readonly given: number;
  /** how many names it holds at most, given and learned */
  readonly capacity: number;

  /** `learnable`: how many names met in documents it may add (`learn`), beside the given ones. */
  constructor(names: readonly Buffer[], learnable = 0) {
    this.given = names.length;
    this.capacity = names.length + learnable;
    let size = 8;
    while (size < this.capacity * 2) size *= 2;
    this.cells = new Int32Array(size);
    this.mask = size - 1;
    this.hashes = new Int32Array(this.capacity);
    this.names = [];
    for (const name of names) this.add(name, hashOf(name, 0, name.length));
  }

  /**
   * Adds the name `buf[start, end)` (hash `hash`), not in the table, and gives its index; -1
   * when the table is full. A scan learns the names of documents that the selection does not
   * read, so that it can expect them (NameTable.lengthAt) as it expects the selected ones.
   */
  learn(buf: Uint8Array, start: number, end: number, hash: number): number {
    if (this.names.length >= this.capacity) return -1;
    return this.add(Buffer.from(buf.subarray(start, end)), hash);
  }

  private add(name: Buffer, hash: number): number {
    const index = this.names.length;
    this.names.push(name);
    this.hashes[index] = hash;
    let cell = hash & this.mask;
    while (this.cells[cell] !== 0) cell = (cell + 1) & this.mask;
    this.cells[cell] = index + 1;
    return index;
  }

  /** The length of name `index` when `buf` holds it, ended by a 0 byte, at `at`; -1 when it does not. */
  lengthAt(buf: Uint8Array, at: number, index: number): number {
    const name = this.names[index];
    const length = name.length;
    for (let i = 0; i < length; i++) if (buf[at + i] !== name[i]) return -1;
    return buf[at + length] === 0 ? length : -1;
  }

  /** The index of the name equal to `buf[start, end)`, whose hash (hashOf) is `hash`; -1 when none is. */
  find(buf: Uint8Array, start: number, end: number, hash: number): number {
    const { cells, mask, hashes, names } = this;
    let cell = hash & mask;
    for (;;) {
      const entry = cells[cell];
      if (entry === 0) return -1;
      const index = entry - 1;
      if (hashes[index] === hash) {
        const name = names[index];
        const length = name.length;
        if (length === end - start) {
          let i = 0;
          while (i < length && buf[start + i] === name[i]) i++;
          if (i === length) return index;
        }
      }
      cell = (cell + 1) & mask;
    }
  }
}

export const HASH_SEED = 0x811c9dc5 | 0;

/** FNV-1a, 32 bits (the scans compute it inline, byte by byte, as they read a name). */
export function hashOf(buf: Uint8Array, start: number, end: number): number {
  let hash = HASH_SEED;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ buf[i], 0x01000193);
  return hash;
}
