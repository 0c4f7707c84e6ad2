import { readImportLines, type ImportLine } from '../../src/candidates/import-lines';

/** The lines read from `chunks` (each a Buffer or text), with a maximum of `max` bytes a line. */
async function linesOf(chunks: (Buffer | string)[], max = 64): Promise<ImportLine[]> {
  const read: ImportLine[] = [];
  for await (const line of readImportLines(chunks, max)) read.push(line);
  return read;
}

const bytes = (...values: number[]) => Buffer.from(values);

describe('import lines (readImportLines)', () => {
  test('when lines end in \\n or \\r\\n, or the last has no end, then each is read with its number, and an empty last segment is no line', async () => {
    expect(await linesOf(['a\nb\r\n', '\nc'])).toEqual([
      { lineNumber: 1, text: 'a' },
      { lineNumber: 2, text: 'b' },
      { lineNumber: 3, text: '' },
      { lineNumber: 4, text: 'c' },
    ]);
    expect(await linesOf(['a\n'])).toEqual([{ lineNumber: 1, text: 'a' }]);
    expect(await linesOf([])).toEqual([]);
  });

  test('when a character is split across chunks, then the line holds it whole', async () => {
    const euro = Buffer.from('€', 'utf8');

    expect(await linesOf([bytes(0x7b, euro[0]), bytes(euro[1]), bytes(euro[2], 0x7d, 0x0a)])).toEqual([
      { lineNumber: 1, text: '{€}' },
    ]);
  });

  test('when a line is not valid UTF-8, then it is refused by number, without its text, and the next line is read', async () => {
    const read = await linesOf([Buffer.concat([Buffer.from('"x'), bytes(0xff, 0xfe, 0xc3), Buffer.from('"\nok\n')])]);

    expect(read).toEqual([
      { lineNumber: 1, refused: 'not valid UTF-8' },
      { lineNumber: 2, text: 'ok' },
    ]);
  });

  test.each([
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a truncated sequence at the end of the line', [0xe2, 0x82]],
  ])('when a line holds %s, then it is refused as not valid UTF-8', async (_label, sequence) => {
    expect(await linesOf([bytes(0x61, ...sequence, 0x0a)])).toEqual([{ lineNumber: 1, refused: 'not valid UTF-8' }]);
  });

  test('when the input starts with a byte order mark, also split across chunks, then it is skipped; elsewhere it stays in the line', async () => {
    expect(await linesOf([bytes(0xef, 0xbb), bytes(0xbf, 0x61, 0x0a, 0xef, 0xbb, 0xbf, 0x62)])).toEqual([
      { lineNumber: 1, text: 'a' },
      { lineNumber: 2, text: '\ufeffb' },
    ]);
  });

  test('when a line is longer than the maximum, then it is refused by number and the next line is read; a line of exactly the maximum is read', async () => {
    const read = await linesOf([`${'a'.repeat(65)}\n`, `${'b'.repeat(64)}\r\n`, 'c'], 64);

    expect(read).toEqual([
      { lineNumber: 1, refused: 'longer than the maximum line length (64 bytes)' },
      { lineNumber: 2, text: 'b'.repeat(64) },
      { lineNumber: 3, text: 'c' },
    ]);
    expect(await linesOf([`${'d'.repeat(64)}\r`, '\n'], 64)).toEqual([{ lineNumber: 1, text: 'd'.repeat(64) }]);
  });

  test('when a line never ends, then its refusal comes after reading about the maximum, not the whole line (memory stays bounded)', async () => {
    const chunk = Buffer.alloc(1024, 0x61);
    let chunksRead = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      for (;;) {
        chunksRead += 1;
        yield chunk;
      }
    }

    const first = (await readImportLines(endless(), 16 * 1024).next()).value;

    expect(first).toEqual({ lineNumber: 1, refused: 'longer than the maximum line length (16384 bytes)' });
    expect(chunksRead).toBeLessThanOrEqual(17);
  });
});
