import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newPublicId } from 'candidate-documents';
import { ERASURE_LOG_FILE, ErasureLog, erasureLogFor } from '../../src/changes/erasure-log';
import { reapplyLoggedErasures } from '../../src/changes/erasure-replay';

describe('the erasure log', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erasure-log-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('when erasures are appended and the last append was cut short by a crash, then every whole line is read back in order and the torn one is skipped', async () => {
    const log = new ErasureLog(path.join(dir, 'nested', ERASURE_LOG_FILE));
    const [a, b] = [newPublicId(), newPublicId()];
    await log.append(a, new Date('2026-03-01T10:00:00Z'));
    await log.append(b, new Date('2026-03-02T10:00:00Z'));
    fs.appendFileSync(log.file, '{"publicId":"half-writ');

    const read = await log.read();

    expect(read).toEqual([
      { publicId: a, at: new Date('2026-03-01T10:00:00Z') },
      { publicId: b, at: new Date('2026-03-02T10:00:00Z') },
    ]);
    expect(fs.statSync(log.file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(log.file, 'utf8').split('\n')[0]).toBe(
      `{"publicId":"${a}","at":"2026-03-01T10:00:00.000Z"}`,
    );
  });

  test('when a line names no public id or no time, then it is skipped; when there is no file, then the log is empty', async () => {
    const log = new ErasureLog(path.join(dir, ERASURE_LOG_FILE));
    const id = newPublicId();
    fs.writeFileSync(
      log.file,
      [
        '{"publicId":"email-key-secret","at":"2026-03-01T10:00:00Z"}',
        `{"publicId":"${id}","at":"not a time"}`,
        `{"publicId":"${id}","at":"2026-03-01T10:00:00Z"}`,
        'garbage',
        '',
      ].join('\n'),
    );

    expect(await log.read()).toEqual([{ publicId: id, at: new Date('2026-03-01T10:00:00Z') }]);
    expect(await new ErasureLog(path.join(dir, 'absent.log')).read()).toEqual([]);
  });

  test('when the configuration names the log, or the store, then the log is ERASURE_LOG, else DATA_DIR/erasures.log on the embedded store, else none', () => {
    expect(
      erasureLogFor({ erasureLog: '/var/lib/cd/erasures.log', mongodbUri: '', dataDir: '/srv/cd.data' })?.file,
    ).toBe('/var/lib/cd/erasures.log');
    expect(erasureLogFor({ erasureLog: '', mongodbUri: '', dataDir: '/srv/cd.data' })?.file).toBe(
      '/srv/cd.data/erasures.log',
    );
    expect(
      erasureLogFor({ erasureLog: '', mongodbUri: 'mongodb://db:27017', dataDir: '/srv/cd.data' }),
    ).toBeUndefined();
  });

  test('when the log is replayed, then each candidate the store still holds is erased once, at the time of its first erasure, and the others are left alone', async () => {
    const log = new ErasureLog(path.join(dir, ERASURE_LOG_FILE));
    const ids = Array.from({ length: 1200 }, () => newPublicId());
    log.writeAll([
      ...ids.map((publicId, i) => ({ publicId, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) })),
      { publicId: ids[3], at: new Date('2026-06-01T00:00:00Z') },
    ]);
    const stored = new Set([ids[3], ids[700], ids[1199]]);
    const asked: number[] = [];
    const erased: { publicId: string; at: Date }[] = [];

    const result = await reapplyLoggedErasures(log, {
      stillStored: async (batch) => {
        asked.push(batch.length);
        return new Set(batch.filter((id) => stored.has(id)));
      },
      erase: async (publicId, at) => {
        erased.push({ publicId, at });
        return true;
      },
    });

    expect(result).toEqual({ logged: 1201, reapplied: [ids[3], ids[700], ids[1199]] });
    expect(asked).toEqual([500, 500, 200]);
    expect(erased).toEqual([
      { publicId: ids[3], at: new Date(Date.UTC(2026, 0, 1, 0, 0, 3)) },
      { publicId: ids[700], at: new Date(Date.UTC(2026, 0, 1, 0, 0, 700)) },
      { publicId: ids[1199], at: new Date(Date.UTC(2026, 0, 1, 0, 0, 1199)) },
    ]);
  });
});
