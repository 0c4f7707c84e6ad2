import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { makeTempDir } from 'embedded-mongodb/test-support';
import { verifyBackup } from 'embedded-mongodb';
import { COLLECTIONS } from '../../src/app/indexes';
import { runBackupCli } from '../../src/cli/backup';
import type { CliOutput } from '../../src/cli/cli-support';
import { runRestoreCli } from '../../src/cli/restore';
import { startInProcessStore } from '../../src/store/open-store';
import { startDurableApp, type DurableApp } from '../support/durable-app';
import { recordSecret } from '../support/log-capture';
import { halfWrittenRegistrations } from '../support/registrations';
import { rest } from '../support/rest-client';

/**
 * `npm run backup` beside the running service and `npm run restore` of what it wrote: a backup
 * taken while registrations go on holds every one acknowledged before it began, whole (key,
 * sealed identity, candidate), with counts and indexes that agree; a restored data directory
 * serves every candidate byte for byte as the original did; and each way of asking for something
 * that would lose or mix data is refused.
 */

function registration(n: number) {
  const email = `backup.load.${n}@example.org`;
  recordSecret(email);
  return {
    registrationData: {
      identity: { email, firstName: 'Load', lastName: `Tester ${n}` },
      country: { isoCode: 'JO' },
      nationality: { isoCode: 'SY' },
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: n % 20 }],
    },
  };
}

function collect(): { output: CliOutput; lines: string[] } {
  const lines: string[] = [];
  return { output: { out: (line) => lines.push(line), err: (line) => lines.push(line) }, lines };
}

describe('npm run backup and npm run restore', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let service: DurableApp;
  let reader: string;
  let registrar: string;
  const started: DurableApp[] = [];

  beforeAll(async () => {
    temp = makeTempDir('backup-restore');
    // The writers register for as long as a backup runs (the CLI at nice 19: longer on a busy
    // machine, past the default 60 writes a minute), so the write budget is lifted: rate limiting
    // is not what this file tests.
    service = await startDurableApp(path.join(temp.dir, 'cd.data'), {
      candidates: 15,
      seed: 7,
      config: { rateLimitWrites: 1_000_000 },
    });
    reader = await service.key('READ_CANDIDATE_DATA');
    registrar = await service.key('REGISTER_CANDIDATES');
  });

  afterAll(async () => {
    for (const app of started) await app.stop();
    await service.stop();
    temp.remove();
  });

  test('when a backup is taken while registrations run, then every registration acknowledged before it began is in it, whole, and its counts agree with the restored store', async () => {
    const acknowledgedBefore: string[] = [];
    const registered = new Set<string>();
    let backupBegan = false;
    const writing = { stop: false };
    let n = 0;
    const writer = async () => {
      while (!writing.stop) {
        const sentAfter = backupBegan;
        const { status, body } = await rest(service.url, 'POST', '/v1/candidates/register', {
          key: registrar,
          body: registration(n++),
        });
        expect(status).toBe(201);
        registered.add(body.publicId as string);
        if (!sentAfter && !backupBegan) acknowledgedBefore.push(body.publicId as string);
      }
    };
    const writers = [writer(), writer()];
    while (acknowledgedBefore.length < 6) await new Promise((resolve) => setTimeout(resolve, 10));
    const backup = path.join(temp.dir, 'under-load.tar.gz');
    const { output, lines } = collect();

    backupBegan = true;
    const code = await runBackupCli([backup], output, service.env);
    writing.stop = true;
    await Promise.all(writers);

    expect({ code, lines }).toMatchObject({ code: 0 });
    const restoredDir = path.join(temp.dir, 'under-load.restored');
    expect(await runRestoreCli([backup, '--data-dir', restoredDir], output, service.env)).toBe(0);
    const manifest = await verifyBackup(backup);
    const store = await startInProcessStore(restoredDir);
    const client = await MongoClient.connect(store.uri);
    try {
      const db = client.db('candidate_directory');
      const present = await db
        .collection(COLLECTIONS.candidates)
        .distinct('publicId', { publicId: { $in: acknowledgedBefore } });
      expect(present.length).toBe(acknowledgedBefore.length);
      // No registration half in the backup: each has its key, sealed identity and candidate, or none.
      const half = await halfWrittenRegistrations(db);
      expect({
        ...half,
        candidatesWithoutIdentity: half.candidatesWithoutIdentity.filter((id) => registered.has(id)),
      }).toEqual({
        identitiesWithoutCandidate: [],
        candidatesWithoutIdentity: [],
        identitiesWithoutKey: [],
        keysWithoutIdentity: [],
      });
      const counted = (name: string) =>
        manifest.collections.find((c) => c.db === 'candidate_directory' && c.name === name)?.documents;
      expect(await db.collection(COLLECTIONS.candidates).countDocuments()).toBe(counted(COLLECTIONS.candidates));
      expect(await db.collection(COLLECTIONS.candidateIdentities).countDocuments()).toBe(
        counted(COLLECTIONS.candidateIdentities),
      );
      expect(counted(COLLECTIONS.candidates)).toBeGreaterThanOrEqual(15 + acknowledgedBefore.length);
    } finally {
      await client.close();
      await store.close();
    }
  });

  describe('a backup restored into a new data directory', () => {
    let restored: DurableApp;
    let restoredReader: string;

    // Taken when nothing else writes: the original answers as the backup holds it.
    beforeAll(async () => {
      const backup = path.join(temp.dir, 'round-trip');
      const restoredDir = path.join(temp.dir, 'round-trip.data');
      const { output, lines } = collect();
      expect({ code: await runBackupCli([backup], output, service.env), lines }).toMatchObject({ code: 0 });
      expect({
        code: await runRestoreCli([backup, '--data-dir', restoredDir], output, service.env),
        lines,
      }).toMatchObject({
        code: 0,
      });
      restored = await startDurableApp(restoredDir);
      started.push(restored);
      restoredReader = await restored.key('READ_CANDIDATE_DATA');
    });

    test('when a service runs on it, then it answers every candidate and every search page byte for byte as the original', async () => {
      const ids = (await service.db.collection(COLLECTIONS.candidates).distinct('publicId')) as string[];
      // The bytes as sent (what a partner's client receives); their shape is the REST suites' concern.
      const read = async (app: DurableApp, key: string, route: string) => {
        const response = await fetch(`${app.url}${route}`, { headers: { 'x-api-key': key } });
        return `${response.status} ${await response.text()}`;
      };
      const pages = ['/v1/candidates?limit=100&includeEmployed=true', '/v1/candidates?limit=7&offset=14'];
      const routes = [...ids.map((id) => `/v1/candidates/${id}`), ...pages];
      const differing: string[] = [];

      for (let start = 0; start < routes.length; start += 10) {
        await Promise.all(
          routes.slice(start, start + 10).map(async (route) => {
            const [original, copy] = await Promise.all([
              read(service, reader, route),
              read(restored, restoredReader, route),
            ]);
            if (original !== copy) differing.push(route);
          }),
        );
      }

      expect(ids.length).toBeGreaterThanOrEqual(15);
      expect(differing).toEqual([]);
    });
  });

  test('when a backup would replace something, or a restore would go into a directory that holds files or from a backup that does not verify, then each is refused and nothing is written', async () => {
    const { output, lines } = collect();
    const existing = path.join(temp.dir, 'existing.tar.gz');
    fs.writeFileSync(existing, 'mine');
    const good = path.join(temp.dir, 'good');
    expect(await runBackupCli([good], output, service.env)).toBe(0);
    const occupied = path.join(temp.dir, 'occupied');
    fs.mkdirSync(occupied);
    fs.writeFileSync(path.join(occupied, 'notes.txt'), 'mine');
    const damaged = path.join(temp.dir, 'damaged');
    fs.cpSync(good, damaged, { recursive: true });
    const dataFile = path.join(damaged, 'data.mdb');
    const bytes = fs.readFileSync(dataFile);
    bytes[8192 * 3] ^= 0x01;
    fs.writeFileSync(dataFile, bytes);
    const before = fs.readdirSync(temp.dir).sort();
    lines.length = 0;

    const codes = [
      await runBackupCli([existing], output, service.env),
      await runRestoreCli([good, '--data-dir', occupied], output, service.env),
      await runRestoreCli([damaged, '--data-dir', path.join(temp.dir, 'from-damaged')], output, service.env),
      await runBackupCli([path.join(temp.dir, 'x')], output, { MONGODB_URI: 'mongodb://db.internal:27017' }),
      await runRestoreCli([good], output, { MONGODB_URI: 'mongodb://db.internal:27017' }),
    ];

    expect(codes).toEqual([1, 1, 1, 2, 2]);
    expect(lines.join('\n')).toMatch(/existing\.tar\.gz exists/);
    expect(lines.join('\n')).toMatch(/occupied is not empty/);
    expect(lines.join('\n')).toMatch(/data\.mdb of .*damaged does not match its checksum/);
    expect(lines.join('\n')).toMatch(/mongodump --uri/);
    expect(lines.join('\n')).toMatch(/mongorestore --uri/);
    expect(fs.readdirSync(temp.dir).sort()).toEqual(before);
    expect(fs.readFileSync(existing, 'utf8')).toBe('mine');
    expect(fs.readdirSync(occupied)).toEqual(['notes.txt']);
  });
});
