import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { ENVIRONMENT_OPTIONS } from '../src/persistence/secure-space';
import { SnapshotCopy } from '../src/persistence/snapshot-copy';
import { makeTempDir } from './helpers';

/**
 * The copy of `data.mdb` a backup takes runs in a thread of its own while the store's thread goes
 * on committing: what it writes must be the file as it was when its read transaction began, not
 * as the commits made meanwhile left it.
 */

const SPACES = ['documents', 'entries', 'catalog', 'counts'] as const;
const BINARY = { keyEncoding: 'binary', encoding: 'binary' } as const;

function environment(directory: string): RootDatabase {
  return open({ path: directory, noSubdir: false, maxDbs: 5, mapSize: 2 ** 30, ...ENVIRONMENT_OPTIONS });
}

function key(n: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(n);
  return buffer;
}

describe('the snapshot copy of data.mdb', () => {
  test('when commits change the file after the copy began its snapshot, then the copy holds the file as it was at the snapshot, every key space whole', async () => {
    const temp = makeTempDir('snapshot-copy');
    const source = path.join(temp.dir, 'store');
    const env = environment(source);
    const spaces = SPACES.map((name) => env.openDB<Buffer, Buffer>({ name, ...BINARY }));
    try {
      // More entries than one transaction of the copy takes, so that it goes on from a key.
      env.transactionSync(() => {
        for (let n = 0; n < 25_000; n++) spaces[0].putSync(key(n), Buffer.from(`document ${n}`));
        for (const [i, db] of spaces.entries()) if (i > 0) db.putSync(key(0), Buffer.from(`${SPACES[i]} entry`));
      });
      const copy = await SnapshotCopy.start({ source, target: path.join(temp.dir, 'copy'), spaces: SPACES });

      await copy.snapshot();
      env.transactionSync(() => {
        for (let n = 0; n < 100; n++) spaces[0].removeSync(key(n));
        for (let n = 25_000; n < 25_100; n++) spaces[0].putSync(key(n), Buffer.from('written after'));
        spaces[3].putSync(key(0), Buffer.from('changed after'));
      });
      await copy.copied();
      await copy.stop();

      const copied = environment(path.join(temp.dir, 'copy'));
      try {
        const [documents, , , counts] = SPACES.map((name) => copied.openDB<Buffer, Buffer>({ name, ...BINARY }));
        const keys = [...documents.getKeys()].map((k) => k.readUInt32BE());
        expect({
          documents: keys.length,
          first: keys[0],
          last: keys.at(-1),
          middle: documents.getBinary(key(12_345))?.toString(),
          count: counts.getBinary(key(0))?.toString(),
        }).toEqual({ documents: 25_000, first: 0, last: 24_999, middle: 'document 12345', count: 'counts entry' });
      } finally {
        await copied.close();
      }
    } finally {
      await env.close();
      temp.remove();
    }
  });
});
